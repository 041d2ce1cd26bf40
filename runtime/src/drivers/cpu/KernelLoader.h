//===- KernelLoader.h - Loading kernel binaries -----------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Host kernel binaries are ELF shared objects embedded in the artifact. They
// are checked against the running machine (arch, CPU features), written to an
// anonymous file and opened with dlopen.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_DRIVERS_CPU_KERNELLOADER_H
#define ORCHESTRA_RT_DRIVERS_CPU_KERNELLOADER_H

#include "orchestra_rt/Artifact.h"

#include <memory>
#include <string>
#include <vector>

namespace orx {

/// The kernel ABI: `args[i]` points at the slot of the launch's i-th value,
/// inputs first, then outputs.
using KernelFn = void (*)(void **args, const int64_t *sizes);

/// The arch of the running machine in the target registry's spelling
/// ("x86_64", "aarch64").
const char *getHostArch();

/// The CPU feature flags of the running machine as /proc/cpuinfo spells them
/// ("avx2", "sse4_2", ...). Read once.
const std::vector<std::string> &getHostCpuFlags();

/// Maps an LLVM feature name ("sse4.2", "+avx2", "avx512vnni") to its
/// /proc/cpuinfo flag ("sse4_2", "avx2", "avx512_vnni").
std::string getCpuinfoFlagName(const std::string &llvmFeature);

/// Checks that `binary` can run here: its format is loadable, its arch is the
/// host's and the host has every required feature. `index` names it in the
/// error.
bool checkBinaryCompatible(const BinaryDesc &binary, size_t index,
                           std::string &error);

/// A binary opened with dlopen; closed on destruction.
class LoadedBinary {
public:
  /// Checks and opens `binary`.
  static std::unique_ptr<LoadedBinary> load(const BinaryDesc &binary,
                                            size_t index, std::string &error);
  ~LoadedBinary();
  LoadedBinary(const LoadedBinary &) = delete;
  LoadedBinary &operator=(const LoadedBinary &) = delete;

  /// Returns the kernel `symbol`, or null with `error` set.
  KernelFn lookup(const std::string &symbol, std::string &error) const;

private:
  LoadedBinary() = default;

  void *handle = nullptr;
  /// The memfd backing the library, kept open while it is loaded so that its
  /// /proc/self/fd path (which dlopen uses to identify the library) is not
  /// reused by another binary; -1 for the mkstemp fallback.
  int fd = -1;
  std::string path;
  size_t index = 0;
};

} // namespace orx

#endif // ORCHESTRA_RT_DRIVERS_CPU_KERNELLOADER_H
