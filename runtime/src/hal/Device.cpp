//===- Device.cpp - The runtime's device interface ------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "hal/Device.h"

#include <algorithm>
#include <map>
#include <mutex>

using namespace orx;
using namespace orx::hal;

Event::~Event() = default;
PreparedLaunch::~PreparedLaunch() = default;
CallerState::~CallerState() = default;
Device::~Device() = default;

// Each driver folder defines `void orx::hal::register<Name>Driver()`; the
// build generates the list of the drivers it compiles.
namespace orx::hal {
#define ORCHESTRA_RUNTIME_DRIVER(Name) void register##Name##Driver();
#include "hal/Drivers.def"
} // namespace orx::hal

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, DeviceFactory> factories;
};
} // namespace

static Registry &getRegistry() {
  static Registry registry;
  return registry;
}

/// Registers the compiled-in drivers, once.
static void registerBuiltinDrivers() {
  static std::once_flag once;
  std::call_once(once, [] {
#define ORCHESTRA_RUNTIME_DRIVER(Name) register##Name##Driver();
#include "hal/Drivers.def"
  });
}

void orx::hal::registerDriver(const std::string &name, DeviceFactory factory) {
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  registry.factories[name] = factory;
}

DeviceFactory orx::hal::lookupDriver(const std::string &name) {
  registerBuiltinDrivers();
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  auto it = registry.factories.find(name);
  return it == registry.factories.end() ? nullptr : it->second;
}

std::vector<std::string> orx::hal::getDriverNames() {
  registerBuiltinDrivers();
  Registry &registry = getRegistry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  std::vector<std::string> names;
  for (const auto &entry : registry.factories)
    names.push_back(entry.first);
  return names;
}
