//===- CudaDevice.h - One NVIDIA GPU of a session ---------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// What a session holds for each CUDA device of its artifact: the primary
// context, three non-blocking streams (kernels, copies of the device's queue,
// and copies that CPU queues and the session itself make), device memory, the
// modules of the GPU module bundles its steps use, scratch buffers and step
// events. Everything is released by the destructor.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_CUDADEVICE_H
#define ORCHESTRA_RT_CUDADEVICE_H

#include "CudaDriver.h"
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
class CudaContextGuard {
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

class CudaDevice {
public:
  /// Retains the primary context of CUDA device `desc.deviceId` and creates
  /// the streams. Returns null with `error` set; the error says how many
  /// devices there are when the ordinal is out of range.
  static std::unique_ptr<CudaDevice>
  create(const CudaDriver &driver, const DeviceDesc &desc, std::string &error);
  ~CudaDevice();
  CudaDevice(const CudaDevice &) = delete;
  CudaDevice &operator=(const CudaDevice &) = delete;

  const CudaDriver &getDriver() const { return driver; }
  CUcontext getContext() const { return context; }
  CUstream getKernelStream() const { return kernelStream; }
  CUstream getCopyStream() const { return copyStream; }
  CUstream getHostStream() const { return hostStream; }
  /// "device 'gpu0' (nvidia_hopper, CUDA device 0: NVIDIA H100, sm_90)".
  const std::string &getDescription() const { return description; }

  /// Makes the device's context current on the calling thread.
  bool makeCurrent(std::string &error) const;

  /// Allocates `bytes` (at least 1) of zeroed device memory, freed by the
  /// destructor. `what` names the buffer in the error.
  bool allocate(uint64_t bytes, const std::string &what, CUdeviceptr &out,
                std::string &error);
  /// Pins host memory (for every context) until the destructor.
  bool registerHostMemory(void *pointer, size_t bytes, const std::string &what,
                          std::string &error);
  /// Creates an event, destroyed by the destructor; with `timing`, one that
  /// elapsedNanoseconds can measure from or to.
  bool createEvent(CUevent &out, std::string &error, bool timing = false);
  /// Whether the driver can measure the GPU time between two events.
  bool canTime() const { return driver.cuEventElapsedTime != nullptr; }
  /// The GPU time from `start` to `end` (both timing events, complete).
  bool elapsedNanoseconds(CUevent start, CUevent end, uint64_t &out,
                          std::string &error) const;

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

  /// Waits for every stream of the device.
  bool synchronize(std::string &error) const;
  /// Waits for all work of the context, including the synchronous memsets
  /// and copies of session creation.
  bool synchronizeContext(std::string &error) const;

private:
  CudaDevice(const CudaDriver &driver) : driver(driver) {}

  bool loadModules(size_t binaryIndex, const GpuBundle &bundle,
                   std::vector<CUmodule> &modules, std::string &error);

  const CudaDriver &driver;
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
  /// The modules of each bundle, by kernel binary index.
  std::map<size_t, std::vector<CUmodule>> modules;
  /// Prepared kernels by (kernel binary index, symbol).
  std::map<std::pair<size_t, std::string>, std::unique_ptr<CudaKernel>> kernels;
  /// The dynamic shared memory limit set on each function.
  std::map<CUfunction, unsigned> sharedLimits;
};

} // namespace orx

#endif // ORCHESTRA_RT_CUDADEVICE_H
