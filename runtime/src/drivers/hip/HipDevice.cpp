//===- HipDevice.cpp - One AMD GPU of a session ---------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "HipDevice.h"

using namespace orx;

HipDeviceGuard::HipDeviceGuard(const HipRuntime *runtime) : runtime(runtime) {
  if (runtime)
    saved = runtime->hipGetDevice(&previous) == hipSuccess;
}

HipDeviceGuard::~HipDeviceGuard() {
  if (saved)
    runtime->hipSetDevice(previous);
}

std::unique_ptr<HipDevice> HipDevice::create(const HipRuntime &runtime,
                                             const DeviceDesc &desc,
                                             std::string &error) {
  // Creation makes the device current; restore the caller's.
  HipDeviceGuard guard(&runtime);
  std::unique_ptr<HipDevice> result(new HipDevice(runtime, desc));
  HipDevice &d = *result;
  std::string what = "device '" + desc.name + "' (" + desc.arch + ")";
  int count = 0;
  if (!runtime.check(runtime.hipGetDeviceCount(&count), "hipGetDeviceCount",
                     error, what))
    return nullptr;
  if (desc.deviceId >= static_cast<uint32_t>(count)) {
    error = describeMissingOrdinal(desc, "HIP", count);
    return nullptr;
  }
  char name[256] = {};
  if (!runtime.check(
          runtime.hipDeviceGet(&d.device, static_cast<int>(desc.deviceId)),
          "hipDeviceGet", error, what) ||
      !runtime.check(runtime.hipDeviceGetName(name, sizeof(name) - 1, d.device),
                     "hipDeviceGetName", error, what))
    return nullptr;
  d.description = "device '" + desc.name + "' (" + desc.arch + ", HIP device " +
                  std::to_string(desc.deviceId) + ": " + name + ")";
  d.opened = true;
  if (!d.createStreams(error))
    return nullptr;
  return result;
}

HipDevice::~HipDevice() {
  if (!opened)
    return;
  HipDeviceGuard guard(&runtime);
  release();
}

const std::string &HipDevice::getDriverName() const {
  static const std::string name = kHipDriverName;
  return name;
}

std::unique_ptr<hal::CallerState> HipDevice::saveCallerState() const {
  return std::make_unique<HipDeviceGuard>(&runtime);
}

//===----------------------------------------------------------------------===//
// hal::GpuDevice
//===----------------------------------------------------------------------===//

static hipStream_t streamOf(hal::GpuDevice::Handle stream) {
  return static_cast<hipStream_t>(stream);
}
static hipEvent_t eventOf(hal::GpuDevice::Handle event) {
  return static_cast<hipEvent_t>(event);
}
static hipDeviceptr_t pointerOf(hal::GpuDevice::Address address) {
  return reinterpret_cast<hipDeviceptr_t>(static_cast<uintptr_t>(address));
}

bool HipDevice::activate(std::string &error) const {
  return runtime.check(runtime.hipSetDevice(device), "hipSetDevice", error,
                       description);
}

bool HipDevice::allocateMemory(size_t bytes, Address &out, std::string &error) {
  void *pointer = nullptr;
  if (!check(runtime.hipMalloc(&pointer, bytes), "hipMalloc", error))
    return false;
  out = static_cast<Address>(reinterpret_cast<uintptr_t>(pointer));
  return true;
}

bool HipDevice::zeroMemory(Address address, size_t bytes, std::string &error) {
  return check(runtime.hipMemsetD8(pointerOf(address), 0, bytes), "hipMemsetD8",
               error);
}

void HipDevice::freeMemory(Address address) {
  runtime.hipFree(pointerOf(address));
}

bool HipDevice::copyToDevice(Address destination, const void *source,
                             size_t bytes, std::string &error) {
  return check(runtime.hipMemcpyHtoD(pointerOf(destination),
                                     const_cast<void *>(source), bytes),
               "hipMemcpyHtoD", error);
}

bool HipDevice::pinHostMemory(void *pointer, size_t bytes, std::string &error) {
  return check(runtime.hipHostRegister(pointer, bytes, hipHostRegisterPortable),
               "hipHostRegister", error);
}

void HipDevice::unpinHostMemory(void *pointer) {
  runtime.hipHostUnregister(pointer);
}

bool HipDevice::createStream(Handle &out, std::string &error) {
  hipStream_t stream = nullptr;
  if (!check(runtime.hipStreamCreateWithFlags(&stream, hipStreamNonBlocking),
             "hipStreamCreateWithFlags", error))
    return false;
  out = stream;
  return true;
}

void HipDevice::destroyStream(Handle stream) {
  runtime.hipStreamDestroy(streamOf(stream));
}

bool HipDevice::synchronizeStream(Handle stream, std::string &error) const {
  return check(runtime.hipStreamSynchronize(streamOf(stream)),
               "hipStreamSynchronize", error);
}

bool HipDevice::synchronizeDevice(std::string &error) const {
  return check(runtime.hipDeviceSynchronize(), "hipDeviceSynchronize", error);
}

bool HipDevice::newEvent(bool timing, Handle &out, std::string &error) {
  hipEvent_t event = nullptr;
  if (!check(runtime.hipEventCreateWithFlags(
                 &event, timing ? hipEventDefault : hipEventDisableTiming),
             "hipEventCreateWithFlags", error))
    return false;
  out = event;
  return true;
}

void HipDevice::destroyEvent(Handle event) {
  runtime.hipEventDestroy(eventOf(event));
}

bool HipDevice::recordEvent(Handle event, Handle stream,
                            std::string &error) const {
  return check(runtime.hipEventRecord(eventOf(event), streamOf(stream)),
               "hipEventRecord", error);
}

bool HipDevice::streamWaitEvent(Handle stream, Handle event,
                                std::string &error) const {
  return check(runtime.hipStreamWaitEvent(streamOf(stream), eventOf(event), 0),
               "hipStreamWaitEvent", error);
}

bool HipDevice::hostWaitEvent(Handle event, std::string &error) const {
  return check(runtime.hipEventSynchronize(eventOf(event)),
               "hipEventSynchronize", error);
}

bool HipDevice::elapsedMilliseconds(Handle start, Handle end, float &out,
                                    std::string &error) const {
  return check(runtime.hipEventElapsedTime(&out, eventOf(start), eventOf(end)),
               "hipEventElapsedTime", error);
}

bool HipDevice::loadModule(const GpuModuleDesc &module, Handle &out,
                           std::string &error) {
  const GpuImageDesc *image = module.lookupImage(kHsacoImageKind);
  if (!image) {
    error = "it has no hsaco image";
    return false;
  }
  hipModule_t handle = nullptr;
  if (!check(runtime.hipModuleLoadData(&handle, image->data.data()),
             "hipModuleLoadData", error)) {
    error = "its hsaco: " + error;
    return false;
  }
  out = handle;
  return true;
}

void HipDevice::unloadModule(Handle module) {
  runtime.hipModuleUnload(static_cast<hipModule_t>(module));
}

bool HipDevice::getFunction(Handle module, const std::string &name, Handle &out,
                            std::string &error) {
  hipFunction_t function = nullptr;
  if (!check(runtime.hipModuleGetFunction(
                 &function, static_cast<hipModule_t>(module), name.c_str()),
             "hipModuleGetFunction", error))
    return false;
  out = function;
  return true;
}

bool HipDevice::launchKernel(Handle function, const unsigned grid[3],
                             const unsigned block[3], unsigned sharedBytes,
                             Handle stream, void **params,
                             std::string &error) const {
  return check(runtime.hipModuleLaunchKernel(
                   static_cast<hipFunction_t>(function), grid[0], grid[1],
                   grid[2], block[0], block[1], block[2], sharedBytes,
                   streamOf(stream), params, nullptr),
               "hipModuleLaunchKernel", error);
}

bool HipDevice::copyAsync(Handle handle, const GpuDevice *destinationDevice,
                          void *destination, const GpuDevice *sourceDevice,
                          const void *source, size_t bytes,
                          std::string &error) const {
  hipStream_t stream = streamOf(handle);
  if (!sourceDevice)
    return check(runtime.hipMemcpyHtoDAsync(
                     destination, const_cast<void *>(source), bytes, stream),
                 "hipMemcpyHtoDAsync", error);
  if (!destinationDevice)
    return check(runtime.hipMemcpyDtoHAsync(
                     destination, const_cast<void *>(source), bytes, stream),
                 "hipMemcpyDtoHAsync", error);
  // Both are devices of this driver (canCopyWith).
  int to = static_cast<const HipDevice *>(destinationDevice)->device;
  int from = static_cast<const HipDevice *>(sourceDevice)->device;
  if (to == from)
    return check(runtime.hipMemcpyDtoDAsync(
                     destination, const_cast<void *>(source), bytes, stream),
                 "hipMemcpyDtoDAsync", error);
  return check(
      runtime.hipMemcpyPeerAsync(destination, to, source, from, bytes, stream),
      "hipMemcpyPeerAsync", error);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

static std::unique_ptr<hal::Device> createHipDevice(const DeviceDesc &desc,
                                                    std::string &error) {
  const HipRuntime *runtime =
      HipRuntime::get("device '" + desc.name + "' (" + desc.arch + ")", error);
  if (!runtime)
    return nullptr;
  return HipDevice::create(*runtime, desc, error);
}

namespace orx::hal {
void registerHipDriver();
} // namespace orx::hal

void orx::hal::registerHipDriver() {
  registerDriver(kHipDriverName, createHipDevice);
}
