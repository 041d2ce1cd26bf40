//===- TopologyCheck.cpp - Was an artifact built for a topology? ----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "TopologyCheck.h"

#include "Json.h"

#include <utility>
#include <vector>

using namespace orx;

namespace {
/// A device as the check compares and prints it: name and arch.
using DeviceKey = std::pair<std::string, std::string>;
} // namespace

/// "cpu0:ARCH0, cpu1:ARCH1": each device as name:arch.
static std::string joinDevices(const std::vector<DeviceKey> &devices) {
  std::string result;
  for (const DeviceKey &device : devices)
    result += (result.empty() ? "" : ", ") + device.first + ":" + device.second;
  return result;
}

bool orx::checkTopology(const Artifact &artifact,
                        const std::string &topologyJson, std::string &error) {
  json::Value root;
  if (!json::parse(topologyJson, root, error))
    return false;
  const json::Value *name = root.get("name");
  const json::Value *devices = root.get("devices");
  if (root.kind != json::Value::Kind::Object || !name ||
      name->kind != json::Value::Kind::String || !devices ||
      devices->kind != json::Value::Kind::Array) {
    error = "not a topology: expected an object with a string 'name' and an "
            "array 'devices'";
    return false;
  }
  std::vector<DeviceKey> expected, built;
  for (size_t i = 0; i < devices->elements.size(); ++i) {
    const json::Value &device = devices->elements[i];
    const json::Value *deviceName = device.get("name");
    const json::Value *arch = device.get("arch");
    if (!deviceName || deviceName->kind != json::Value::Kind::String || !arch ||
        arch->kind != json::Value::Kind::String) {
      error = "not a topology: devices[" + std::to_string(i) +
              "] has no string 'name' and 'arch'";
      return false;
    }
    expected.emplace_back(deviceName->string, arch->string);
  }
  for (const DeviceDesc &device : artifact.devices)
    built.emplace_back(device.name, device.arch);
  if (name->string == artifact.topologyName && expected == built)
    return true;
  error = "the artifact was built for topology '" + artifact.topologyName +
          "' (devices " + joinDevices(built) + "), not '" + name->string +
          "' (" + joinDevices(expected) + ")";
  return false;
}
