//===- HipRuntime.h - The HIP runtime API, loaded at run time ---*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The runtime never links libamdhip64: it opens the HIP runtime with dlopen
// when an artifact has an AMD device, so it builds and runs other artifacts
// on machines without ROCm. This header declares the few HIP types it uses
// (values from the public HIP API, stable since HIP 5) and a table of the
// entry points it calls.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_DRIVERS_HIP_HIPRUNTIME_H
#define ORCHESTRA_RT_DRIVERS_HIP_HIPRUNTIME_H

#include <cstddef>
#include <string>

// The runtime's opaque handle types, at global scope and with the names of
// hip_runtime_api.h, so that the function types match the library's.
struct ihipStream_t;
struct ihipEvent_t;
struct ihipModule_t;
struct ihipModuleSymbol_t;

namespace orx {

using hipError_t = int;
using hipStream_t = ::ihipStream_t *;
using hipEvent_t = ::ihipEvent_t *;
using hipModule_t = ::ihipModule_t *;
using hipFunction_t = ::ihipModuleSymbol_t *;
/// A device address (hipDeviceptr_t is a pointer in HIP).
using hipDeviceptr_t = void *;

constexpr hipError_t hipSuccess = 0;
constexpr unsigned hipEventDefault = 0x0;
constexpr unsigned hipEventDisableTiming = 0x2;
constexpr unsigned hipStreamNonBlocking = 0x1;
/// Pinned for every device, not only the current one.
constexpr unsigned hipHostRegisterPortable = 0x1;

/// The entry points of one loaded HIP runtime library.
struct HipRuntime {
  /// Returns the runtime for the library named by $ORCHESTRA_HIP_RUNTIME (a
  /// path), else the first of `libamdhip64.so.6`, `libamdhip64.so.5` and
  /// `libamdhip64.so` that opens, initialised with hipInit and with at least
  /// one device. A library is opened once per process and never closed.
  /// `requester` names the device that needs it in messages ("device 'amd0'
  /// (amd_cdna3)"). Returns null with `error` set when no library opens, one
  /// lacks an entry point, or there is no device.
  static const HipRuntime *get(const std::string &requester,
                               std::string &error);

  /// "hipMalloc failed: hipErrorOutOfMemory (out of memory)".
  std::string describeFailure(const char *call, hipError_t result) const;
  /// Returns true on hipSuccess, else sets `error` to
  /// describeFailure(call, result), prefixed by `context` and ": " when given.
  bool check(hipError_t result, const char *call, std::string &error,
             const std::string &context = {}) const;

  /// The library path passed to dlopen.
  std::string path;

  hipError_t (*hipInit)(unsigned flags) = nullptr;
  const char *(*hipGetErrorName)(hipError_t error) = nullptr;
  const char *(*hipGetErrorString)(hipError_t error) = nullptr;
  hipError_t (*hipGetDeviceCount)(int *count) = nullptr;
  hipError_t (*hipDeviceGet)(int *device, int ordinal) = nullptr;
  hipError_t (*hipDeviceGetName)(char *name, int length, int device) = nullptr;
  hipError_t (*hipGetDevice)(int *device) = nullptr;
  hipError_t (*hipSetDevice)(int device) = nullptr;
  hipError_t (*hipDeviceSynchronize)() = nullptr;
  hipError_t (*hipMalloc)(void **pointer, size_t bytes) = nullptr;
  hipError_t (*hipFree)(void *pointer) = nullptr;
  hipError_t (*hipMemsetD8)(hipDeviceptr_t pointer, unsigned char value,
                            size_t count) = nullptr;
  hipError_t (*hipMemcpyHtoD)(hipDeviceptr_t destination, void *source,
                              size_t bytes) = nullptr;
  hipError_t (*hipMemcpyHtoDAsync)(hipDeviceptr_t destination, void *source,
                                   size_t bytes, hipStream_t stream) = nullptr;
  hipError_t (*hipMemcpyDtoHAsync)(void *destination, hipDeviceptr_t source,
                                   size_t bytes, hipStream_t stream) = nullptr;
  hipError_t (*hipMemcpyDtoDAsync)(hipDeviceptr_t destination,
                                   hipDeviceptr_t source, size_t bytes,
                                   hipStream_t stream) = nullptr;
  hipError_t (*hipMemcpyPeerAsync)(void *destination, int destinationDevice,
                                   const void *source, int sourceDevice,
                                   size_t bytes, hipStream_t stream) = nullptr;
  hipError_t (*hipHostRegister)(void *pointer, size_t bytes,
                                unsigned flags) = nullptr;
  hipError_t (*hipHostUnregister)(void *pointer) = nullptr;
  hipError_t (*hipStreamCreateWithFlags)(hipStream_t *stream,
                                         unsigned flags) = nullptr;
  hipError_t (*hipStreamDestroy)(hipStream_t stream) = nullptr;
  hipError_t (*hipStreamSynchronize)(hipStream_t stream) = nullptr;
  hipError_t (*hipStreamWaitEvent)(hipStream_t stream, hipEvent_t event,
                                   unsigned flags) = nullptr;
  hipError_t (*hipEventCreateWithFlags)(hipEvent_t *event,
                                        unsigned flags) = nullptr;
  hipError_t (*hipEventRecord)(hipEvent_t event, hipStream_t stream) = nullptr;
  hipError_t (*hipEventSynchronize)(hipEvent_t event) = nullptr;
  hipError_t (*hipEventElapsedTime)(float *milliseconds, hipEvent_t start,
                                    hipEvent_t end) = nullptr;
  hipError_t (*hipEventDestroy)(hipEvent_t event) = nullptr;
  hipError_t (*hipModuleLoadData)(hipModule_t *module,
                                  const void *image) = nullptr;
  hipError_t (*hipModuleUnload)(hipModule_t module) = nullptr;
  hipError_t (*hipModuleGetFunction)(hipFunction_t *function,
                                     hipModule_t module,
                                     const char *name) = nullptr;
  hipError_t (*hipModuleLaunchKernel)(hipFunction_t function, unsigned gridX,
                                      unsigned gridY, unsigned gridZ,
                                      unsigned blockX, unsigned blockY,
                                      unsigned blockZ, unsigned sharedBytes,
                                      hipStream_t stream, void **kernelParams,
                                      void **extra) = nullptr;
};

} // namespace orx

#endif // ORCHESTRA_RT_DRIVERS_HIP_HIPRUNTIME_H
