//===- NpyFuzzer.cpp - Fuzz target: the .npy reader -----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Bytes -> npy::parse (orchestra-run's and orchestra-compile's inputs). A
// refusal is fine; a crash, a sanitizer report or an array whose data does
// not match its header is a bug.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Support/Npy.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  orchestra::npy::Array array;
  std::string error;
  if (!orchestra::npy::parse(bytes, array, error))
    return 0;
  // What was accepted must be self-consistent and survive a round trip.
  size_t elements = 1;
  for (int64_t dim : array.shape) {
    if (dim < 0)
      std::abort();
    elements *= static_cast<size_t>(dim);
  }
  if (array.data.size() !=
      elements * orchestra::npy::getElementTypeSize(array.type))
    std::abort();
  orchestra::npy::Array again;
  if (!orchestra::npy::parse(orchestra::npy::serialize(array), again, error) ||
      again.data != array.data || again.shape != array.shape)
    std::abort();
  return 0;
}
