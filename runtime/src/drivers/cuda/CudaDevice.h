//===- CudaDevice.h - One NVIDIA GPU of a session ---------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The `cuda` driver's device: what a session holds for each CUDA device of
// its artifact: the primary context, three non-blocking streams (kernels,
// copies of the device's queue, and copies that other queues and the session
// itself make: the Compute and Transfer queues of the HAL and a private
// one), device memory, the modules of the GPU module bundles its steps use,
// scratch buffers and step events. Everything is released by the destructor.
//
// A bundle module's images may be of kind "cubin" (loaded as is) and "ptx"
// (JIT-compiled by the driver when no cubin loads).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_DRIVERS_CUDA_CUDADEVICE_H
#define ORCHESTRA_RT_DRIVERS_CUDA_CUDADEVICE_H

#include "CudaDriver.h"
#include "hal/Device.h"
#include "orchestra_rt/Artifact.h"
#include "orchestra_rt/GpuBundle.h"

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

/// A task kernel of a GPU module bundle, made ready on one device.
struct CudaKernel {
  const GpuKernelDesc *desc = nullptr;
  /// The function of each of desc->launches.
  std::vector<CUfunction> functions;
  /// The device address of each of desc->scratchBytes.
  std::vector<CUdeviceptr> scratch;
};

/// One kernel launch of a launch step with its parameters resolved.
struct CudaLaunch {
  CUfunction function = nullptr;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  /// Each parameter in an 8-byte word: a device pointer, or an immediate (a
  /// 4-byte one in the low bytes, which come first on the little-endian hosts
  /// CUDA runs on). A TensorMap parameter is the device address of its map,
  /// encoded for this step's buffers and copied there once, when the launch
  /// is prepared (the buffers do not move for the session's life).
  std::vector<uint64_t> params;
  /// "launch 0 ('matmul_kernel') of kernel 'orx_kernel_task0'".
  std::string name;
};

/// The name under which the driver registers (DeviceDesc::driver).
inline constexpr const char *kCudaDriverName = "cuda";

/// The image kinds of a GPU module bundle that the driver loads.
inline constexpr const char *kCubinImageKind = "cubin";
inline constexpr const char *kPtxImageKind = "ptx";

class CudaDevice final : public hal::Device {
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

  const CudaDriver &getDriver() const { return driver; }
  CUcontext getContext() const { return context; }
  CUstream getKernelStream() const { return kernelStream; }
  CUstream getCopyStream() const { return copyStream; }
  CUstream getHostStream() const { return hostStream; }
  //===--------------------------------------------------------------------===//
  // hal::Device
  //===--------------------------------------------------------------------===//

  const std::string &getDriverName() const override;
  /// "device 'gpu0' (nvidia_hopper, CUDA device 0: NVIDIA H100, sm_90)".
  const std::string &getDescription() const override { return description; }
  bool isHostMemory() const override { return false; }
  bool isAsynchronous() const override { return true; }
  std::unique_ptr<hal::CallerState> saveCallerState() const override;
  bool allocate(uint64_t bytes, const std::string &what, void *&out,
                std::string &error) override;
  bool upload(void *destination, const void *source, size_t bytes,
              std::string &error) override;
  void registerHostMemory(void *pointer, size_t bytes,
                          const std::string &what) override;
  bool finishSetup(std::string &error) override {
    return synchronizeContext(error);
  }
  std::unique_ptr<hal::PreparedLaunch>
  prepareLaunch(const Artifact &artifact, uint32_t kernelIndex,
                const std::vector<void *> &buffers, const std::string &step,
                std::string &error) override;
  bool launch(hal::PreparedLaunch &launch, const hal::StepEvents &events,
              std::string &error) override;
  bool canCopyWith(const hal::Device &other) const override;
  bool enqueueCopy(hal::Memory destination, hal::Memory source, size_t bytes,
                   const hal::StepEvents &events, std::string &error) override;
  bool copyAndWait(hal::Memory destination, hal::Memory source, size_t bytes,
                   std::string &error) override;
  std::unique_ptr<hal::Event> createEvent(bool timing,
                                          std::string &error) override;
  bool canTime() const override { return driver.cuEventElapsedTime != nullptr; }
  bool elapsedNanoseconds(const hal::Event &start, const hal::Event &end,
                          uint64_t &out, std::string &error) const override;
  bool canWaitOnDevice(const hal::Device &other) const override;
  bool waitForEvent(hal::Queue queue, const hal::Event &event,
                    std::string &error) override;
  bool synchronizeEvent(const hal::Event &event, std::string &error) override;
  bool synchronize(std::string &error) override;

  //===--------------------------------------------------------------------===//
  // The driver's own interface
  //===--------------------------------------------------------------------===//

  /// Makes the device's context current on the calling thread.
  bool makeCurrent(std::string &error) const;

  /// Allocates `bytes` (at least 1) of zeroed device memory, freed by the
  /// destructor. `what` names the buffer in the error.
  bool allocate(uint64_t bytes, const std::string &what, CUdeviceptr &out,
                std::string &error);
  /// Creates an event, destroyed by the destructor; with `timing`, one that
  /// elapsedNanoseconds can measure from or to.
  bool createEvent(CUevent &out, std::string &error, bool timing = false);

  /// Copies host memory to the device with the synchronous cuMemcpyHtoD. From
  /// pageable memory the driver may still be copying when it returns: call
  /// synchronizeContext before streams use the data.
  bool upload(CUdeviceptr destination, const void *source, size_t bytes,
              std::string &error);

  /// Loads the modules of `bundle` (kernel binary `binaryIndex`) once, then
  /// resolves the functions of kernel `symbol`, allocates its scratch
  /// buffers and raises the dynamic shared memory limit of functions that
  /// need more than 48 KiB. Kernels are shared by all the steps that launch
  /// them: the device's launches are serialised on its kernel stream.
  const CudaKernel *prepareKernel(size_t binaryIndex, const GpuBundle &bundle,
                                  const std::string &symbol,
                                  std::string &error);

  /// Resolves the launches of `kernel` for a step whose values (inputs, then
  /// outputs) are at `buffers`: encodes their tensor maps into device memory
  /// of their own (waiting for the copies).
  bool prepareLaunches(const CudaKernel &kernel,
                       const std::vector<CUdeviceptr> &buffers,
                       std::vector<CudaLaunch> &out, std::string &error);

  /// Enqueues `launches` in order on the kernel stream, after `started`
  /// (when not null).
  bool enqueueLaunches(const std::vector<CudaLaunch> &launches, CUevent started,
                       std::string &error) const;

  /// Enqueues a copy of `bytes` on `stream` (one of this device's). A side
  /// whose device is null is host memory; the other is device memory of the
  /// device given (this one or another: a peer copy).
  bool enqueueCopy(CUstream stream, const CudaDevice *destinationDevice,
                   void *destination, const CudaDevice *sourceDevice,
                   const void *source, size_t bytes, std::string &error) const;
  /// Copies like enqueueCopy on the host stream and waits for the copy.
  bool copyAndWait(const CudaDevice *destinationDevice, void *destination,
                   const CudaDevice *sourceDevice, const void *source,
                   size_t bytes, std::string &error) const;

  /// Records `event` on `stream` (one of this device's).
  bool recordEvent(CUevent event, CUstream stream, std::string &error) const;
  /// Makes `stream` (one of this device's) wait for `event`.
  bool waitEvent(CUstream stream, CUevent event, std::string &error) const;
  /// Waits on the host for `event`, recorded on one of this device's streams.
  bool synchronizeEvent(CUevent event, std::string &error) const;

  /// Waits for all work of the context, including the synchronous memsets
  /// and copies of session creation.
  bool synchronizeContext(std::string &error) const;

private:
  CudaDevice(const CudaDriver &driver, const DeviceDesc &desc)
      : driver(driver), desc(desc) {}

  bool loadModules(size_t binaryIndex, const GpuBundle &bundle,
                   std::vector<CUmodule> &modules, std::string &error);

  const CudaDriver &driver;
  /// The artifact's record of the device.
  DeviceDesc desc;
  std::string description;
  CUdevice device = 0;
  CUcontext context = nullptr;
  bool retained = false;
  CUstream kernelStream = nullptr;
  CUstream copyStream = nullptr;
  CUstream hostStream = nullptr;

  std::vector<CUdeviceptr> allocations;
  std::vector<void *> registeredHostMemory;
  std::vector<CUevent> events;
  /// The parsed bundles of the kernels prepared so far, by kernel binary
  /// index.
  std::map<size_t, std::unique_ptr<GpuBundle>> bundles;
  /// The modules of each bundle, by kernel binary index.
  std::map<size_t, std::vector<CUmodule>> modules;
  /// Prepared kernels by (kernel binary index, symbol).
  std::map<std::pair<size_t, std::string>, std::unique_ptr<CudaKernel>> kernels;
  /// The dynamic shared memory limit set on each function.
  std::map<CUfunction, unsigned> sharedLimits;
};

} // namespace orx

#endif // ORCHESTRA_RT_DRIVERS_CUDA_CUDADEVICE_H
