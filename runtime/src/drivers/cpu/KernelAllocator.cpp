//===- KernelAllocator.cpp - Scratch buffers of CPU kernels ---------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "KernelAllocator.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace orx {
namespace {

/// Every block starts with a header that records its rounded size; the
/// kernel sees the bytes after it. 64 bytes keep the kernel's pointer as
/// aligned as the block.
constexpr size_t kHeaderBytes = 64;

struct BlockCache {
  std::mutex mutex;
  /// Free blocks by rounded size.
  std::unordered_map<size_t, std::vector<void *>> blocks;
  size_t cachedBytes = 0;
  size_t sessions = 0;
};

/// Never destroyed: kernels of sessions freed during exit may still free
/// blocks after static destructors ran.
BlockCache &cache() {
  static BlockCache *instance = new BlockCache();
  return *instance;
}

void releaseAll(BlockCache &c) {
  for (auto &[size, list] : c.blocks)
    for (void *block : list)
      std::free(block);
  c.blocks.clear();
  c.cachedBytes = 0;
}

} // namespace

void *kernelAlloc(uint64_t bytes) {
  if (bytes > SIZE_MAX - 2 * kHeaderBytes)
    return nullptr;
  size_t size = (static_cast<size_t>(bytes) + kHeaderBytes - 1) / kHeaderBytes *
                kHeaderBytes;
  BlockCache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.blocks.find(size);
    if (it != c.blocks.end() && !it->second.empty()) {
      void *block = it->second.back();
      it->second.pop_back();
      c.cachedBytes -= size;
      return static_cast<char *>(block) + kHeaderBytes;
    }
  }
  void *block = std::aligned_alloc(kHeaderBytes, size + kHeaderBytes);
  if (!block)
    return nullptr;
  *static_cast<size_t *>(block) = size;
  return static_cast<char *>(block) + kHeaderBytes;
}

void kernelFree(void *pointer) {
  if (!pointer)
    return;
  void *block = static_cast<char *>(pointer) - kHeaderBytes;
  size_t size = *static_cast<size_t *>(block);
  BlockCache &c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.sessions > 0 && c.cachedBytes + size <= kMaxCachedKernelBytes) {
      c.blocks[size].push_back(block);
      c.cachedBytes += size;
      return;
    }
  }
  std::free(block);
}

size_t cachedKernelBytes() {
  BlockCache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  return c.cachedBytes;
}

void installKernelAllocator(void *handle) {
  void *symbol = ::dlsym(handle, kKernelAllocatorSymbol);
  if (!symbol)
    return;
  auto *hooks = static_cast<void **>(symbol);
  void *(*allocFn)(uint64_t) = &kernelAlloc;
  void (*freeFn)(void *) = &kernelFree;
  hooks[0] = reinterpret_cast<void *>(allocFn);
  hooks[1] = reinterpret_cast<void *>(freeFn);
}

void retainKernelAllocator() {
  BlockCache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  ++c.sessions;
}

void releaseKernelAllocator() {
  BlockCache &c = cache();
  std::lock_guard<std::mutex> lock(c.mutex);
  if (c.sessions > 0 && --c.sessions == 0)
    releaseAll(c);
}

} // namespace orx
