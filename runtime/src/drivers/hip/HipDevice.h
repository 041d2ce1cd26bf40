//===- HipDevice.h - One AMD GPU of a session -------------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The `hip` driver's device: a hal::GpuDevice (streams, memory, modules,
// events, launches) on one HIP device, made the calling thread's current
// device around every call and restored for the caller.
//
// A bundle module's images must include one of kind "hsaco" (a code object
// for the device's chip, loaded as is).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_DRIVERS_HIP_HIPDEVICE_H
#define ORCHESTRA_RT_DRIVERS_HIP_HIPDEVICE_H

#include "HipRuntime.h"
#include "hal/GpuDevice.h"

#include <memory>
#include <string>
#include <vector>

namespace orx {

/// Makes a device current on the calling thread for its lifetime, then
/// restores the previous one, so that a session does not change the device
/// of an application thread that also uses HIP.
class HipDeviceGuard final : public hal::CallerState {
public:
  explicit HipDeviceGuard(const HipRuntime *runtime);
  ~HipDeviceGuard();
  HipDeviceGuard(const HipDeviceGuard &) = delete;
  HipDeviceGuard &operator=(const HipDeviceGuard &) = delete;

private:
  const HipRuntime *runtime;
  int previous = 0;
  bool saved = false;
};

/// The name under which the driver registers (DeviceDesc::driver).
inline constexpr const char *kHipDriverName = "hip";

/// The image kind of a GPU module bundle that the driver loads.
inline constexpr const char *kHsacoImageKind = "hsaco";

class HipDevice final : public hal::GpuDevice {
public:
  /// Opens HIP device `desc.deviceId` and creates the streams, leaving the
  /// calling thread's current device as it was. Returns null with `error`
  /// set; the error says how many devices there are when the ordinal is out
  /// of range.
  static std::unique_ptr<HipDevice>
  create(const HipRuntime &runtime, const DeviceDesc &desc, std::string &error);
  ~HipDevice() override;
  HipDevice(const HipDevice &) = delete;
  HipDevice &operator=(const HipDevice &) = delete;

  const std::string &getDriverName() const override;
  std::unique_ptr<hal::CallerState> saveCallerState() const override;

private:
  HipDevice(const HipRuntime &runtime, const DeviceDesc &desc)
      : GpuDevice(desc), runtime(runtime) {}

  bool check(hipError_t result, const char *call, std::string &error) const {
    return runtime.check(result, call, error);
  }

  //===--------------------------------------------------------------------===//
  // hal::GpuDevice
  //===--------------------------------------------------------------------===//

  bool activate(std::string &error) const override;
  bool allocateMemory(size_t bytes, Address &out, std::string &error) override;
  bool zeroMemory(Address address, size_t bytes, std::string &error) override;
  void freeMemory(Address address) override;
  bool copyToDevice(Address destination, const void *source, size_t bytes,
                    std::string &error) override;
  bool pinHostMemory(void *pointer, size_t bytes, std::string &error) override;
  void unpinHostMemory(void *pointer) override;
  bool createStream(Handle &out, std::string &error) override;
  void destroyStream(Handle stream) override;
  bool synchronizeStream(Handle stream, std::string &error) const override;
  bool synchronizeDevice(std::string &error) const override;
  bool newEvent(bool timing, Handle &out, std::string &error) override;
  void destroyEvent(Handle event) override;
  bool recordEvent(Handle event, Handle stream,
                   std::string &error) const override;
  bool streamWaitEvent(Handle stream, Handle event,
                       std::string &error) const override;
  bool hostWaitEvent(Handle event, std::string &error) const override;
  bool hasEventTiming() const override { return true; }
  bool elapsedMilliseconds(Handle start, Handle end, float &out,
                           std::string &error) const override;
  bool loadModule(const GpuModuleDesc &module, Handle &out,
                  std::string &error) override;
  void unloadModule(Handle module) override;
  bool getFunction(Handle module, const std::string &name, Handle &out,
                   std::string &error) override;
  bool launchKernel(Handle function, const unsigned grid[3],
                    const unsigned block[3], unsigned sharedBytes,
                    Handle stream, void **params,
                    std::string &error) const override;
  bool copyAsync(Handle stream, const GpuDevice *destinationDevice,
                 void *destination, const GpuDevice *sourceDevice,
                 const void *source, size_t bytes,
                 std::string &error) const override;

  const HipRuntime &runtime;
  /// The HIP device ordinal.
  int device = 0;
  bool opened = false;
};

} // namespace orx

#endif // ORCHESTRA_RT_DRIVERS_HIP_HIPDEVICE_H
