//===- HostMemory.cpp - Arenas and copies of host-memory devices ----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "hal/HostMemory.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <limits>

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

using namespace orx;
using namespace orx::hal;

/// The bytes of all host arenas of the process.
static std::atomic<uint64_t> hostArenaBytes{0};

HostMemoryLimit orx::hal::getHostMemoryLimit() {
  long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
  HostMemoryLimit limit{std::numeric_limits<uint64_t>::max(), "no limit known"};
  if (pages > 0 && pageSize > 0)
    limit = {static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize),
             "the machine's physical memory"};
  // cgroup v2 (containers): "max" or a number of bytes.
  std::ifstream cgroup("/sys/fs/cgroup/memory.max");
  uint64_t bytes = 0;
  if (cgroup >> bytes && bytes > 0 && bytes < limit.bytes)
    limit = {bytes, "the memory limit of this process's cgroup"};
  struct rlimit addressSpace;
  if (::getrlimit(RLIMIT_AS, &addressSpace) == 0 &&
      addressSpace.rlim_cur != RLIM_INFINITY &&
      addressSpace.rlim_cur < limit.bytes)
    limit = {static_cast<uint64_t>(addressSpace.rlim_cur),
             "this process's address-space limit (ulimit -v)"};
  return limit;
}

HostArenas::~HostArenas() {
  for (const auto &[base, bytes] : mappings) {
    ::munmap(base, bytes);
    hostArenaBytes -= bytes;
  }
}

bool HostArenas::allocate(uint64_t bytes, const std::string &what, void *&out,
                          std::string &error) {
  uint64_t mapped = std::max<uint64_t>(bytes, 1);
  // Reserved before mapping, so that sessions made at once cannot both pass.
  HostMemoryLimit limit = getHostMemoryLimit();
  uint64_t others = hostArenaBytes.fetch_add(mapped);
  if (mapped > limit.bytes || others > limit.bytes - mapped) {
    hostArenaBytes -= mapped;
    error = "cannot allocate " + what + ": with the " + std::to_string(others) +
            " bytes of host arenas already allocated it exceeds " +
            limit.source + " (" + std::to_string(limit.bytes) +
            " bytes); the plan was compiled for a topology with more memory";
    return false;
  }
  void *base = MAP_FAILED;
  if (mapped <= std::numeric_limits<size_t>::max() / 2)
    base = ::mmap(nullptr, static_cast<size_t>(mapped), PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
    hostArenaBytes -= mapped;
    error = "cannot allocate " + what;
    return false;
  }
  mappings.emplace_back(base, static_cast<size_t>(mapped));
  out = base;
  return true;
}

bool orx::hal::copyHostMemory(const std::string &description,
                              Memory destination, Memory source, size_t bytes,
                              std::string &error) {
  if (destination.device || source.device) {
    error = description + " cannot address the memory of " +
            (destination.device ? destination.device : source.device)
                ->getDescription();
    return false;
  }
  std::memmove(destination.address, source.address, bytes);
  return true;
}

std::string orx::hal::describeForeignBinary(const std::string &step,
                                            const std::string &description,
                                            const KernelDesc &kernel,
                                            const BinaryDesc &binary,
                                            const std::string &expected) {
  return step + " runs on " + description + ", but its kernel '" +
         kernel.symbol + "' is in kernel binary " +
         std::to_string(kernel.binary) + " of format '" + binary.format +
         "', not " + expected;
}
