//===- HostMemory.h - Arenas and copies of host-memory devices --*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// What every driver whose device memory is the host's (isHostMemory: the
// CPU, and the pjrt driver, which stages values in host memory) does the
// same way: its arenas are anonymous mappings and its copies are memmove.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_HAL_HOSTMEMORY_H
#define ORCHESTRA_RT_HAL_HOSTMEMORY_H

#include "hal/Device.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace orx::hal {

/// The arenas of a host-memory device, unmapped by the destructor.
class HostArenas {
public:
  HostArenas() = default;
  HostArenas(const HostArenas &) = delete;
  HostArenas &operator=(const HostArenas &) = delete;
  ~HostArenas();

  /// Device::allocate for host memory. Anonymous mappings are page-aligned
  /// (more than the 64 bytes kernels may assume) and zero-filled on first
  /// touch, so a large arena costs nothing until it is used; every
  /// allocation gets at least one page, so that every slot, even an empty
  /// one, has an address (and the session can pin arenas page by page).
  /// The arenas of all host-memory devices of the process together may not
  /// exceed the machine's memory (getHostMemoryLimit()): the mapping would
  /// succeed and the process be killed when the plan touches it.
  bool allocate(uint64_t bytes, const std::string &what, void *&out,
                std::string &error);

private:
  std::vector<std::pair<void *, size_t>> mappings;
};

/// The most host memory this process may use for arenas, in bytes, and where
/// the limit comes from: the physical memory, or less when the process's
/// cgroup (a container) or its address-space limit (`ulimit -v`) allows less.
struct HostMemoryLimit {
  uint64_t bytes;
  std::string source;
};
HostMemoryLimit getHostMemoryLimit();

/// Device::copyAndWait for a host-memory device described as `description`:
/// both sides must be host memory.
bool copyHostMemory(const std::string &description, Memory destination,
                    Memory source, size_t bytes, std::string &error);

/// The error of a launch step whose kernel is in a binary of another format
/// than the device's driver runs (`expected`, e.g. "a GPU module bundle").
std::string describeForeignBinary(const std::string &step,
                                  const std::string &description,
                                  const KernelDesc &kernel,
                                  const BinaryDesc &binary,
                                  const std::string &expected);

} // namespace orx::hal

#endif // ORCHESTRA_RT_HAL_HOSTMEMORY_H
