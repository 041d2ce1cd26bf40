//===- HipRuntime.cpp - The HIP runtime API, loaded at run time -----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "HipRuntime.h"
#include "hal/Device.h"

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

using namespace orx;

/// ROCm 6 and later, then Debian's HIP 5, then an unversioned link.
static const char *const kDefaultLibraries[] = {
    "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"};

namespace {
/// A runtime library opened once: its entry points, and the first one it
/// lacks (empty when it has them all).
struct LoadedRuntime {
  HipRuntime runtime;
  std::string missing;
};
} // namespace

/// Resolves every entry point of `r`. The three that hipInit and error
/// messages need come first, so that a runtime without devices is reported
/// as such even when it is also incomplete.
static std::string resolveAll(void *handle, HipRuntime &r) {
  std::string missing;
#define ORX_RESOLVE(name)                                                      \
  hal::resolveVendorSymbol(handle, #name, r.name, missing)
  ORX_RESOLVE(hipInit);
  ORX_RESOLVE(hipGetErrorName);
  ORX_RESOLVE(hipGetErrorString);
  ORX_RESOLVE(hipGetDeviceCount);
  ORX_RESOLVE(hipDeviceGet);
  ORX_RESOLVE(hipDeviceGetName);
  ORX_RESOLVE(hipGetDevice);
  ORX_RESOLVE(hipSetDevice);
  ORX_RESOLVE(hipDeviceSynchronize);
  ORX_RESOLVE(hipMalloc);
  ORX_RESOLVE(hipFree);
  ORX_RESOLVE(hipMemsetD8);
  ORX_RESOLVE(hipMemcpyHtoD);
  ORX_RESOLVE(hipMemcpyHtoDAsync);
  ORX_RESOLVE(hipMemcpyDtoHAsync);
  ORX_RESOLVE(hipMemcpyDtoDAsync);
  ORX_RESOLVE(hipMemcpyPeerAsync);
  ORX_RESOLVE(hipHostRegister);
  ORX_RESOLVE(hipHostUnregister);
  ORX_RESOLVE(hipStreamCreateWithFlags);
  ORX_RESOLVE(hipStreamDestroy);
  ORX_RESOLVE(hipStreamSynchronize);
  ORX_RESOLVE(hipStreamWaitEvent);
  ORX_RESOLVE(hipEventCreateWithFlags);
  ORX_RESOLVE(hipEventRecord);
  ORX_RESOLVE(hipEventSynchronize);
  ORX_RESOLVE(hipEventElapsedTime);
  ORX_RESOLVE(hipEventDestroy);
  ORX_RESOLVE(hipModuleLoadData);
  ORX_RESOLVE(hipModuleUnload);
  ORX_RESOLVE(hipModuleGetFunction);
  ORX_RESOLVE(hipModuleLaunchKernel);
#undef ORX_RESOLVE
  return missing;
}

const HipRuntime *HipRuntime::get(const std::string &requester,
                                  std::string &error) {
  // Never destroyed: sessions on other threads may still use a runtime while
  // static destructors run.
  static std::mutex *mutex = new std::mutex();
  static auto *loaded =
      new std::map<std::string, std::unique_ptr<LoadedRuntime>>();

  std::vector<std::string> candidates;
  const char *override = std::getenv("ORCHESTRA_HIP_RUNTIME");
  if (override && *override)
    candidates.push_back(override);
  else
    candidates.assign(std::begin(kDefaultLibraries),
                      std::end(kDefaultLibraries));

  std::lock_guard<std::mutex> lock(*mutex);
  LoadedRuntime *entry = nullptr;
  std::string reasons;
  for (const std::string &candidate : candidates) {
    std::unique_ptr<LoadedRuntime> &slot = (*loaded)[candidate];
    if (!slot) {
      std::string reason;
      void *handle = hal::openVendorLibrary(candidate, reason);
      if (!handle) {
        loaded->erase(candidate);
        reasons += (reasons.empty() ? "" : "; ") + candidate + ": " + reason;
        continue;
      }
      slot = std::make_unique<LoadedRuntime>();
      slot->runtime.path = candidate;
      slot->missing = resolveAll(handle, slot->runtime);
    }
    entry = slot.get();
    break;
  }
  if (!entry) {
    error = "no HIP runtime found (" + reasons + "); " + requester +
            " needs an AMD GPU and ROCm's HIP runtime";
    return nullptr;
  }

  const HipRuntime &runtime = entry->runtime;
  const std::string &path = runtime.path;
  auto missingError = [&](const std::string &symbol) {
    error = "the HIP runtime '" + path + "' does not export " + symbol + "; " +
            requester + " needs a newer ROCm";
    return nullptr;
  };
  if (!runtime.hipInit || !runtime.hipGetErrorName ||
      !runtime.hipGetErrorString)
    return missingError(entry->missing);
  auto noDevice = [&](const std::string &reason) {
    error = "no HIP device found (" + reason + "); " + requester +
            " needs an AMD GPU";
    return nullptr;
  };
  std::string reason;
  if (!runtime.check(runtime.hipInit(0), "hipInit", reason))
    return noDevice(reason);
  if (!entry->missing.empty())
    return missingError(entry->missing);
  int count = 0;
  if (!runtime.check(runtime.hipGetDeviceCount(&count), "hipGetDeviceCount",
                     reason))
    return noDevice(reason);
  if (count <= 0)
    return noDevice("the runtime '" + path + "' reports none");
  return &runtime;
}

std::string HipRuntime::describeFailure(const char *call,
                                        hipError_t result) const {
  const char *name = hipGetErrorName ? hipGetErrorName(result) : nullptr;
  const char *text = hipGetErrorString ? hipGetErrorString(result) : nullptr;
  std::string message = std::string(call) + " failed: ";
  message += name ? std::string(name) : "HIP error " + std::to_string(result);
  // The runtime's text is often its name again.
  if (text && (!name || std::string(text) != name))
    message += std::string(" (") + text + ")";
  return message;
}

bool HipRuntime::check(hipError_t result, const char *call, std::string &error,
                       const std::string &context) const {
  if (result == hipSuccess)
    return true;
  error =
      (context.empty() ? "" : context + ": ") + describeFailure(call, result);
  return false;
}
