//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The runtime never links libcuda: it opens the driver with dlopen when an
// artifact has an NVIDIA device, so it builds and runs CPU-only artifacts on
// machines without CUDA. This header declares the few driver types it uses
// (values from the public CUDA driver API) and a table of the entry points it
// calls, resolved under the names the driver exports (the `_v2` variants
// where the driver has them).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_DRIVERS_CUDA_CUDADRIVER_H
#define ORCHESTRA_RT_DRIVERS_CUDA_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

// The driver's opaque handle types, at global scope and with the names of
// cuda.h, so that the function types match the driver's exactly.
struct CUctx_st;
struct CUmod_st;
struct CUfunc_st;
struct CUstream_st;
struct CUevent_st;

namespace orx {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = ::CUctx_st *;
using CUmodule = ::CUmod_st *;
using CUfunction = ::CUfunc_st *;
using CUstream = ::CUstream_st *;
using CUevent = ::CUevent_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr unsigned CU_EVENT_DEFAULT = 0x0;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
/// Pinned for every context, not only the current one.
constexpr unsigned CU_MEMHOSTREGISTER_PORTABLE = 0x1;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;

/// A TMA tensor map (`CUtensorMap`): 128 opaque bytes, 64-byte aligned.
struct alignas(64) CUtensorMap {
  unsigned long long opaque[16];
};
/// Dynamic shared memory a kernel may use without opting in.
constexpr unsigned kDefaultMaxDynamicSharedBytes = 48 * 1024;

/// The entry points of one loaded CUDA driver library.
struct CudaDriver {
  /// Returns the driver for the library named by $ORCHESTRA_CUDA_DRIVER (a
  /// path), else `libcuda.so.1`, initialised with cuInit and with at least one
  /// device. A library is opened once per process and never closed (the
  /// driver's threads outlive any session). `requester` names the device that
  /// needs the driver in messages ("device 'gpu0' (nvidia_hopper)"). Returns
  /// null with `error` set when the library cannot be opened, lacks an entry
  /// point, or has no device.
  static const CudaDriver *get(const std::string &requester,
                               std::string &error);

  /// "cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describeFailure(const char *call, CUresult result) const;
  /// Returns true on CUDA_SUCCESS, else sets `error` to
  /// describeFailure(call, result), prefixed by `context` and ": " when given.
  bool check(CUresult result, const char *call, std::string &error,
             const std::string &context = {}) const;

  /// The library path passed to dlopen.
  std::string path;

  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char **name) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char **text) = nullptr;
  CUresult (*cuDeviceGetCount)(int *count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char *name, int length,
                              CUdevice device) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute,
                                   CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context,
                                       CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext *context) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext context) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr pointer) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr pointer, unsigned char value,
                         size_t count) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr destination, const void *source,
                           size_t bytes) = nullptr;
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr destination, const void *source,
                                size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync)(void *destination, CUdeviceptr source,
                                size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr destination, CUdeviceptr source,
                                size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemcpyPeerAsync)(CUdeviceptr destination,
                                CUcontext destinationContext,
                                CUdeviceptr source, CUcontext sourceContext,
                                size_t bytes, CUstream stream) = nullptr;
  CUresult (*cuMemHostRegister)(void *pointer, size_t bytes,
                                unsigned flags) = nullptr;
  CUresult (*cuMemHostUnregister)(void *pointer) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream stream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event,
                                unsigned flags) = nullptr;
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags) = nullptr;
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
  CUresult (*cuEventDestroy)(CUevent event) = nullptr;
  CUresult (*cuModuleLoadData)(CUmodule *module, const void *image) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction function, int attribute,
                                 int value) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gridX,
                             unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ,
                             unsigned sharedBytes, CUstream stream,
                             void **kernelParams, void **extra) = nullptr;
  /// Optional: the GPU time between two events recorded with timing
  /// (cuEventElapsedTime_v2 of CUDA 12.8 and later, else cuEventElapsedTime);
  /// without it, the trace has no GPU times.
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start,
                                 CUevent end) = nullptr;
  /// Optional (CUDA 12 drivers): null when the driver has no TMA; only
  /// kernels with tensor-map parameters need it.
  CUresult (*cuTensorMapEncodeTiled)(
      CUtensorMap *tensorMap, int dataType, uint32_t rank, void *globalAddress,
      const uint64_t *globalDim, const uint64_t *globalStrides,
      const uint32_t *boxDim, const uint32_t *elementStrides, int interleave,
      int swizzle, int l2Promotion, int oobFill) = nullptr;
};

} // namespace orx

#endif // ORCHESTRA_RT_DRIVERS_CUDA_CUDADRIVER_H
