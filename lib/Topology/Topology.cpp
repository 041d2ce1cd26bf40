//===- Topology.cpp - The machine a program is compiled for ---------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Topology/Topology.h"

#include "orchestra/Target/TargetRegistry.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <set>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#include <unistd.h>
#endif

using namespace mlir;
using namespace mlir::orchestra;
using llvm::json::Path;

/// The host template (topologies/host.json), embedded at build time.
static constexpr const char *kHostTemplate =
#include "HostTopology.inc"
    ;

//===----------------------------------------------------------------------===//
// JSON mapping
//===----------------------------------------------------------------------===//

static constexpr StringLiteral kTopologyFields[] = {"name", "devices",
                                                    "memory_spaces", "links"};
static constexpr StringLiteral kDeviceFields[] = {"name",
                                                  "arch",
                                                  "device_id",
                                                  "peak_flops",
                                                  "memory_bandwidth",
                                                  "launch_overhead",
                                                  "compute_units",
                                                  "target"};
static constexpr StringLiteral kMemorySpaceFields[] = {"name", "device", "kind",
                                                       "capacity"};
static constexpr StringLiteral kLinkFields[] = {"from", "to", "bandwidth",
                                                "latency", "bidirectional"};

/// Fails on a field of `value` (if an object) that is not in `known`: unknown
/// fields are almost always typos of optional ones, which would otherwise be
/// silently ignored.
static llvm::Error rejectUnknownFields(const llvm::json::Value &value,
                                       const Twine &where,
                                       ArrayRef<StringLiteral> known) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return llvm::Error::success(); // The mapping reports the type error.
  for (const auto &entry : *object) {
    StringRef key = entry.first;
    if (llvm::is_contained(known, key))
      continue;
    std::string expected;
    llvm::raw_string_ostream os(expected);
    llvm::interleaveComma(known, os);
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "invalid topology: " + where +
                                       ": unknown "
                                       "field '" +
                                       key + "'; expected one of: " + expected);
  }
  return llvm::Error::success();
}

/// Checks the field names of the topology and of each element of its lists.
static llvm::Error rejectUnknownTopologyFields(const llvm::json::Value &root) {
  if (llvm::Error error =
          rejectUnknownFields(root, "topology", kTopologyFields))
    return error;
  const llvm::json::Object *object = root.getAsObject();
  if (!object)
    return llvm::Error::success();
  for (auto [list, fields] :
       {std::pair<StringRef, ArrayRef<StringLiteral>>("devices", kDeviceFields),
        {"memory_spaces", kMemorySpaceFields},
        {"links", kLinkFields}}) {
    const llvm::json::Array *array = object->getArray(list);
    if (!array)
      continue;
    for (auto [index, element] : llvm::enumerate(*array))
      if (llvm::Error error = rejectUnknownFields(
              element, "topology." + list + "[" + Twine(index) + "]", fields))
        return error;
  }
  return llvm::Error::success();
}

namespace mlir::orchestra {
static bool fromJSON(const llvm::json::Value &value, TopologyDevice &device,
                     Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  std::map<std::string, double> peakFlops;
  if (!mapper || !mapper.map("name", device.name) ||
      !mapper.map("arch", device.arch) ||
      !mapper.map("device_id", device.deviceId) ||
      !mapper.map("peak_flops", peakFlops) ||
      !mapper.map("memory_bandwidth", device.memoryBandwidth) ||
      !mapper.mapOptional("launch_overhead", device.launchOverhead) ||
      !mapper.mapOptional("compute_units", device.computeUnits))
    return false;
  for (auto &[type, flops] : peakFlops)
    device.peakFlops[type] = flops;
  if (const llvm::json::Value *target = value.getAsObject()->get("target")) {
    const llvm::json::Object *object = target->getAsObject();
    if (!object) {
      path.field("target").report("expected an object of target keys");
      return false;
    }
    device.target = *object;
  }
  return true;
}

static bool fromJSON(const llvm::json::Value &value, TopologyMemorySpace &space,
                     Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  return mapper && mapper.map("name", space.name) &&
         mapper.map("device", space.device) && mapper.map("kind", space.kind) &&
         mapper.map("capacity", space.capacity);
}

static bool fromJSON(const llvm::json::Value &value, TopologyLink &link,
                     Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  return mapper && mapper.map("from", link.from) && mapper.map("to", link.to) &&
         mapper.map("bandwidth", link.bandwidth) &&
         mapper.mapOptional("latency", link.latency) &&
         mapper.mapOptional("bidirectional", link.bidirectional);
}

static bool fromJSON(const llvm::json::Value &value, Topology &topology,
                     Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  return mapper && mapper.map("name", topology.name) &&
         mapper.map("devices", topology.devices) &&
         mapper.map("memory_spaces", topology.memorySpaces) &&
         mapper.mapOptional("links", topology.links);
}
} // namespace mlir::orchestra

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

/// Numbers of a topology are finite (JSON has no infinity: a topology that
/// held one could not be written back), and these two kinds also positive,
/// or non-negative.
static bool isPositive(double value) {
  return std::isfinite(value) && value > 0;
}
static bool isNonNegative(double value) {
  return std::isfinite(value) && value >= 0;
}

namespace {
/// Collects the first semantic error, prefixed with its location.
class Validator {
public:
  Validator(const Topology &topology, const TargetRegistry &registry)
      : topology(topology), registry(registry) {}

  llvm::Error run();

private:
  llvm::Error fail(const Twine &where, const Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "topology '" + topology.name +
                                       "': " + where + ": " + message);
  }
  llvm::Error checkDevice(size_t index, const TopologyDevice &device);
  llvm::Error checkTargetKeys(const Twine &where, const TopologyDevice &device);

  const Topology &topology;
  const TargetRegistry &registry;
  // Only carries diagnostics: no thread pool needed.
  MLIRContext context{MLIRContext::Threading::DISABLED};
};
} // namespace

llvm::Error Validator::checkTargetKeys(const Twine &where,
                                       const TopologyDevice &device) {
  // Build the dictionary a task on this device would carry and let the
  // registry check it, so topologies and tasks accept exactly the same keys.
  Builder builder(&context);
  SmallVector<NamedAttribute> entries;
  entries.push_back(builder.getNamedAttr(TargetRegistry::kArchKey,
                                         builder.getStringAttr(device.arch)));
  entries.push_back(
      builder.getNamedAttr(TargetRegistry::kDeviceIdKey,
                           builder.getI64IntegerAttr(device.deviceId)));
  for (const auto &[key, value] : device.target) {
    Attribute attr;
    if (std::optional<bool> b = value.getAsBoolean())
      attr = builder.getBoolAttr(*b);
    else if (std::optional<int64_t> i = value.getAsInteger())
      attr = builder.getI64IntegerAttr(*i);
    else if (std::optional<double> d = value.getAsNumber()) {
      if (!std::isfinite(*d))
        return fail(where + ".target." + StringRef(key),
                    "must be a finite number");
      attr = builder.getF64FloatAttr(*d);
    } else if (std::optional<StringRef> s = value.getAsString())
      attr = builder.getStringAttr(*s);
    else
      return fail(where + ".target." + StringRef(key),
                  "expected a boolean, number or string");
    if (StringRef(key) == TargetRegistry::kArchKey ||
        StringRef(key) == TargetRegistry::kDeviceIdKey)
      return fail(where + ".target." + StringRef(key),
                  "set by the device itself; remove it from 'target'");
    entries.push_back(builder.getNamedAttr(StringRef(key), attr));
  }
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  if (failed(registry.verifyTarget(builder.getDictionaryAttr(entries), [&] {
        return emitError(UnknownLoc::get(&context));
      })))
    return fail(where + ".target", message);
  return llvm::Error::success();
}

llvm::Error Validator::checkDevice(size_t index, const TopologyDevice &device) {
  std::string where =
      ("devices[" + Twine(index) + "] (\"" + device.name + "\")").str();
  if (device.name.empty())
    return fail(where, "'name' must not be empty");
  std::string message;
  if (!registry.lookup(device.arch)) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    (void)registry.lookupOrError(
        device.arch, [&] { return emitError(UnknownLoc::get(&context)); });
    return fail(where + ".arch", message);
  }
  if (device.deviceId < 0)
    return fail(where + ".device_id", "must be non-negative");
  if (device.peakFlops.empty())
    return fail(where + ".peak_flops",
                "must give the peak FLOP/s of at least one element type");
  for (const auto &entry : device.peakFlops)
    if (!isPositive(entry.second))
      return fail(where + ".peak_flops." + entry.getKey(),
                  "must be a positive number of FLOP/s");
  if (!isPositive(device.memoryBandwidth))
    return fail(where + ".memory_bandwidth",
                "must be a positive number of bytes/s");
  if (!isNonNegative(device.launchOverhead))
    return fail(where + ".launch_overhead",
                "must be a non-negative number of seconds");
  if (device.computeUnits < 1)
    return fail(where + ".compute_units", "must be at least 1");
  return checkTargetKeys(where, device);
}

llvm::Error Validator::run() {
  if (topology.name.empty())
    return fail("name", "must not be empty");
  if (topology.devices.empty())
    return fail("devices", "a topology needs at least one device");

  llvm::StringSet<> deviceNames;
  std::set<std::pair<std::string, int64_t>> archIds;
  for (auto [index, device] : llvm::enumerate(topology.devices)) {
    if (llvm::Error error = checkDevice(index, device))
      return error;
    if (!deviceNames.insert(device.name).second)
      return fail("devices[" + Twine(index) + "]",
                  "duplicate device name \"" + device.name + "\"");
    if (!archIds.insert({device.arch, device.deviceId}).second)
      return fail("devices[" + Twine(index) + "]",
                  "another device is already " + device.arch +
                      " with device_id " + Twine(device.deviceId));
  }

  llvm::StringSet<> spaceNames;
  for (auto [index, space] : llvm::enumerate(topology.memorySpaces)) {
    std::string where =
        ("memory_spaces[" + Twine(index) + "] (\"" + space.name + "\")").str();
    if (space.name.empty())
      return fail(where, "'name' must not be empty");
    if (!spaceNames.insert(space.name).second)
      return fail(where, "duplicate memory space name");
    const TopologyDevice *device = topology.lookupDevice(space.device);
    if (!device)
      return fail(where + ".device",
                  "no device is named \"" + space.device + "\"");
    const TargetInfo *info = registry.lookup(device->arch);
    if (!info->lookupMemorySpace(space.kind)) {
      std::string kinds;
      llvm::raw_string_ostream os(kinds);
      llvm::interleaveComma(info->memorySpaces, os,
                            [&](const MemorySpaceKind &k) { os << k.name; });
      return fail(where + ".kind", "arch \"" + device->arch +
                                       "\" has no memory space kind \"" +
                                       space.kind + "\"; it has: " + kinds);
    }
    if (space.capacity <= 0)
      return fail(where + ".capacity", "must be a positive number of bytes");
  }
  for (const TopologyDevice &device : topology.devices)
    if (!topology.getDefaultMemorySpace(device, registry))
      return fail("devices (\"" + device.name + "\")",
                  "has no memory space of its arch's default kind \"" +
                      registry.lookup(device.arch)->defaultMemorySpace + "\"");

  std::set<std::pair<std::string, std::string>> directions;
  for (auto [index, link] : llvm::enumerate(topology.links)) {
    std::string where = ("links[" + Twine(index) + "]").str();
    for (auto [field, name] :
         {std::pair<StringRef, StringRef>("from", link.from), {"to", link.to}})
      if (!topology.lookupMemorySpace(name))
        return fail(where + "." + field,
                    "no memory space is named \"" + name + "\"");
    if (link.from == link.to)
      return fail(where, "a link must join two different memory spaces");
    if (!isPositive(link.bandwidth))
      return fail(where + ".bandwidth", "must be a positive number of bytes/s");
    if (!isNonNegative(link.latency))
      return fail(where + ".latency",
                  "must be a non-negative number of seconds");
    bool fresh = directions.insert({link.from, link.to}).second;
    if (link.bidirectional)
      fresh &= directions.insert({link.to, link.from}).second;
    if (!fresh)
      return fail(where, "a link from \"" + link.from + "\" to \"" + link.to +
                             "\" is already declared");
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Topology
//===----------------------------------------------------------------------===//

llvm::Expected<Topology> Topology::parse(StringRef json,
                                         const TargetRegistry &registry) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(json);
  if (!value)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "topology is not valid JSON: " +
                                       llvm::toString(value.takeError()));
  if (llvm::Error error = rejectUnknownTopologyFields(*value))
    return std::move(error);
  Topology topology;
  Path::Root root("topology");
  if (!fromJSON(*value, topology, root)) {
    std::string context;
    llvm::raw_string_ostream os(context);
    root.printErrorContext(*value, os);
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "invalid topology: " + llvm::toString(root.getError()) +
            "\nin this part of the topology:\n" + context);
  }
  // -0 reads back as 0 (JSON writers drop its sign): keep zeros positive so
  // that a topology prints the same after a round trip (found by the
  // topology fuzzer).
  for (TopologyDevice &device : topology.devices)
    device.launchOverhead += 0.0;
  for (TopologyLink &link : topology.links)
    link.latency += 0.0;
  if (llvm::Error error = Validator(topology, registry).run())
    return std::move(error);
  return topology;
}

llvm::Expected<Topology> Topology::load(StringRef path,
                                        const TargetRegistry &registry) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read topology file '" + path +
                                       "': " + buffer.getError().message());
  llvm::Expected<Topology> topology = parse((*buffer)->getBuffer(), registry);
  if (!topology)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " +
                                       llvm::toString(topology.takeError()));
  return topology;
}

llvm::Expected<Topology> Topology::resolve(StringRef spec,
                                           const TargetRegistry &registry) {
  if (spec == "host")
    return probeHost(registry);
  return load(spec, registry);
}

/// Returns the CPUs this process may run on.
static int64_t probeCores() {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0)
    return std::max(1, CPU_COUNT(&set));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Returns the physical memory of the machine in bytes, or 0 if unknown.
static int64_t probeMemoryBytes() {
#if defined(__linux__)
  long pages = sysconf(_SC_PHYS_PAGES);
  long pageSize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pageSize > 0)
    return static_cast<int64_t>(pages) * pageSize;
#endif
  return 0;
}

llvm::Expected<Topology> Topology::probeHost(const TargetRegistry &registry) {
#if !defined(__x86_64__)
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "probing the host is only supported on x86-64 machines; pass a "
      "topology file instead");
#endif
  llvm::Expected<Topology> topology = parse(kHostTemplate, registry);
  if (!topology)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "the embedded host template is invalid: " +
                                       llvm::toString(topology.takeError()));
  // The template holds one CPU device and its DRAM; scale what the machine
  // tells us. Throughput per core comes from the template until
  // `orchestra-calibrate` measures it.
  setComputeUnits(topology->devices.front(), probeCores());
  if (int64_t memory = probeMemoryBytes())
    topology->memorySpaces.front().capacity = memory;
  return topology;
}

llvm::json::Value Topology::toJSON() const {
  llvm::json::Array deviceArray;
  for (const TopologyDevice &device : devices) {
    llvm::json::Object flops;
    for (const auto &entry : device.peakFlops)
      flops[entry.getKey()] = entry.second;
    llvm::json::Object object{{"name", device.name},
                              {"arch", device.arch},
                              {"device_id", device.deviceId},
                              {"peak_flops", std::move(flops)},
                              {"memory_bandwidth", device.memoryBandwidth},
                              {"launch_overhead", device.launchOverhead},
                              {"compute_units", device.computeUnits}};
    if (!device.target.empty())
      object["target"] = llvm::json::Object(device.target);
    deviceArray.push_back(std::move(object));
  }
  llvm::json::Array spaceArray;
  for (const TopologyMemorySpace &space : memorySpaces)
    spaceArray.push_back(llvm::json::Object{{"name", space.name},
                                            {"device", space.device},
                                            {"kind", space.kind},
                                            {"capacity", space.capacity}});
  llvm::json::Array linkArray;
  for (const TopologyLink &link : links)
    linkArray.push_back(
        llvm::json::Object{{"from", link.from},
                           {"to", link.to},
                           {"bandwidth", link.bandwidth},
                           {"latency", link.latency},
                           {"bidirectional", link.bidirectional}});
  return llvm::json::Object{{"name", name},
                            {"devices", std::move(deviceArray)},
                            {"memory_spaces", std::move(spaceArray)},
                            {"links", std::move(linkArray)}};
}

llvm::Error Topology::writeFile(StringRef path) const {
  // writeToOutput writes a temporary file and renames it; "-" is stdout.
  return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
    os << llvm::formatv("{0:2}\n", toJSON());
    return llvm::Error::success();
  });
}

SmallVector<TopologyDevice *> Topology::selectDevices(StringRef selector) {
  SmallVector<TopologyDevice *> selected;
  for (TopologyDevice &device : devices)
    if (device.name == selector)
      return {&device};
  for (TopologyDevice &device : devices)
    if (device.arch == selector)
      selected.push_back(&device);
  return selected;
}

llvm::Error Topology::keepDevices(ArrayRef<std::string> selectors) {
  llvm::StringSet<> kept;
  for (const std::string &selector : selectors) {
    SmallVector<TopologyDevice *> selected = selectDevices(selector);
    if (selected.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "topology '" + name + "' has no device or arch '" + selector + "'");
    for (TopologyDevice *device : selected)
      kept.insert(device->name);
  }
  llvm::erase_if(devices, [&](const TopologyDevice &device) {
    return !kept.contains(device.name);
  });
  llvm::StringSet<> keptSpaces;
  llvm::erase_if(memorySpaces, [&](const TopologyMemorySpace &space) {
    if (!kept.contains(space.device))
      return true;
    keptSpaces.insert(space.name);
    return false;
  });
  llvm::erase_if(links, [&](const TopologyLink &link) {
    return !keptSpaces.contains(link.from) || !keptSpaces.contains(link.to);
  });
  return llvm::Error::success();
}

void Topology::setComputeUnits(TopologyDevice &device, int64_t units) {
  for (auto &entry : device.peakFlops)
    entry.second =
        entry.second / std::max<int64_t>(device.computeUnits, 1) * units;
  device.computeUnits = units;
}

const TopologyDevice *Topology::lookupDevice(StringRef deviceName) const {
  auto it = llvm::find_if(devices, [&](const TopologyDevice &device) {
    return device.name == deviceName;
  });
  return it == devices.end() ? nullptr : &*it;
}

const TopologyMemorySpace *
Topology::lookupMemorySpace(StringRef spaceName) const {
  auto it = llvm::find_if(memorySpaces, [&](const TopologyMemorySpace &space) {
    return space.name == spaceName;
  });
  return it == memorySpaces.end() ? nullptr : &*it;
}

const TopologyLink *Topology::lookupLink(StringRef from, StringRef to) const {
  for (const TopologyLink &link : links) {
    if (link.from == from && link.to == to)
      return &link;
    if (link.bidirectional && link.from == to && link.to == from)
      return &link;
  }
  return nullptr;
}

const TopologyMemorySpace *
Topology::getDefaultMemorySpace(const TopologyDevice &device,
                                const TargetRegistry &registry) const {
  const TargetInfo *info = registry.lookup(device.arch);
  if (!info)
    return nullptr;
  for (const TopologyMemorySpace &space : memorySpaces)
    if (space.device == device.name && space.kind == info->defaultMemorySpace)
      return &space;
  return nullptr;
}
