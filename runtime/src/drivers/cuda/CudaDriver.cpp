//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "hal/Device.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

using namespace orx;

static constexpr const char *kDefaultDriver = "libcuda.so.1";

namespace {
/// A driver library opened once: its entry points, and the first one it
/// lacks (empty when it has them all).
struct LoadedDriver {
  CudaDriver driver;
  std::string missing;
};
} // namespace

/// Resolves every entry point of `d`. The three that cuInit and error
/// messages need come first, so that a driver without devices is reported as
/// such even when it is also incomplete.
static std::string resolveAll(void *handle, CudaDriver &d) {
  std::string missing;
  hal::resolveVendorSymbol(handle, "cuInit", d.cuInit, missing);
  hal::resolveVendorSymbol(handle, "cuGetErrorName", d.cuGetErrorName, missing);
  hal::resolveVendorSymbol(handle, "cuGetErrorString", d.cuGetErrorString,
                           missing);
  hal::resolveVendorSymbol(handle, "cuDeviceGetCount", d.cuDeviceGetCount,
                           missing);
  hal::resolveVendorSymbol(handle, "cuDeviceGet", d.cuDeviceGet, missing);
  hal::resolveVendorSymbol(handle, "cuDeviceGetName", d.cuDeviceGetName,
                           missing);
  hal::resolveVendorSymbol(handle, "cuDeviceGetAttribute",
                           d.cuDeviceGetAttribute, missing);
  hal::resolveVendorSymbol(handle, "cuDevicePrimaryCtxRetain",
                           d.cuDevicePrimaryCtxRetain, missing);
  hal::resolveVendorSymbol(handle, "cuDevicePrimaryCtxRelease_v2",
                           d.cuDevicePrimaryCtxRelease, missing);
  hal::resolveVendorSymbol(handle, "cuCtxGetCurrent", d.cuCtxGetCurrent,
                           missing);
  hal::resolveVendorSymbol(handle, "cuCtxSetCurrent", d.cuCtxSetCurrent,
                           missing);
  hal::resolveVendorSymbol(handle, "cuCtxSynchronize", d.cuCtxSynchronize,
                           missing);
  hal::resolveVendorSymbol(handle, "cuMemAlloc_v2", d.cuMemAlloc, missing);
  hal::resolveVendorSymbol(handle, "cuMemFree_v2", d.cuMemFree, missing);
  hal::resolveVendorSymbol(handle, "cuMemsetD8_v2", d.cuMemsetD8, missing);
  hal::resolveVendorSymbol(handle, "cuMemcpyHtoD_v2", d.cuMemcpyHtoD, missing);
  hal::resolveVendorSymbol(handle, "cuMemcpyHtoDAsync_v2", d.cuMemcpyHtoDAsync,
                           missing);
  hal::resolveVendorSymbol(handle, "cuMemcpyDtoHAsync_v2", d.cuMemcpyDtoHAsync,
                           missing);
  hal::resolveVendorSymbol(handle, "cuMemcpyDtoDAsync_v2", d.cuMemcpyDtoDAsync,
                           missing);
  hal::resolveVendorSymbol(handle, "cuMemcpyPeerAsync", d.cuMemcpyPeerAsync,
                           missing);
  hal::resolveVendorSymbol(handle, "cuMemHostRegister_v2", d.cuMemHostRegister,
                           missing);
  hal::resolveVendorSymbol(handle, "cuMemHostUnregister", d.cuMemHostUnregister,
                           missing);
  hal::resolveVendorSymbol(handle, "cuStreamCreate", d.cuStreamCreate, missing);
  hal::resolveVendorSymbol(handle, "cuStreamDestroy_v2", d.cuStreamDestroy,
                           missing);
  hal::resolveVendorSymbol(handle, "cuStreamSynchronize", d.cuStreamSynchronize,
                           missing);
  hal::resolveVendorSymbol(handle, "cuStreamWaitEvent", d.cuStreamWaitEvent,
                           missing);
  hal::resolveVendorSymbol(handle, "cuEventCreate", d.cuEventCreate, missing);
  hal::resolveVendorSymbol(handle, "cuEventRecord", d.cuEventRecord, missing);
  hal::resolveVendorSymbol(handle, "cuEventSynchronize", d.cuEventSynchronize,
                           missing);
  hal::resolveVendorSymbol(handle, "cuEventDestroy_v2", d.cuEventDestroy,
                           missing);
  hal::resolveVendorSymbol(handle, "cuModuleLoadData", d.cuModuleLoadData,
                           missing);
  hal::resolveVendorSymbol(handle, "cuModuleUnload", d.cuModuleUnload, missing);
  hal::resolveVendorSymbol(handle, "cuModuleGetFunction", d.cuModuleGetFunction,
                           missing);
  hal::resolveVendorSymbol(handle, "cuFuncSetAttribute", d.cuFuncSetAttribute,
                           missing);
  hal::resolveVendorSymbol(handle, "cuLaunchKernel", d.cuLaunchKernel, missing);
  // Optional: the GPU times of the trace.
  for (const char *name : {"cuEventElapsedTime_v2", "cuEventElapsedTime"})
    if (!d.cuEventElapsedTime)
      d.cuEventElapsedTime = reinterpret_cast<decltype(d.cuEventElapsedTime)>(
          hal::lookupVendorSymbol(handle, name));
  // Optional: drivers before CUDA 12 have no TMA.
  d.cuTensorMapEncodeTiled =
      reinterpret_cast<decltype(d.cuTensorMapEncodeTiled)>(
          hal::lookupVendorSymbol(handle, "cuTensorMapEncodeTiled"));
  return missing;
}

const CudaDriver *CudaDriver::get(const std::string &requester,
                                  std::string &error) {
  // Never destroyed: sessions on other threads may still use a driver while
  // static destructors run.
  static std::mutex *mutex = new std::mutex();
  static auto *loaded =
      new std::map<std::string, std::unique_ptr<LoadedDriver>>();

  const char *override = std::getenv("ORCHESTRA_CUDA_DRIVER");
  std::string path = override && *override ? override : kDefaultDriver;

  std::lock_guard<std::mutex> lock(*mutex);
  std::unique_ptr<LoadedDriver> &entry = (*loaded)[path];
  if (!entry) {
    std::string reason;
    void *handle = hal::openVendorLibrary(path, reason);
    if (!handle) {
      loaded->erase(path);
      error = "no CUDA driver found (" + path + ": " + reason + "); " +
              requester + " needs an NVIDIA GPU and its driver";
      return nullptr;
    }
    entry = std::make_unique<LoadedDriver>();
    entry->driver.path = path;
    entry->missing = resolveAll(handle, entry->driver);
  }

  const CudaDriver &driver = entry->driver;
  auto missingError = [&](const std::string &symbol) {
    error = "the CUDA driver '" + path + "' does not export " + symbol + "; " +
            requester + " needs a newer NVIDIA driver";
    return nullptr;
  };
  if (!driver.cuInit || !driver.cuGetErrorName || !driver.cuGetErrorString)
    return missingError(entry->missing);
  std::string reason;
  if (!driver.check(driver.cuInit(0), "cuInit", reason)) {
    error = "no CUDA device found (" + reason + "); " + requester +
            " needs an NVIDIA GPU";
    return nullptr;
  }
  if (!entry->missing.empty())
    return missingError(entry->missing);
  int count = 0;
  if (!driver.check(driver.cuDeviceGetCount(&count), "cuDeviceGetCount",
                    reason)) {
    error = "no CUDA device found (" + reason + "); " + requester +
            " needs an NVIDIA GPU";
    return nullptr;
  }
  if (count <= 0) {
    error = "no CUDA device found (the driver '" + path + "' reports none); " +
            requester + " needs an NVIDIA GPU";
    return nullptr;
  }
  return &driver;
}

std::string CudaDriver::describeFailure(const char *call,
                                        CUresult result) const {
  const char *name = nullptr;
  const char *text = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (cuGetErrorString && cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string message = std::string(call) + " failed: ";
  message += name ? name : "CUDA error " + std::to_string(result);
  if (text)
    message += std::string(" (") + text + ")";
  return message;
}

bool CudaDriver::check(CUresult result, const char *call, std::string &error,
                       const std::string &context) const {
  if (result == CUDA_SUCCESS)
    return true;
  error =
      (context.empty() ? "" : context + ": ") + describeFailure(call, result);
  return false;
}
