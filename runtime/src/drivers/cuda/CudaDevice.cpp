//===- CudaDevice.cpp - One NVIDIA GPU of a session -----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "CudaDevice.h"

#include <cstring>

using namespace orx;

CudaContextGuard::CudaContextGuard(const CudaDriver *driver) : driver(driver) {
  if (driver)
    saved = driver->cuCtxGetCurrent(&previous) == CUDA_SUCCESS;
}

CudaContextGuard::~CudaContextGuard() {
  if (saved)
    driver->cuCtxSetCurrent(previous);
}

std::unique_ptr<CudaDevice> CudaDevice::create(const CudaDriver &driver,
                                               const DeviceDesc &desc,
                                               std::string &error) {
  // Creation makes the device's context current; restore the caller's.
  CudaContextGuard guard(&driver);
  std::unique_ptr<CudaDevice> result(new CudaDevice(driver, desc));
  CudaDevice &d = *result;
  std::string what = "device '" + desc.name + "' (" + desc.arch + ")";
  int count = 0;
  if (!driver.check(driver.cuDeviceGetCount(&count), "cuDeviceGetCount", error,
                    what))
    return nullptr;
  if (desc.deviceId >= static_cast<uint32_t>(count)) {
    error = describeMissingOrdinal(desc, "CUDA", count);
    return nullptr;
  }
  if (!driver.check(driver.cuDeviceGet(&d.device, desc.deviceId), "cuDeviceGet",
                    error, what))
    return nullptr;

  char name[256] = {};
  int major = 0, minor = 0;
  if (!driver.check(driver.cuDeviceGetName(name, sizeof(name) - 1, d.device),
                    "cuDeviceGetName", error, what) ||
      !driver.check(
          driver.cuDeviceGetAttribute(
              &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d.device),
          "cuDeviceGetAttribute", error, what) ||
      !driver.check(
          driver.cuDeviceGetAttribute(
              &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d.device),
          "cuDeviceGetAttribute", error, what))
    return nullptr;
  d.description = "device '" + desc.name + "' (" + desc.arch +
                  ", CUDA device " + std::to_string(desc.deviceId) + ": " +
                  name + ", sm_" + std::to_string(major) +
                  std::to_string(minor) + ")";

  if (!driver.check(driver.cuDevicePrimaryCtxRetain(&d.context, d.device),
                    "cuDevicePrimaryCtxRetain", error, d.description))
    return nullptr;
  d.retained = true;
  if (!d.createStreams(error))
    return nullptr;
  return result;
}

CudaDevice::~CudaDevice() {
  if (!retained)
    return;
  CudaContextGuard guard(&driver);
  release();
  driver.cuDevicePrimaryCtxRelease(device);
}

const std::string &CudaDevice::getDriverName() const {
  static const std::string name = kCudaDriverName;
  return name;
}

std::unique_ptr<hal::CallerState> CudaDevice::saveCallerState() const {
  return std::make_unique<CudaContextGuard>(&driver);
}

//===----------------------------------------------------------------------===//
// hal::GpuDevice
//===----------------------------------------------------------------------===//

static CUstream streamOf(hal::GpuDevice::Handle stream) {
  return static_cast<CUstream>(stream);
}
static CUevent eventOf(hal::GpuDevice::Handle event) {
  return static_cast<CUevent>(event);
}

bool CudaDevice::activate(std::string &error) const {
  return driver.check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent", error,
                      description);
}

bool CudaDevice::allocateMemory(size_t bytes, Address &out,
                                std::string &error) {
  CUdeviceptr pointer = 0;
  if (!check(driver.cuMemAlloc(&pointer, bytes), "cuMemAlloc_v2", error))
    return false;
  out = pointer;
  return true;
}

bool CudaDevice::zeroMemory(Address address, size_t bytes, std::string &error) {
  return check(driver.cuMemsetD8(address, 0, bytes), "cuMemsetD8_v2", error);
}

void CudaDevice::freeMemory(Address address) { driver.cuMemFree(address); }

bool CudaDevice::copyToDevice(Address destination, const void *source,
                              size_t bytes, std::string &error) {
  return check(driver.cuMemcpyHtoD(destination, source, bytes),
               "cuMemcpyHtoD_v2", error);
}

bool CudaDevice::pinHostMemory(void *pointer, size_t bytes,
                               std::string &error) {
  return check(
      driver.cuMemHostRegister(pointer, bytes, CU_MEMHOSTREGISTER_PORTABLE),
      "cuMemHostRegister_v2", error);
}

void CudaDevice::unpinHostMemory(void *pointer) {
  driver.cuMemHostUnregister(pointer);
}

bool CudaDevice::createStream(Handle &out, std::string &error) {
  CUstream stream = nullptr;
  if (!check(driver.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
             "cuStreamCreate", error))
    return false;
  out = stream;
  return true;
}

void CudaDevice::destroyStream(Handle stream) {
  driver.cuStreamDestroy(streamOf(stream));
}

bool CudaDevice::synchronizeStream(Handle stream, std::string &error) const {
  return check(driver.cuStreamSynchronize(streamOf(stream)),
               "cuStreamSynchronize", error);
}

bool CudaDevice::synchronizeDevice(std::string &error) const {
  return check(driver.cuCtxSynchronize(), "cuCtxSynchronize", error);
}

bool CudaDevice::newEvent(bool timing, Handle &out, std::string &error) {
  CUevent event = nullptr;
  if (!check(driver.cuEventCreate(&event, timing ? CU_EVENT_DEFAULT
                                                 : CU_EVENT_DISABLE_TIMING),
             "cuEventCreate", error))
    return false;
  out = event;
  return true;
}

void CudaDevice::destroyEvent(Handle event) {
  driver.cuEventDestroy(eventOf(event));
}

bool CudaDevice::recordEvent(Handle event, Handle stream,
                             std::string &error) const {
  return check(driver.cuEventRecord(eventOf(event), streamOf(stream)),
               "cuEventRecord", error);
}

bool CudaDevice::streamWaitEvent(Handle stream, Handle event,
                                 std::string &error) const {
  return check(driver.cuStreamWaitEvent(streamOf(stream), eventOf(event), 0),
               "cuStreamWaitEvent", error);
}

bool CudaDevice::hostWaitEvent(Handle event, std::string &error) const {
  return check(driver.cuEventSynchronize(eventOf(event)), "cuEventSynchronize",
               error);
}

bool CudaDevice::elapsedMilliseconds(Handle start, Handle end, float &out,
                                     std::string &error) const {
  return check(driver.cuEventElapsedTime(&out, eventOf(start), eventOf(end)),
               "cuEventElapsedTime", error);
}

bool CudaDevice::loadModule(const GpuModuleDesc &module, Handle &out,
                            std::string &error) {
  // The images in the bundle's order of preference; the driver loads a
  // cubin as is and JIT-compiles PTX for the device.
  std::string failures;
  for (const GpuImageDesc &image : module.images) {
    if (image.kind != kCubinImageKind && image.kind != kPtxImageKind)
      continue;
    // cuModuleLoadData needs PTX null-terminated.
    std::vector<uint8_t> text;
    const void *data = image.data.data();
    if (image.kind == kPtxImageKind) {
      text = image.data;
      text.push_back(0);
      data = text.data();
    }
    CUmodule handle = nullptr;
    CUresult result = driver.cuModuleLoadData(&handle, data);
    if (result == CUDA_SUCCESS) {
      out = handle;
      return true;
    }
    failures += std::string(failures.empty() ? "" : "; ") + "its " +
                image.kind + ": " +
                driver.describeFailure("cuModuleLoadData", result);
  }
  error = failures.empty() ? "it has no cubin or PTX image" : failures;
  return false;
}

void CudaDevice::unloadModule(Handle module) {
  driver.cuModuleUnload(static_cast<CUmodule>(module));
}

bool CudaDevice::getFunction(Handle module, const std::string &name,
                             Handle &out, std::string &error) {
  CUfunction function = nullptr;
  if (!check(driver.cuModuleGetFunction(
                 &function, static_cast<CUmodule>(module), name.c_str()),
             "cuModuleGetFunction", error))
    return false;
  out = function;
  return true;
}

bool CudaDevice::prepareFunction(Handle handle, const GpuLaunchDesc &launch,
                                 size_t index, const std::string &what,
                                 std::string &error) {
  auto function = static_cast<CUfunction>(handle);
  unsigned &limit = sharedLimits[function];
  if (launch.dynamicSharedBytes > kDefaultMaxDynamicSharedBytes &&
      launch.dynamicSharedBytes > limit) {
    if (!driver.check(
            driver.cuFuncSetAttribute(
                function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                static_cast<int>(launch.dynamicSharedBytes)),
            "cuFuncSetAttribute", error,
            what + ": function '" + launch.function + "' cannot use " +
                std::to_string(launch.dynamicSharedBytes) +
                " bytes of dynamic shared memory on " + description))
      return false;
    limit = launch.dynamicSharedBytes;
  }
  for (const GpuArgDesc &arg : launch.args) {
    if (arg.kind == GpuArgKind::TensorMap && !driver.cuTensorMapEncodeTiled) {
      error = what + ": launch " + std::to_string(index) + " ('" +
              launch.function +
              "') takes a TMA tensor map, but the CUDA driver has no "
              "cuTensorMapEncodeTiled (TMA needs a CUDA 12 driver)";
      return false;
    }
  }
  return true;
}

bool CudaDevice::encodeTensorMap(const GpuTensorMapDesc &map, Address base,
                                 std::vector<uint8_t> &out,
                                 std::string &error) {
  CUtensorMap encoded;
  if (!check(
          driver.cuTensorMapEncodeTiled(
              &encoded, static_cast<int>(map.dataType), map.rank,
              reinterpret_cast<void *>(static_cast<uintptr_t>(base)),
              map.globalDim, map.globalStrides, map.boxDim, map.elementStrides,
              static_cast<int>(map.interleave), static_cast<int>(map.swizzle),
              static_cast<int>(map.l2Promotion), static_cast<int>(map.oobFill)),
          "cuTensorMapEncodeTiled", error))
    return false;
  out.resize(sizeof(encoded));
  std::memcpy(out.data(), &encoded, sizeof(encoded));
  return true;
}

bool CudaDevice::launchKernel(Handle function, const unsigned grid[3],
                              const unsigned block[3], unsigned sharedBytes,
                              Handle stream, void **params,
                              std::string &error) const {
  return check(driver.cuLaunchKernel(static_cast<CUfunction>(function), grid[0],
                                     grid[1], grid[2], block[0], block[1],
                                     block[2], sharedBytes, streamOf(stream),
                                     params, nullptr),
               "cuLaunchKernel", error);
}

bool CudaDevice::copyAsync(Handle handle, const GpuDevice *destinationDevice,
                           void *destination, const GpuDevice *sourceDevice,
                           const void *source, size_t bytes,
                           std::string &error) const {
  CUstream stream = streamOf(handle);
  auto to = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(destination));
  auto from = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(source));
  if (!sourceDevice)
    return check(driver.cuMemcpyHtoDAsync(to, source, bytes, stream),
                 "cuMemcpyHtoDAsync_v2", error);
  if (!destinationDevice)
    return check(driver.cuMemcpyDtoHAsync(destination, from, bytes, stream),
                 "cuMemcpyDtoHAsync_v2", error);
  // Both are devices of this driver (canCopyWith).
  CUcontext toContext =
      static_cast<const CudaDevice *>(destinationDevice)->context;
  CUcontext fromContext =
      static_cast<const CudaDevice *>(sourceDevice)->context;
  if (toContext == fromContext)
    return check(driver.cuMemcpyDtoDAsync(to, from, bytes, stream),
                 "cuMemcpyDtoDAsync_v2", error);
  return check(
      driver.cuMemcpyPeerAsync(to, toContext, from, fromContext, bytes, stream),
      "cuMemcpyPeerAsync", error);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

static std::unique_ptr<hal::Device> createCudaDevice(const DeviceDesc &desc,
                                                     std::string &error) {
  const CudaDriver *driver =
      CudaDriver::get("device '" + desc.name + "' (" + desc.arch + ")", error);
  if (!driver)
    return nullptr;
  return CudaDevice::create(*driver, desc, error);
}

namespace orx::hal {
void registerCudaDriver();
} // namespace orx::hal

void orx::hal::registerCudaDriver() {
  registerDriver(kCudaDriverName, createCudaDevice);
}
