//===- KernelAllocator.h - Scratch buffers of CPU kernels -------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// CPU kernels allocate scratch buffers (the `memref.alloc`s the compiler
// leaves inside a kernel: padded copies of an input, per-thread tiles). The
// compiler routes their `malloc`/`free` through the global
// `orx_kernel_allocator` of the kernel binary; the runtime points it at this
// allocator, which keeps freed blocks and hands them out again for the same
// size. The C library would return large blocks to the kernel and map fresh
// ones at the next run, and faulting in those pages cost more than the
// kernels themselves (a depthwise convolution of MobileNetV2 spent 60% of its
// time in the kernel's page-fault handler).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_DRIVERS_CPU_KERNELALLOCATOR_H
#define ORCHESTRA_RT_DRIVERS_CPU_KERNELALLOCATOR_H

#include <cstddef>
#include <cstdint>

namespace orx {

/// The symbol of the allocator hooks in a CPU kernel binary: two function
/// pointers, `void *(*)(uint64_t)` and `void (*)(void *)`.
inline constexpr const char *kKernelAllocatorSymbol = "orx_kernel_allocator";

/// Returns a 64-byte aligned block of at least `bytes` bytes, a cached one of
/// the same rounded size if there is one; null if memory is exhausted.
void *kernelAlloc(uint64_t bytes);

/// Returns a block of kernelAlloc to the cache (or to the C library once the
/// cache holds kMaxCachedKernelBytes). Null is ignored.
void kernelFree(void *block);

/// The most bytes the cache keeps; blocks freed beyond it are released.
inline constexpr size_t kMaxCachedKernelBytes = size_t(1) << 30;

/// The bytes the cache holds now (for tests and diagnostics).
size_t cachedKernelBytes();

/// Points the allocator hooks of the loaded kernel binary `handle` (a dlopen
/// handle) at kernelAlloc/kernelFree; binaries without hooks are left alone.
void installKernelAllocator(void *handle);

/// Sessions hold the cache: it is emptied when the last session is freed.
void retainKernelAllocator();
void releaseKernelAllocator();

} // namespace orx

#endif // ORCHESTRA_RT_DRIVERS_CPU_KERNELALLOCATOR_H
