//===- KernelLoader.cpp - Loading kernel binaries -------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "KernelLoader.h"

#include "KernelAllocator.h"
#include "orchestra_rt/GpuBundle.h"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace orx;

static constexpr const char *kElfSharedObject = "elf-shared-object";

const char *orx::getHostArch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64";
#else
  return "unknown";
#endif
}

const std::vector<std::string> &orx::getHostCpuFlags() {
  static const std::vector<std::string> flags = [] {
    std::vector<std::string> result;
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
      // x86 names the list "flags", AArch64 "Features".
      size_t colon = line.find(':');
      if (colon == std::string::npos)
        continue;
      std::string key = line.substr(0, colon);
      key.erase(key.find_last_not_of(" \t") + 1);
      if (key != "flags" && key != "Features")
        continue;
      std::istringstream words(line.substr(colon + 1));
      std::string word;
      while (words >> word)
        result.push_back(word);
      break;
    }
#if defined(__x86_64__)
    // Some hypervisors leave flags out of /proc/cpuinfo although the CPU
    // executes the instructions (LZCNT's "abm" seen missing); LLVM detects
    // host features with CPUID, so the check asks CPUID too.
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid(0x80000001, &eax, &ebx, &ecx, &edx) && (ecx & bit_LZCNT) &&
        std::find(result.begin(), result.end(), "abm") == result.end())
      result.push_back("abm");
#endif
    std::sort(result.begin(), result.end());
    return result;
  }();
  return flags;
}

std::string orx::getCpuinfoFlagName(const std::string &llvmFeature) {
  std::string name = llvmFeature;
  if (!name.empty() && name[0] == '+')
    name.erase(0, 1);
  // LLVM names whose /proc/cpuinfo spelling is not the LLVM name with '.' and
  // '-' replaced by '_'.
  static const struct {
    const char *llvm;
    const char *cpuinfo;
  } kRenamed[] = {
      {"sse3", "pni"},
      {"bmi", "bmi1"},
      {"lzcnt", "abm"},
      {"sha", "sha_ni"},
      {"pclmul", "pclmulqdq"},
      {"rdrnd", "rdrand"},
      {"x87", "fpu"},
      {"64bit", "lm"},
      {"sahf", "lahf_lm"},
      {"prfchw", "3dnowprefetch"},
      {"avx512vnni", "avx512_vnni"},
      {"avx512bf16", "avx512_bf16"},
      {"avx512fp16", "avx512_fp16"},
      {"avx512vbmi2", "avx512_vbmi2"},
      {"avx512bitalg", "avx512_bitalg"},
      {"avx512vpopcntdq", "avx512_vpopcntdq"},
      {"avx512vp2intersect", "avx512_vp2intersect"},
      {"avxvnni", "avx_vnni"},
      {"avxvnniint8", "avx_vnni_int8"},
      {"avxifma", "avx_ifma"},
      {"avxneconvert", "avx_ne_convert"},
      {"crc", "crc32"},
  };
  for (const auto &entry : kRenamed)
    if (name == entry.llvm)
      return entry.cpuinfo;
  std::replace(name.begin(), name.end(), '.', '_');
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

bool orx::checkBinaryCompatible(const BinaryDesc &binary, size_t index,
                                std::string &error) {
  std::string what = "kernel binary " + std::to_string(index);
  if (isGpuBundle(binary)) {
    error = what + " is a GPU module bundle for '" + binary.arch +
            "'; only a GPU device runs its kernels";
    return false;
  }
  if (binary.format != kElfSharedObject) {
    error = what + " has format '" + binary.format +
            "'; this runtime loads only '" + kElfSharedObject + "'";
    return false;
  }
  if (binary.arch != getHostArch()) {
    error = what + " is for arch '" + binary.arch + "', this machine is '" +
            getHostArch() + "'";
    return false;
  }
  const std::vector<std::string> &flags = getHostCpuFlags();
  std::string missing;
  for (const std::string &feature : binary.requiredFeatures) {
    // "-feature" marks a feature the code was built without.
    if (feature.empty() || feature[0] == '-')
      continue;
    if (std::binary_search(flags.begin(), flags.end(),
                           getCpuinfoFlagName(feature)))
      continue;
    missing += (missing.empty() ? "" : ", ") + feature;
  }
  if (!missing.empty()) {
    error = what + " needs CPU features this machine lacks: " + missing;
    return false;
  }
  return true;
}

/// Writes all of `data` to `fd`.
static bool writeAll(int fd, const std::vector<uint8_t> &data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

/// The library a failed dlopen names as missing ("libomp.so.5: cannot open
/// shared object file: ..."), or "".
static std::string missingLibrary(const std::string &dlopenError) {
  size_t end = dlopenError.find(": cannot open shared object file");
  if (end == std::string::npos)
    return "";
  size_t begin = dlopenError.rfind(": ", end == 0 ? 0 : end - 1);
  begin = begin == std::string::npos ? 0 : begin + 2;
  std::string name = dlopenError.substr(begin, end - begin);
  bool plain = !name.empty() && name.find('/') == std::string::npos;
  return plain ? name : "";
}

/// Loads `name` from the folder of the library (or program) that holds this
/// runtime, where a bundle carried to a machine without the compiler's
/// libraries puts the ones its CPU kernels need (the OpenMP runtime). The
/// kernels' own dependency on `name` is then met by the loaded library's
/// soname. Gives the path it tried.
static std::string loadBesideRuntime(const std::string &name, bool &loaded) {
  loaded = false;
  Dl_info info;
  if (!::dladdr(reinterpret_cast<void *>(&missingLibrary), &info) ||
      !info.dli_fname)
    return "";
  std::string self = info.dli_fname;
  size_t slash = self.rfind('/');
  std::string path = (slash == std::string::npos ? std::string("./")
                                                 : self.substr(0, slash + 1)) +
                     name;
  if (::access(path.c_str(), R_OK) != 0)
    return path;
  // Kept loaded for the life of the process, as the system's copy would be.
  // Local: the kernels find it by its soname; nothing else sees its symbols
  // (another OpenMP runtime, PyTorch's, may be loaded too).
  loaded = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) != nullptr;
  return path;
}

std::unique_ptr<LoadedBinary>
LoadedBinary::load(const BinaryDesc &binary, size_t index, std::string &error) {
  if (!checkBinaryCompatible(binary, index, error))
    return nullptr;
  std::string what = "kernel binary " + std::to_string(index);
  std::unique_ptr<LoadedBinary> result(new LoadedBinary());
  result->index = index;

  // An anonymous in-memory file; fall back to an unlinked temporary file
  // where memfd_create is unavailable.
  std::string tempPath;
  int fd = ::memfd_create(("orx-kernels-" + std::to_string(index)).c_str(),
                          MFD_CLOEXEC);
  if (fd >= 0) {
    result->path = "/proc/self/fd/" + std::to_string(fd);
  } else {
    const char *dir = std::getenv("TMPDIR");
    tempPath = std::string(dir && *dir ? dir : "/tmp") + "/orx-kernels-XXXXXX";
    fd = ::mkstemp(tempPath.data());
    if (fd < 0) {
      error = what + ": cannot create a temporary file '" + tempPath +
              "': " + std::strerror(errno);
      return nullptr;
    }
    result->path = tempPath;
  }
  bool written = writeAll(fd, binary.data);
  int writeErrno = errno;
  if (!written) {
    ::close(fd);
    if (!tempPath.empty())
      ::unlink(tempPath.c_str());
    error = what + ": cannot write it to '" + result->path +
            "': " + std::strerror(writeErrno);
    return nullptr;
  }

  result->handle = ::dlopen(result->path.c_str(), RTLD_NOW | RTLD_LOCAL);
  auto lastError = [] {
    const char *text = ::dlerror();
    return std::string(text ? text : "");
  };
  std::string dlopenError = result->handle ? "" : lastError();
  // A library the kernels need that this machine lacks: the copy beside the
  // runtime, if there is one.
  std::string besideRuntime;
  if (std::string name = missingLibrary(dlopenError); !name.empty()) {
    bool loaded;
    besideRuntime = loadBesideRuntime(name, loaded);
    if (loaded) {
      result->handle = ::dlopen(result->path.c_str(), RTLD_NOW | RTLD_LOCAL);
      dlopenError = result->handle ? "" : lastError();
    }
  }
  if (!tempPath.empty()) {
    ::close(fd);
    ::unlink(tempPath.c_str());
  } else {
    result->fd = fd;
  }
  if (!result->handle) {
    error = what + " (" + std::to_string(binary.data.size()) +
            " bytes) cannot be loaded: " +
            (dlopenError.empty() ? "unknown dlopen error" : dlopenError);
    if (!besideRuntime.empty())
      error += " (nor from '" + besideRuntime + "')";
    return nullptr;
  }
  installKernelAllocator(result->handle);
  return result;
}

LoadedBinary::~LoadedBinary() {
  if (!handle) {
    if (fd >= 0)
      ::close(fd);
    return;
  }
  ::dlclose(handle);
  if (fd < 0)
    return;
  // A library that stays loaded after dlclose (e.g. one marked nodelete) is
  // still known to the loader under its /proc/self/fd path: keep the
  // descriptor so that the path never names another binary.
  if (void *stillLoaded =
          ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
    ::dlclose(stillLoaded);
    return;
  }
  ::close(fd);
}

KernelFn LoadedBinary::lookup(const std::string &symbol,
                              std::string &error) const {
  ::dlerror();
  void *address = ::dlsym(handle, symbol.c_str());
  if (!address) {
    error = "kernel '" + symbol + "' is not defined in kernel binary " +
            std::to_string(index);
    return nullptr;
  }
  return reinterpret_cast<KernelFn>(address);
}
