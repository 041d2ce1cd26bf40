//===- HostMemory.cpp - Arenas and copies of host-memory devices ----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "hal/HostMemory.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <sys/mman.h>

using namespace orx;
using namespace orx::hal;

HostArenas::~HostArenas() {
  for (const auto &[base, bytes] : mappings)
    ::munmap(base, bytes);
}

bool HostArenas::allocate(uint64_t bytes, const std::string &what, void *&out,
                          std::string &error) {
  uint64_t mapped = std::max<uint64_t>(bytes, 1);
  void *base = MAP_FAILED;
  if (mapped <= std::numeric_limits<size_t>::max() / 2)
    base = ::mmap(nullptr, static_cast<size_t>(mapped), PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) {
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
