//===- CudaDevice.cpp - One NVIDIA GPU of a session -----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "CudaDevice.h"
#include "hal/HostMemory.h"

#include <algorithm>

using namespace orx;

namespace {
/// An event of a CUDA device: a CUevent that the device destroys.
struct CudaEvent final : hal::Event {
  explicit CudaEvent(CUevent event) : event(event) {}
  CUevent event;
};

/// The launches of one step.
struct CudaPreparedLaunch final : hal::PreparedLaunch {
  std::vector<CudaLaunch> launches;
};
} // namespace

/// The CUevent of an event of a CUDA device (every event a CUDA device sees
/// is one: canWaitOnDevice admits CUDA devices only).
static CUevent eventOf(const hal::Event &event) {
  return static_cast<const CudaEvent &>(event).event;
}
static CUevent eventOf(const hal::Event *event) {
  return event ? eventOf(*event) : nullptr;
}

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
    error = what + " is CUDA device " + std::to_string(desc.deviceId) +
            ", but this machine has " + std::to_string(count) + " CUDA device" +
            (count == 1 ? "" : "s") +
            (count == 1 ? " (0)" : " (0-" + std::to_string(count - 1) + ")");
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
  if (!d.makeCurrent(error))
    return nullptr;
  for (CUstream *stream : {&d.kernelStream, &d.copyStream, &d.hostStream})
    if (!driver.check(driver.cuStreamCreate(stream, CU_STREAM_NON_BLOCKING),
                      "cuStreamCreate", error, d.description))
      return nullptr;
  return result;
}

CudaDevice::~CudaDevice() {
  if (!retained)
    return;
  CudaContextGuard guard(&driver);
  // Errors are ignored: a failed kernel leaves the context unusable, and
  // everything must still be released.
  std::string ignored;
  if (!makeCurrent(ignored))
    return;
  synchronize(ignored);
  for (CUevent event : events)
    driver.cuEventDestroy(event);
  for (CUdeviceptr allocation : allocations)
    driver.cuMemFree(allocation);
  for (auto &entry : modules)
    for (CUmodule module : entry.second)
      driver.cuModuleUnload(module);
  for (void *pointer : registeredHostMemory)
    driver.cuMemHostUnregister(pointer);
  for (CUstream stream : {kernelStream, copyStream, hostStream})
    if (stream)
      driver.cuStreamDestroy(stream);
  driver.cuDevicePrimaryCtxRelease(device);
}

bool CudaDevice::makeCurrent(std::string &error) const {
  return driver.check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent", error,
                      description);
}

bool CudaDevice::allocate(uint64_t bytes, const std::string &what,
                          CUdeviceptr &out, std::string &error) {
  std::string context = "cannot allocate " + what + " on " + description;
  if (!makeCurrent(error))
    return false;
  size_t size = static_cast<size_t>(std::max<uint64_t>(bytes, 1));
  if (!driver.check(driver.cuMemAlloc(&out, size), "cuMemAlloc_v2", error,
                    context))
    return false;
  allocations.push_back(out);
  return driver.check(driver.cuMemsetD8(out, 0, size), "cuMemsetD8_v2", error,
                      context);
}

void CudaDevice::registerHostMemory(void *pointer, size_t bytes,
                                    const std::string &what) {
  // Where the driver cannot pin memory (some sandboxes), copies go from
  // pageable memory: still correct, but the host waits for each.
  std::string ignored;
  if (makeCurrent(ignored) &&
      driver.check(
          driver.cuMemHostRegister(pointer, bytes, CU_MEMHOSTREGISTER_PORTABLE),
          "cuMemHostRegister_v2", ignored,
          "cannot pin " + what + " for " + description))
    registeredHostMemory.push_back(pointer);
}

bool CudaDevice::createEvent(CUevent &out, std::string &error, bool timing) {
  if (!makeCurrent(error) ||
      !driver.check(driver.cuEventCreate(&out, timing
                                                   ? CU_EVENT_DEFAULT
                                                   : CU_EVENT_DISABLE_TIMING),
                    "cuEventCreate", error, description))
    return false;
  events.push_back(out);
  return true;
}

bool CudaDevice::elapsedNanoseconds(const hal::Event &start,
                                    const hal::Event &end, uint64_t &out,
                                    std::string &error) const {
  float milliseconds = 0;
  if (!makeCurrent(error) ||
      !driver.check(driver.cuEventElapsedTime(&milliseconds, eventOf(start),
                                              eventOf(end)),
                    "cuEventElapsedTime", error, description))
    return false;
  out = static_cast<uint64_t>(std::max(0.0f, milliseconds) * 1e6f);
  return true;
}

bool CudaDevice::upload(CUdeviceptr destination, const void *source,
                        size_t bytes, std::string &error) {
  return makeCurrent(error) &&
         driver.check(driver.cuMemcpyHtoD(destination, source, bytes),
                      "cuMemcpyHtoD_v2", error, description);
}

bool CudaDevice::loadModules(size_t binaryIndex, const GpuBundle &bundle,
                             std::vector<CUmodule> &loaded,
                             std::string &error) {
  for (const GpuModuleDesc &module : bundle.modules) {
    std::string what = "cannot load module '" + module.name +
                       "' of kernel binary " + std::to_string(binaryIndex) +
                       " (built for " + bundle.chip + ") on " + description;
    // The images in the bundle's order of preference; the driver loads a
    // cubin as is and JIT-compiles PTX for the device.
    std::string failures;
    CUmodule handle = nullptr;
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
      CUresult result = driver.cuModuleLoadData(&handle, data);
      if (result == CUDA_SUCCESS)
        break;
      handle = nullptr;
      failures += std::string(failures.empty() ? "" : "; ") + "its " +
                  image.kind + ": " +
                  driver.describeFailure("cuModuleLoadData", result);
    }
    if (!handle) {
      error = what + ": " +
              (failures.empty() ? "it has no cubin or PTX image" : failures);
      return false;
    }
    loaded.push_back(handle);
  }
  return true;
}

const CudaKernel *CudaDevice::prepareKernel(size_t binaryIndex,
                                            const GpuBundle &bundle,
                                            const std::string &symbol,
                                            std::string &error) {
  std::unique_ptr<CudaKernel> &kernel = kernels[{binaryIndex, symbol}];
  if (kernel)
    return kernel.get();
  if (!makeCurrent(error))
    return nullptr;
  auto moduleIt = modules.find(binaryIndex);
  if (moduleIt == modules.end()) {
    std::vector<CUmodule> loaded;
    bool ok = loadModules(binaryIndex, bundle, loaded, error);
    // Keep what did load, so that the destructor unloads it.
    moduleIt = modules.emplace(binaryIndex, std::move(loaded)).first;
    if (!ok) {
      kernels.erase({binaryIndex, symbol});
      return nullptr;
    }
  }
  const std::vector<CUmodule> &loaded = moduleIt->second;
  if (loaded.size() != bundle.modules.size()) {
    error = "the modules of kernel binary " + std::to_string(binaryIndex) +
            " failed to load on " + description;
    kernels.erase({binaryIndex, symbol});
    return nullptr;
  }

  auto result = std::make_unique<CudaKernel>();
  result->desc = bundle.lookupKernel(symbol);
  if (!result->desc) {
    error = "kernel '" + symbol + "' is not defined in kernel binary " +
            std::to_string(binaryIndex);
    kernels.erase({binaryIndex, symbol});
    return nullptr;
  }
  std::string what =
      "kernel '" + symbol + "' of kernel binary " + std::to_string(binaryIndex);
  for (const GpuLaunchDesc &launch : result->desc->launches) {
    CUfunction function = nullptr;
    const GpuModuleDesc &module = bundle.modules[launch.module];
    if (!driver.check(
            driver.cuModuleGetFunction(&function, loaded[launch.module],
                                       launch.function.c_str()),
            "cuModuleGetFunction", error,
            what + ": module '" + module.name + "' has no function '" +
                launch.function + "' on " + description)) {
      kernels.erase({binaryIndex, symbol});
      return nullptr;
    }
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
                  " bytes of dynamic shared memory on " + description)) {
        kernels.erase({binaryIndex, symbol});
        return nullptr;
      }
      limit = launch.dynamicSharedBytes;
    }
    result->functions.push_back(function);
  }
  for (size_t i = 0; i < result->desc->scratchBytes.size(); ++i) {
    CUdeviceptr scratch = 0;
    if (!allocate(result->desc->scratchBytes[i],
                  "scratch buffer " + std::to_string(i) + " (" +
                      std::to_string(result->desc->scratchBytes[i]) +
                      " bytes) of " + what,
                  scratch, error)) {
      kernels.erase({binaryIndex, symbol});
      return nullptr;
    }
    result->scratch.push_back(scratch);
  }
  for (size_t i = 0; i < result->desc->launches.size(); ++i) {
    for (const GpuArgDesc &arg : result->desc->launches[i].args) {
      if (arg.kind == GpuArgKind::TensorMap && !driver.cuTensorMapEncodeTiled) {
        error = what + ": launch " + std::to_string(i) + " ('" +
                result->desc->launches[i].function +
                "') takes a TMA tensor map, but the CUDA driver has no "
                "cuTensorMapEncodeTiled (TMA needs a CUDA 12 driver)";
        kernels.erase({binaryIndex, symbol});
        return nullptr;
      }
    }
  }
  kernel = std::move(result);
  return kernel.get();
}

bool CudaDevice::prepareLaunches(const CudaKernel &kernel,
                                 const std::vector<CUdeviceptr> &buffers,
                                 std::vector<CudaLaunch> &out,
                                 std::string &error) {
  const GpuKernelDesc &desc = *kernel.desc;
  for (size_t i = 0; i < desc.launches.size(); ++i) {
    const GpuLaunchDesc &launch = desc.launches[i];
    CudaLaunch prepared;
    prepared.function = kernel.functions[i];
    std::copy(launch.grid, launch.grid + 3, prepared.grid);
    std::copy(launch.block, launch.block + 3, prepared.block);
    prepared.sharedBytes = launch.dynamicSharedBytes;
    prepared.name = "launch " + std::to_string(i) + " ('" + launch.function +
                    "') of kernel '" + desc.symbol + "'";
    for (size_t j = 0; j < launch.args.size(); ++j) {
      const GpuArgDesc &arg = launch.args[j];
      switch (arg.kind) {
      case GpuArgKind::Buffer:
        if (arg.value >= buffers.size()) {
          error = prepared.name + ": parameter " + std::to_string(j) +
                  " is buffer " + std::to_string(arg.value) +
                  ", but the step has " + std::to_string(buffers.size()) +
                  " values";
          return false;
        }
        // Kernels are compiled assuming 64-byte aligned buffers
        // (orchestra-gpu-kernel-argument-alignment): every slot is.
        if (buffers[arg.value] % 64 != 0) {
          error = prepared.name + ": parameter " + std::to_string(j) +
                  " is buffer " + std::to_string(arg.value) +
                  ", whose device address is not 64-byte aligned";
          return false;
        }
        prepared.params.push_back(buffers[arg.value]);
        break;
      case GpuArgKind::Scratch:
        prepared.params.push_back(kernel.scratch[arg.value]);
        break;
      case GpuArgKind::Immediate:
        prepared.params.push_back(arg.size == 4 ? arg.value & 0xffffffffu
                                                : arg.value);
        break;
      case GpuArgKind::TensorMap: {
        const GpuTensorMapDesc &map = arg.tensorMap;
        CUdeviceptr base;
        if (map.source == GpuArgKind::Scratch) {
          base = kernel.scratch[map.sourceIndex];
        } else if (map.sourceIndex < buffers.size()) {
          base = buffers[map.sourceIndex];
        } else {
          error = prepared.name + ": the tensor map of parameter " +
                  std::to_string(j) + " describes buffer " +
                  std::to_string(map.sourceIndex) + ", but the step has " +
                  std::to_string(buffers.size()) + " values";
          return false;
        }
        CUtensorMap encoded;
        if (!driver.check(driver.cuTensorMapEncodeTiled(
                              &encoded, static_cast<int>(map.dataType),
                              map.rank, reinterpret_cast<void *>(base),
                              map.globalDim, map.globalStrides, map.boxDim,
                              map.elementStrides,
                              static_cast<int>(map.interleave),
                              static_cast<int>(map.swizzle),
                              static_cast<int>(map.l2Promotion),
                              static_cast<int>(map.oobFill)),
                          "cuTensorMapEncodeTiled", error,
                          prepared.name + ": the tensor map of parameter " +
                              std::to_string(j) + " on " + description))
          return false;
        // Its own device memory: two steps may launch the same kernel on
        // different buffers.
        CUdeviceptr target = 0;
        std::string what = prepared.name + ": the tensor map of parameter " +
                           std::to_string(j);
        // upload: a synchronous copy on the legacy stream, ordered after the
        // memset that allocate() queued there.
        if (!allocate(sizeof(CUtensorMap), what, target, error) ||
            !upload(target, &encoded, sizeof(CUtensorMap), error))
          return false;
        prepared.params.push_back(target);
        break;
      }
      }
    }
    out.push_back(std::move(prepared));
  }
  return true;
}

bool CudaDevice::enqueueLaunches(const std::vector<CudaLaunch> &launches,
                                 CUevent started, std::string &error) const {
  if (!makeCurrent(error))
    return false;
  if (started && !recordEvent(started, kernelStream, error))
    return false;
  std::vector<void *> params;
  for (const CudaLaunch &launch : launches) {
    // The driver copies the parameter values when the launch is enqueued.
    params.clear();
    for (const uint64_t &param : launch.params)
      params.push_back(const_cast<uint64_t *>(&param));
    if (!driver.check(
            driver.cuLaunchKernel(
                launch.function, launch.grid[0], launch.grid[1], launch.grid[2],
                launch.block[0], launch.block[1], launch.block[2],
                launch.sharedBytes, kernelStream, params.data(), nullptr),
            "cuLaunchKernel", error, launch.name + " on " + description))
      return false;
  }
  return true;
}

static CUdeviceptr deviceAddress(const void *pointer) {
  return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(pointer));
}

bool CudaDevice::enqueueCopy(CUstream stream,
                             const CudaDevice *destinationDevice,
                             void *destination, const CudaDevice *sourceDevice,
                             const void *source, size_t bytes,
                             std::string &error) const {
  if (!makeCurrent(error))
    return false;
  CUdeviceptr to = deviceAddress(destination);
  CUdeviceptr from = deviceAddress(source);
  if (!sourceDevice)
    return driver.check(driver.cuMemcpyHtoDAsync(to, source, bytes, stream),
                        "cuMemcpyHtoDAsync_v2", error, description);
  if (!destinationDevice)
    return driver.check(
        driver.cuMemcpyDtoHAsync(destination, from, bytes, stream),
        "cuMemcpyDtoHAsync_v2", error, description);
  if (sourceDevice->context == destinationDevice->context)
    return driver.check(driver.cuMemcpyDtoDAsync(to, from, bytes, stream),
                        "cuMemcpyDtoDAsync_v2", error, description);
  return driver.check(driver.cuMemcpyPeerAsync(to, destinationDevice->context,
                                               from, sourceDevice->context,
                                               bytes, stream),
                      "cuMemcpyPeerAsync", error, description);
}

bool CudaDevice::copyAndWait(const CudaDevice *destinationDevice,
                             void *destination, const CudaDevice *sourceDevice,
                             const void *source, size_t bytes,
                             std::string &error) const {
  return enqueueCopy(hostStream, destinationDevice, destination, sourceDevice,
                     source, bytes, error) &&
         driver.check(driver.cuStreamSynchronize(hostStream),
                      "cuStreamSynchronize", error, description);
}

bool CudaDevice::recordEvent(CUevent event, CUstream stream,
                             std::string &error) const {
  return makeCurrent(error) &&
         driver.check(driver.cuEventRecord(event, stream), "cuEventRecord",
                      error, description);
}

bool CudaDevice::waitEvent(CUstream stream, CUevent event,
                           std::string &error) const {
  return makeCurrent(error) &&
         driver.check(driver.cuStreamWaitEvent(stream, event, 0),
                      "cuStreamWaitEvent", error, description);
}

bool CudaDevice::synchronizeEvent(CUevent event, std::string &error) const {
  return makeCurrent(error) &&
         driver.check(driver.cuEventSynchronize(event), "cuEventSynchronize",
                      error, description);
}

bool CudaDevice::synchronize(std::string &error) {
  if (!makeCurrent(error))
    return false;
  for (CUstream stream : {kernelStream, copyStream, hostStream})
    if (stream && !driver.check(driver.cuStreamSynchronize(stream),
                                "cuStreamSynchronize", error, description))
      return false;
  return true;
}

bool CudaDevice::synchronizeContext(std::string &error) const {
  return makeCurrent(error) &&
         driver.check(driver.cuCtxSynchronize(), "cuCtxSynchronize", error,
                      description);
}

//===----------------------------------------------------------------------===//
// hal::Device
//===----------------------------------------------------------------------===//

const std::string &CudaDevice::getDriverName() const {
  static const std::string name = kCudaDriverName;
  return name;
}

std::unique_ptr<hal::CallerState> CudaDevice::saveCallerState() const {
  return std::make_unique<CudaContextGuard>(&driver);
}

bool CudaDevice::allocate(uint64_t bytes, const std::string &what, void *&out,
                          std::string &error) {
  CUdeviceptr base = 0;
  if (!allocate(bytes, what, base, error))
    return false;
  out = reinterpret_cast<void *>(static_cast<uintptr_t>(base));
  return true;
}

bool CudaDevice::upload(void *destination, const void *source, size_t bytes,
                        std::string &error) {
  return upload(deviceAddress(destination), source, bytes, error);
}

std::unique_ptr<hal::PreparedLaunch>
CudaDevice::prepareLaunch(const Artifact &artifact, uint32_t kernelIndex,
                          const std::vector<void *> &buffers,
                          const std::string &step, std::string &error) {
  const KernelDesc &kernel = artifact.kernels[kernelIndex];
  const BinaryDesc &binary = artifact.binaries[kernel.binary];
  if (!isGpuBundle(binary)) {
    error = hal::describeForeignBinary(step, description, kernel, binary,
                                       "a GPU module bundle");
    return nullptr;
  }
  std::unique_ptr<GpuBundle> &bundle = bundles[kernel.binary];
  if (!bundle) {
    auto parsed = std::make_unique<GpuBundle>();
    if (!parseGpuBundleBinary(binary, kernel.binary, *parsed, error)) {
      bundles.erase(kernel.binary);
      return nullptr;
    }
    bundle = std::move(parsed);
  }
  if (!bundle->lookupKernel(kernel.symbol)) {
    error = "kernel '" + kernel.symbol + "' is not defined in kernel binary " +
            std::to_string(kernel.binary);
    return nullptr;
  }
  // The device record's arch, not the bundle's chip: one arch may take
  // images for several chips.
  if (binary.arch != desc.arch) {
    error = "kernel binary " + std::to_string(kernel.binary) +
            " is for arch '" + binary.arch + "', device '" + desc.name +
            "' is '" + desc.arch + "'";
    return nullptr;
  }
  const CudaKernel *prepared =
      prepareKernel(kernel.binary, *bundle, kernel.symbol, error);
  if (!prepared)
    return nullptr;
  std::vector<CUdeviceptr> addresses;
  for (void *buffer : buffers)
    addresses.push_back(deviceAddress(buffer));
  auto result = std::make_unique<CudaPreparedLaunch>();
  if (!prepareLaunches(*prepared, addresses, result->launches, error)) {
    error = step + ": " + error;
    return nullptr;
  }
  return result;
}

bool CudaDevice::launch(hal::PreparedLaunch &prepared,
                        const hal::StepEvents &events, std::string &error) {
  auto &launch = static_cast<CudaPreparedLaunch &>(prepared);
  return enqueueLaunches(launch.launches, eventOf(events.started), error) &&
         (!events.finished ||
          recordEvent(eventOf(events.finished), kernelStream, error)) &&
         (!events.done ||
          recordEvent(eventOf(events.done), kernelStream, error));
}

bool CudaDevice::canCopyWith(const hal::Device &other) const {
  return other.getDriverName() == getDriverName();
}

/// The CUDA device of one side of a copy, or null for host memory.
static const CudaDevice *cudaDeviceOf(hal::Memory memory) {
  return static_cast<const CudaDevice *>(memory.device);
}

bool CudaDevice::enqueueCopy(hal::Memory destination, hal::Memory source,
                             size_t bytes, const hal::StepEvents &events,
                             std::string &error) {
  return (!events.started ||
          recordEvent(eventOf(events.started), copyStream, error)) &&
         (bytes == 0 || enqueueCopy(copyStream, cudaDeviceOf(destination),
                                    destination.address, cudaDeviceOf(source),
                                    source.address, bytes, error)) &&
         (!events.finished ||
          recordEvent(eventOf(events.finished), copyStream, error)) &&
         (!events.done || recordEvent(eventOf(events.done), copyStream, error));
}

bool CudaDevice::copyAndWait(hal::Memory destination, hal::Memory source,
                             size_t bytes, std::string &error) {
  return copyAndWait(cudaDeviceOf(destination), destination.address,
                     cudaDeviceOf(source), source.address, bytes, error);
}

std::unique_ptr<hal::Event> CudaDevice::createEvent(bool timing,
                                                    std::string &error) {
  CUevent event = nullptr;
  if (!createEvent(event, error, timing))
    return nullptr;
  return std::make_unique<CudaEvent>(event);
}

bool CudaDevice::canWaitOnDevice(const hal::Device &other) const {
  return other.getDriverName() == getDriverName();
}

bool CudaDevice::waitForEvent(hal::Queue queue, const hal::Event &event,
                              std::string &error) {
  return waitEvent(queue == hal::Queue::Compute ? kernelStream : copyStream,
                   eventOf(event), error);
}

bool CudaDevice::synchronizeEvent(const hal::Event &event, std::string &error) {
  return synchronizeEvent(eventOf(event), error);
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
