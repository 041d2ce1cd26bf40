//===- CudaDevice.h - One NVIDIA GPU of a session ---------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The `cuda` driver's device: a hal::GpuDevice (streams, memory, modules,
// events, launches) on the primary context of one CUDA device, made current
// around every call and restored for the caller.
//
// A bundle module's images may be of kind "cubin" (loaded as is) and "ptx"
// (JIT-compiled by the driver when no cubin loads).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_DRIVERS_CUDA_CUDADEVICE_H
#define ORCHESTRA_RT_DRIVERS_CUDA_CUDADEVICE_H

#include "CudaDriver.h"
#include "hal/GpuDevice.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace orx {

/// Makes a context current on the calling thread for its lifetime, then
/// restores the previous one, so that a session does not change the context
/// of an application thread that also uses CUDA.
class CudaContextGuard final : public hal::CallerState {
public:
  explicit CudaContextGuard(const CudaDriver *driver);
  ~CudaContextGuard();
  CudaContextGuard(const CudaContextGuard &) = delete;
  CudaContextGuard &operator=(const CudaContextGuard &) = delete;

private:
  const CudaDriver *driver;
  CUcontext previous = nullptr;
  bool saved = false;
};

/// The name under which the driver registers (DeviceDesc::driver).
inline constexpr const char *kCudaDriverName = "cuda";

/// The image kinds of a GPU module bundle that the driver loads.
inline constexpr const char *kCubinImageKind = "cubin";
inline constexpr const char *kPtxImageKind = "ptx";

class CudaDevice final : public hal::GpuDevice {
public:
  /// Retains the primary context of CUDA device `desc.deviceId` and creates
  /// the streams, leaving the calling thread's current context as it was.
  /// Returns null with `error` set; the error says how many devices there are
  /// when the ordinal is out of range.
  static std::unique_ptr<CudaDevice>
  create(const CudaDriver &driver, const DeviceDesc &desc, std::string &error);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice &) = delete;
  CudaDevice &operator=(const CudaDevice &) = delete;

  const std::string &getDriverName() const override;
  std::unique_ptr<hal::CallerState> saveCallerState() const override;

private:
  CudaDevice(const CudaDriver &driver, const DeviceDesc &desc)
      : GpuDevice(desc), driver(driver) {}

  bool check(CUresult result, const char *call, std::string &error) const {
    return driver.check(result, call, error);
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
  bool hasEventTiming() const override {
    return driver.cuEventElapsedTime != nullptr;
  }
  bool elapsedMilliseconds(Handle start, Handle end, float &out,
                           std::string &error) const override;
  /// Loads a cubin as is, or JIT-compiles PTX for the device.
  bool loadModule(const GpuModuleDesc &module, Handle &out,
                  std::string &error) override;
  void unloadModule(Handle module) override;
  bool getFunction(Handle module, const std::string &name, Handle &out,
                   std::string &error) override;
  /// Raises the dynamic shared memory limit of functions that need more than
  /// 48 KiB; refuses tensor-map parameters when the driver has no TMA.
  bool prepareFunction(Handle function, const GpuLaunchDesc &launch,
                       size_t index, const std::string &what,
                       std::string &error) override;
  bool encodeTensorMap(const GpuTensorMapDesc &map, Address base,
                       std::vector<uint8_t> &out, std::string &error) override;
  bool launchKernel(Handle function, const unsigned grid[3],
                    const unsigned block[3], unsigned sharedBytes,
                    Handle stream, void **params,
                    std::string &error) const override;
  bool copyAsync(Handle stream, const GpuDevice *destinationDevice,
                 void *destination, const GpuDevice *sourceDevice,
                 const void *source, size_t bytes,
                 std::string &error) const override;

  const CudaDriver &driver;
  CUdevice device = 0;
  CUcontext context = nullptr;
  bool retained = false;
  /// The dynamic shared memory limit set on each function.
  std::map<CUfunction, unsigned> sharedLimits;
};

} // namespace orx

#endif // ORCHESTRA_RT_DRIVERS_CUDA_CUDADEVICE_H
