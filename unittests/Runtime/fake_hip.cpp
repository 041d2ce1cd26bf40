//===- fake_hip.cpp - A simulated HIP runtime for the runtime tests -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Stands in for libamdhip64 (through ORCHESTRA_HIP_RUNTIME), linked with the
// simulated CUDA driver (fake_cuda.cpp) into one library: each HIP call is
// the simulation's driver call with the same meaning, so the HIP driver gets
// the same strictness (streams that run only when waited for, device ranges
// checked, every object counted) and the tests the same controls
// (orx_fake_cuda_configure / orx_fake_cuda_query). HIP's error codes are
// CUDA's numbers; the names are HIP's.
//
// What differs from the CUDA simulation: a current device per thread instead
// of a current context (hipSetDevice makes the device's primary context
// current), code objects are images starting with "FAKEHSACO" (refused with
// hipErrorNoBinaryForGpu when "reject_hsaco" is set), and errors are
// returned by value from hipGetErrorName / hipGetErrorString.
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstring>

struct CUctx_st;
struct CUstream_st;
struct CUevent_st;
struct CUmod_st;
struct CUfunc_st;

namespace {
using Result = int;
using DevicePointer = unsigned long long;

constexpr Result kSuccess = 0;
constexpr Result kInvalidValue = 1;
constexpr Result kInvalidDevice = 101;
constexpr Result kInvalidImage = 200;
constexpr Result kNoBinaryForGpu = 209;

thread_local int currentDevice = 0;

DevicePointer address(const void *pointer) {
  return static_cast<DevicePointer>(reinterpret_cast<uintptr_t>(pointer));
}
} // namespace

// The simulated driver (fake_cuda.cpp).
extern "C" {
long long orx_fake_cuda_query(const char *key);
Result cuInit(unsigned flags);
Result cuDeviceGetCount(int *count);
Result cuDeviceGet(int *device, int ordinal);
Result cuDeviceGetName(char *name, int length, int device);
Result cuDevicePrimaryCtxRetain(CUctx_st **context, int device);
Result cuDevicePrimaryCtxRelease_v2(int device);
Result cuCtxSetCurrent(CUctx_st *context);
Result cuCtxSynchronize();
Result cuMemAlloc_v2(DevicePointer *pointer, size_t bytes);
Result cuMemFree_v2(DevicePointer pointer);
Result cuMemsetD8_v2(DevicePointer pointer, unsigned char value, size_t count);
Result cuMemcpyHtoD_v2(DevicePointer destination, const void *source,
                       size_t bytes);
Result cuMemcpyHtoDAsync_v2(DevicePointer destination, const void *source,
                            size_t bytes, CUstream_st *stream);
Result cuMemcpyDtoHAsync_v2(void *destination, DevicePointer source,
                            size_t bytes, CUstream_st *stream);
Result cuMemcpyDtoDAsync_v2(DevicePointer destination, DevicePointer source,
                            size_t bytes, CUstream_st *stream);
Result cuMemcpyPeerAsync(DevicePointer destination, CUctx_st *,
                         DevicePointer source, CUctx_st *, size_t bytes,
                         CUstream_st *stream);
Result cuMemHostRegister_v2(void *pointer, size_t bytes, unsigned flags);
Result cuMemHostUnregister(void *pointer);
Result cuStreamCreate(CUstream_st **stream, unsigned flags);
Result cuStreamDestroy_v2(CUstream_st *stream);
Result cuStreamSynchronize(CUstream_st *stream);
Result cuStreamWaitEvent(CUstream_st *stream, CUevent_st *event,
                         unsigned flags);
Result cuEventCreate(CUevent_st **event, unsigned flags);
Result cuEventRecord(CUevent_st *event, CUstream_st *stream);
Result cuEventSynchronize(CUevent_st *event);
Result cuEventElapsedTime_v2(float *milliseconds, CUevent_st *start,
                             CUevent_st *end);
Result cuEventDestroy_v2(CUevent_st *event);
Result cuModuleLoadData(CUmod_st **module, const void *image);
Result cuModuleUnload(CUmod_st *module);
Result cuModuleGetFunction(CUfunc_st **function, CUmod_st *module,
                           const char *name);
Result cuLaunchKernel(CUfunc_st *function, unsigned gridX, unsigned gridY,
                      unsigned gridZ, unsigned blockX, unsigned blockY,
                      unsigned blockZ, unsigned sharedBytes,
                      CUstream_st *stream, void **kernelParams, void **extra);
} // extern "C"

extern "C" {

const char *hipGetErrorName(Result error) {
  switch (error) {
  case 0:
    return "hipSuccess";
  case 1:
    return "hipErrorInvalidValue";
  case 2:
    return "hipErrorOutOfMemory";
  case 3:
    return "hipErrorNotInitialized";
  case 100:
    return "hipErrorNoDevice";
  case 101:
    return "hipErrorInvalidDevice";
  case 200:
    return "hipErrorInvalidImage";
  case 201:
    return "hipErrorInvalidContext";
  case 209:
    return "hipErrorNoBinaryForGpu";
  case 400:
    return "hipErrorInvalidHandle";
  case 500:
    return "hipErrorNotFound";
  case 600:
    return "hipErrorNotReady";
  case 700:
    return "hipErrorIllegalAddress";
  case 801:
    return "hipErrorNotSupported";
  }
  return "hipErrorUnknown";
}

const char *hipGetErrorString(Result error) {
  switch (error) {
  case 2:
    return "out of memory";
  case 100:
    return "no ROCm-capable device is detected";
  case 209:
    return "no kernel image is available for execution on the device";
  case 500:
    return "named symbol not found";
  case 700:
    return "an illegal memory access was encountered";
  }
  // Like the real runtime, which often repeats the name.
  return hipGetErrorName(error);
}

Result hipInit(unsigned flags) { return cuInit(flags); }
Result hipGetDeviceCount(int *count) { return cuDeviceGetCount(count); }
Result hipDeviceGet(int *device, int ordinal) {
  return cuDeviceGet(device, ordinal);
}
Result hipDeviceGetName(char *name, int length, int device) {
  return cuDeviceGetName(name, length, device);
}

Result hipSetDevice(int device) {
  int ordinal = 0;
  CUctx_st *context = nullptr;
  if (cuDeviceGet(&ordinal, device) != kSuccess)
    return kInvalidDevice;
  // The device's primary context, without holding a reference.
  Result result = cuDevicePrimaryCtxRetain(&context, device);
  if (result != kSuccess)
    return result;
  cuDevicePrimaryCtxRelease_v2(device);
  currentDevice = device;
  return cuCtxSetCurrent(context);
}

Result hipGetDevice(int *device) {
  if (!device)
    return kInvalidValue;
  *device = currentDevice;
  return kSuccess;
}

Result hipDeviceSynchronize() { return cuCtxSynchronize(); }

Result hipMalloc(void **pointer, size_t bytes) {
  DevicePointer allocated = 0;
  Result result = cuMemAlloc_v2(&allocated, bytes);
  *pointer = reinterpret_cast<void *>(static_cast<uintptr_t>(allocated));
  return result;
}

Result hipFree(void *pointer) { return cuMemFree_v2(address(pointer)); }

Result hipMemsetD8(void *pointer, unsigned char value, size_t count) {
  return cuMemsetD8_v2(address(pointer), value, count);
}

Result hipMemcpyHtoD(void *destination, void *source, size_t bytes) {
  return cuMemcpyHtoD_v2(address(destination), source, bytes);
}

Result hipMemcpyHtoDAsync(void *destination, void *source, size_t bytes,
                          CUstream_st *stream) {
  return cuMemcpyHtoDAsync_v2(address(destination), source, bytes, stream);
}

Result hipMemcpyDtoHAsync(void *destination, void *source, size_t bytes,
                          CUstream_st *stream) {
  return cuMemcpyDtoHAsync_v2(destination, address(source), bytes, stream);
}

Result hipMemcpyDtoDAsync(void *destination, void *source, size_t bytes,
                          CUstream_st *stream) {
  return cuMemcpyDtoDAsync_v2(address(destination), address(source), bytes,
                              stream);
}

Result hipMemcpyPeerAsync(void *destination, int destinationDevice,
                          const void *source, int sourceDevice, size_t bytes,
                          CUstream_st *stream) {
  int ordinal = 0;
  if (cuDeviceGet(&ordinal, destinationDevice) != kSuccess ||
      cuDeviceGet(&ordinal, sourceDevice) != kSuccess)
    return kInvalidDevice;
  return cuMemcpyPeerAsync(address(destination), nullptr, address(source),
                           nullptr, bytes, stream);
}

Result hipHostRegister(void *pointer, size_t bytes, unsigned flags) {
  return cuMemHostRegister_v2(pointer, bytes, flags);
}
Result hipHostUnregister(void *pointer) { return cuMemHostUnregister(pointer); }

Result hipStreamCreateWithFlags(CUstream_st **stream, unsigned flags) {
  return cuStreamCreate(stream, flags);
}
Result hipStreamDestroy(CUstream_st *stream) {
  return cuStreamDestroy_v2(stream);
}
Result hipStreamSynchronize(CUstream_st *stream) {
  return cuStreamSynchronize(stream);
}
Result hipStreamWaitEvent(CUstream_st *stream, CUevent_st *event,
                          unsigned flags) {
  return cuStreamWaitEvent(stream, event, flags);
}

Result hipEventCreateWithFlags(CUevent_st **event, unsigned flags) {
  return cuEventCreate(event, flags);
}
Result hipEventRecord(CUevent_st *event, CUstream_st *stream) {
  return cuEventRecord(event, stream);
}
Result hipEventSynchronize(CUevent_st *event) {
  return cuEventSynchronize(event);
}
Result hipEventElapsedTime(float *milliseconds, CUevent_st *start,
                           CUevent_st *end) {
  return cuEventElapsedTime_v2(milliseconds, start, end);
}
Result hipEventDestroy(CUevent_st *event) { return cuEventDestroy_v2(event); }

Result hipModuleLoadData(CUmod_st **module, const void *image) {
  if (!image ||
      std::strncmp(static_cast<const char *>(image), "FAKEHSACO", 9) != 0)
    return kInvalidImage;
  if (orx_fake_cuda_query("reject_hsaco"))
    return kNoBinaryForGpu;
  static const char kModule[] = "FAKECUBIN";
  return cuModuleLoadData(module, kModule);
}
Result hipModuleUnload(CUmod_st *module) { return cuModuleUnload(module); }
Result hipModuleGetFunction(CUfunc_st **function, CUmod_st *module,
                            const char *name) {
  return cuModuleGetFunction(function, module, name);
}

Result hipModuleLaunchKernel(CUfunc_st *function, unsigned gridX,
                             unsigned gridY, unsigned gridZ, unsigned blockX,
                             unsigned blockY, unsigned blockZ,
                             unsigned sharedBytes, CUstream_st *stream,
                             void **kernelParams, void **extra) {
  return cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                        sharedBytes, stream, kernelParams, extra);
}

} // extern "C"
