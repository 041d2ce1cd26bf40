//===- GpuDevice.h - A GPU driven through streams and events ----*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// What every GPU driver of the runtime does the same way, whatever the
// vendor: a session holds, per GPU, three in-order streams (kernels, copies
// of the device's own queue, and copies that other queues and the session
// itself make: the Compute and Transfer queues of the HAL and a private
// one), device memory, the modules of the GPU module bundles its steps use,
// each kernel's functions and scratch buffers, and step events; launch
// parameters are resolved from the bundle's launch table once per step.
//
// A driver derives from GpuDevice and implements the vendor primitives below
// (one call of its API each, usually); it owns the device's context or
// current-device state and releases the objects by calling release() from
// its destructor, while its API is still usable.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_HAL_GPUDEVICE_H
#define ORCHESTRA_RT_HAL_GPUDEVICE_H

#include "hal/Device.h"
#include "orchestra_rt/Artifact.h"
#include "orchestra_rt/GpuBundle.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace orx::hal {

class GpuDevice : public Device {
public:
  /// An address in device memory.
  using Address = uint64_t;
  /// An object of the vendor API (a stream, event, module or function).
  using Handle = void *;

  ~GpuDevice() override;

  //===--------------------------------------------------------------------===//
  // hal::Device
  //===--------------------------------------------------------------------===//

  const std::string &getDescription() const override { return description; }
  bool isHostMemory() const override { return false; }
  bool isAsynchronous() const override { return true; }
  bool allocate(uint64_t bytes, const std::string &what, void *&out,
                std::string &error) override;
  bool upload(void *destination, const void *source, size_t bytes,
              std::string &error) override;
  void registerHostMemory(void *pointer, size_t bytes,
                          const std::string &what) override;
  bool finishSetup(std::string &error) override;
  std::unique_ptr<PreparedLaunch>
  prepareLaunch(const Artifact &artifact, uint32_t kernelIndex,
                const std::vector<void *> &buffers, const std::string &step,
                std::string &error) override;
  bool launch(PreparedLaunch &launch, const StepEvents &events,
              std::string &error) override;
  /// Devices of the same driver copy between each other (peer copies) and
  /// wait for each other's events.
  bool canCopyWith(const Device &other) const override;
  bool enqueueCopy(Memory destination, Memory source, size_t bytes,
                   const StepEvents &events, std::string &error) override;
  bool copyAndWait(Memory destination, Memory source, size_t bytes,
                   std::string &error) override;
  std::unique_ptr<Event> createEvent(bool timing, std::string &error) override;
  bool canTime() const override { return hasEventTiming(); }
  bool elapsedNanoseconds(const Event &start, const Event &end, uint64_t &out,
                          std::string &error) const override;
  bool canWaitOnDevice(const Device &other) const override;
  bool waitForEvent(Queue queue, const Event &event,
                    std::string &error) override;
  bool synchronizeEvent(const Event &event, std::string &error) override;
  bool synchronize(std::string &error) override;

protected:
  explicit GpuDevice(const DeviceDesc &desc) : desc(desc) {}

  /// "device 'gpu0' (arch) is <api> device 3, but this machine has 2 <api>
  /// devices (0-1)".
  static std::string describeMissingOrdinal(const DeviceDesc &desc,
                                            const std::string &api, int count);

  /// Creates the three streams; the driver's create() calls it once the
  /// device can be activated.
  bool createStreams(std::string &error);
  /// Waits for the streams, then destroys everything the device created:
  /// events, memory, modules, pinned host memory and the streams. Errors
  /// are ignored (a failed kernel may leave the device unusable, and
  /// everything must still be released).
  void release();

  /// The artifact's record of the device.
  DeviceDesc desc;
  /// "device 'gpu0' (arch, what the driver found)", set by the driver.
  std::string description;

  //===--------------------------------------------------------------------===//
  // The vendor primitives. Those that can fail set `error` to
  // "<call> failed: <name> (<text>)"; GpuDevice adds what it was doing. All
  // but activate() are called with the device active.
  //===--------------------------------------------------------------------===//

  /// Makes the device the calling thread's current one (error: prefixed by
  /// the description).
  virtual bool activate(std::string &error) const = 0;
  /// Allocates `bytes` (> 0) of device memory, at least 64-byte aligned.
  virtual bool allocateMemory(size_t bytes, Address &out,
                              std::string &error) = 0;
  virtual bool zeroMemory(Address address, size_t bytes,
                          std::string &error) = 0;
  virtual void freeMemory(Address address) = 0;
  /// Copies host memory to the device; returns when the source may be
  /// reused.
  virtual bool copyToDevice(Address destination, const void *source,
                            size_t bytes, std::string &error) = 0;
  virtual bool pinHostMemory(void *pointer, size_t bytes,
                             std::string &error) = 0;
  virtual void unpinHostMemory(void *pointer) = 0;
  /// Creates a stream that does not synchronise with the legacy one.
  virtual bool createStream(Handle &out, std::string &error) = 0;
  virtual void destroyStream(Handle stream) = 0;
  virtual bool synchronizeStream(Handle stream, std::string &error) const = 0;
  /// Waits for all work of the device, including synchronous set-up calls.
  virtual bool synchronizeDevice(std::string &error) const = 0;
  virtual bool newEvent(bool timing, Handle &out, std::string &error) = 0;
  virtual void destroyEvent(Handle event) = 0;
  virtual bool recordEvent(Handle event, Handle stream,
                           std::string &error) const = 0;
  virtual bool streamWaitEvent(Handle stream, Handle event,
                               std::string &error) const = 0;
  virtual bool hostWaitEvent(Handle event, std::string &error) const = 0;
  /// Whether elapsedMilliseconds works.
  virtual bool hasEventTiming() const = 0;
  virtual bool elapsedMilliseconds(Handle start, Handle end, float &out,
                                   std::string &error) const = 0;
  /// Loads `module` from the first of its images that the vendor loads; the
  /// error names each image tried and why it failed, or says that none is
  /// of a kind the driver loads.
  virtual bool loadModule(const GpuModuleDesc &module, Handle &out,
                          std::string &error) = 0;
  virtual void unloadModule(Handle module) = 0;
  virtual bool getFunction(Handle module, const std::string &name, Handle &out,
                           std::string &error) = 0;
  /// Makes `function` ready for `launch`, launch `index` of the kernel that
  /// `what` names (e.g. raises its dynamic shared memory limit); sets the
  /// whole error. By default, nothing to do.
  virtual bool prepareFunction(Handle function, const GpuLaunchDesc &launch,
                               size_t index, const std::string &what,
                               std::string &error) {
    return true;
  }
  /// Encodes the tensor-map parameter `map` for data at `base` into `out`
  /// (the bytes the kernel reads from device memory). By default the driver
  /// has none.
  virtual bool encodeTensorMap(const GpuTensorMapDesc &map, Address base,
                               std::vector<uint8_t> &out, std::string &error);
  /// Enqueues one launch on `stream`; `params` points at each parameter's
  /// value (the API copies them).
  virtual bool launchKernel(Handle function, const unsigned grid[3],
                            const unsigned block[3], unsigned sharedBytes,
                            Handle stream, void **params,
                            std::string &error) const = 0;
  /// Enqueues a copy on `stream`. A side whose device is null is host
  /// memory; the other is memory of the device given (this one, or another
  /// of the same driver: a peer copy).
  virtual bool copyAsync(Handle stream, const GpuDevice *destinationDevice,
                         void *destination, const GpuDevice *sourceDevice,
                         const void *source, size_t bytes,
                         std::string &error) const = 0;

private:
  /// A task kernel of a GPU module bundle, made ready on this device.
  struct Kernel {
    const GpuKernelDesc *desc = nullptr;
    /// The function of each of desc->launches.
    std::vector<Handle> functions;
    /// The device address of each of desc->scratchBytes.
    std::vector<Address> scratch;
  };
  struct Launch;
  struct PreparedLaunches;

  bool allocate(uint64_t bytes, const std::string &what, Address &out,
                std::string &error);
  bool loadModules(size_t binaryIndex, const GpuBundle &bundle,
                   std::vector<Handle> &modules, std::string &error);
  /// Loads the modules of `bundle` (kernel binary `binaryIndex`) once, then
  /// resolves the functions of kernel `symbol` and allocates its scratch
  /// buffers. Kernels are shared by all the steps that launch them: the
  /// device's launches are serialised on its kernel stream.
  const Kernel *prepareKernel(size_t binaryIndex, const GpuBundle &bundle,
                              const std::string &symbol, std::string &error);
  /// Resolves the launches of `kernel` for a step whose values (inputs, then
  /// outputs) are at `buffers`, and whose branch counters (a profiled
  /// kernel's) are at `counters` (0 when it has none); tensor maps get device
  /// memory of their own.
  bool prepareLaunches(const Kernel &kernel,
                       const std::vector<Address> &buffers, Address counters,
                       std::vector<Launch> &out, std::string &error);
  /// Enqueues a step's launches: each once, in order, or as the kernel's
  /// program runs them.
  bool enqueueLaunches(const PreparedLaunches &prepared, Handle started,
                       std::string &error) const;
  /// Enqueues `launch` with its register parameters from `registers`.
  bool enqueueLaunch(const Launch &launch,
                     const std::vector<Address> &registers,
                     std::string &error) const;
  /// activate() + recordEvent / streamWaitEvent / hostWaitEvent, with the
  /// description in the error.
  bool record(Handle event, Handle stream, std::string &error) const;
  bool copyOn(Handle stream, Memory destination, Memory source, size_t bytes,
              std::string &error) const;

  Handle kernelStream = nullptr;
  Handle copyStream = nullptr;
  Handle hostStream = nullptr;
  std::vector<Address> allocations;
  std::vector<void *> pinnedHostMemory;
  std::vector<Handle> events;
  /// The parsed bundles of the kernels prepared so far, by kernel binary
  /// index.
  std::map<size_t, std::unique_ptr<GpuBundle>> bundles;
  /// The modules of each bundle, by kernel binary index.
  std::map<size_t, std::vector<Handle>> modules;
  /// Prepared kernels by (kernel binary index, symbol).
  std::map<std::pair<size_t, std::string>, std::unique_ptr<Kernel>> kernels;
};

} // namespace orx::hal

#endif // ORCHESTRA_RT_HAL_GPUDEVICE_H
