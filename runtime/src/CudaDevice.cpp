//===- CudaDevice.cpp - One NVIDIA GPU of a session -----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "CudaDevice.h"

#include <algorithm>

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
  std::unique_ptr<CudaDevice> result(new CudaDevice(driver));
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

bool CudaDevice::registerHostMemory(void *pointer, size_t bytes,
                                    const std::string &what,
                                    std::string &error) {
  if (!makeCurrent(error) ||
      !driver.check(
          driver.cuMemHostRegister(pointer, bytes, CU_MEMHOSTREGISTER_PORTABLE),
          "cuMemHostRegister_v2", error,
          "cannot pin " + what + " for " + description))
    return false;
  registeredHostMemory.push_back(pointer);
  return true;
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

bool CudaDevice::elapsedNanoseconds(CUevent start, CUevent end, uint64_t &out,
                                    std::string &error) const {
  float milliseconds = 0;
  if (!makeCurrent(error) ||
      !driver.check(driver.cuEventElapsedTime(&milliseconds, start, end),
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
    CUmodule handle = nullptr;
    std::string imageError;
    if (!module.image.empty()) {
      CUresult result = driver.cuModuleLoadData(&handle, module.image.data());
      if (result == CUDA_SUCCESS) {
        loaded.push_back(handle);
        continue;
      }
      imageError = driver.describeFailure("cuModuleLoadData", result);
      if (module.ptx.empty()) {
        error = what + ": " + imageError;
        return false;
      }
    }
    // The driver JIT-compiles PTX for the device (std::string is
    // null-terminated, as cuModuleLoadData needs).
    CUresult result = driver.cuModuleLoadData(&handle, module.ptx.c_str());
    if (result != CUDA_SUCCESS) {
      std::string ptxError = driver.describeFailure("cuModuleLoadData", result);
      error = imageError.empty() ? what + " from its PTX: " + ptxError
                                 : what + ": its cubin: " + imageError +
                                       "; its PTX, too: " + ptxError;
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
        // (orchestra-nvidia-kernel-argument-alignment): every slot is.
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

bool CudaDevice::synchronize(std::string &error) const {
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
