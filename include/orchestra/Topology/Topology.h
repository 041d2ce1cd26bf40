//===- Topology.h - The machine a program is compiled for -------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// A topology describes a machine: its devices (each an arch of the target
// registry with its performance figures), their memory spaces and the links
// between memory spaces. It is read from JSON (topologies/*.json; the schema is
// documented in docs/Topology.md) or probed from the running machine (`host`).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TOPOLOGY_TOPOLOGY_H
#define ORCHESTRA_TOPOLOGY_TOPOLOGY_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace mlir::orchestra {
class TargetRegistry;

/// One device of the machine.
struct TopologyDevice {
  /// Unique name within the topology, e.g. "cpu0".
  std::string name;
  /// An arch of the target registry, e.g. "x86_64".
  std::string arch;
  /// The `device_id` tasks on this device carry; unique per arch.
  int64_t deviceId = 0;
  /// Peak arithmetic throughput in FLOP/s, by element type name ("f32",
  /// "f16", "bf16", "i8", ...).
  llvm::StringMap<double> peakFlops;
  /// Bandwidth of the device to its default memory space, bytes/s.
  double memoryBandwidth = 0;
  /// Fixed cost of launching one task, seconds.
  double launchOverhead = 0;
  /// Parallel execution units the device's queue can use (CPU cores, SMs).
  int64_t computeUnits = 1;
  /// Arch-specific `target` keys given to every task placed on this device
  /// (checked against the registry's schema).
  llvm::json::Object target;
};

/// One memory space of a device.
struct TopologyMemorySpace {
  /// Unique name; the symbol of its `orchestra.memory_space`, e.g. "cpu0_dram".
  std::string name;
  /// The owning device's name.
  std::string device;
  /// A memory-space kind of the device's arch, e.g. "dram", "hbm".
  std::string kind;
  /// Capacity in bytes.
  int64_t capacity = 0;
};

/// A data path between two memory spaces.
struct TopologyLink {
  std::string from;
  std::string to;
  /// Bytes/s.
  double bandwidth = 0;
  /// Seconds per transfer, independent of size.
  double latency = 0;
  /// Whether the link also carries data from `to` to `from`.
  bool bidirectional = true;
};

/// A validated machine description.
class Topology {
public:
  std::string name;
  std::vector<TopologyDevice> devices;
  std::vector<TopologyMemorySpace> memorySpaces;
  std::vector<TopologyLink> links;

  /// Parses and validates a topology from JSON text. `registry` checks arches,
  /// memory-space kinds and device `target` keys. Errors name the JSON path
  /// (e.g. `devices[1].arch`) and what was expected.
  static llvm::Expected<Topology> parse(StringRef json,
                                        const TargetRegistry &registry);

  /// Reads and validates the topology file at `path`.
  static llvm::Expected<Topology> load(StringRef path,
                                       const TargetRegistry &registry);

  /// Resolves `spec`: "host" probes the running machine; any other value is
  /// the path of a JSON file.
  static llvm::Expected<Topology> resolve(StringRef spec,
                                          const TargetRegistry &registry);

  /// Describes the running machine: the embedded host template with the
  /// core count, memory capacity and vector width of this machine.
  static llvm::Expected<Topology> probeHost(const TargetRegistry &registry);

  /// Returns the topology as JSON in the schema `parse` accepts.
  llvm::json::Value toJSON() const;
  /// Writes toJSON() to `path` ("-": standard output), indented; the file
  /// appears whole or not at all.
  llvm::Error writeFile(StringRef path) const;

  // Editing, for tools that derive a topology from another (orchestra-topology,
  // orchestra-tune). An edited topology is checked again with `parse`.

  /// The devices `selector` names: the device of that name, else every
  /// device of that arch.
  SmallVector<TopologyDevice *> selectDevices(StringRef selector);
  /// Keeps only the devices `selectors` name (in the topology's order), their
  /// memory spaces and the links between those spaces. Fails on a selector
  /// that names no device.
  llvm::Error keepDevices(ArrayRef<std::string> selectors);
  /// Gives `device` `units` compute units, keeping its peak throughput per
  /// unit.
  static void setComputeUnits(TopologyDevice &device, int64_t units);

  const TopologyDevice *lookupDevice(StringRef name) const;
  const TopologyMemorySpace *lookupMemorySpace(StringRef name) const;
  /// Returns the link that carries data from `from` to `to`, or null.
  const TopologyLink *lookupLink(StringRef from, StringRef to) const;
  /// Returns the memory space of `device` whose kind is its arch's default.
  const TopologyMemorySpace *
  getDefaultMemorySpace(const TopologyDevice &device,
                        const TargetRegistry &registry) const;
};

} // namespace mlir::orchestra

#endif // ORCHESTRA_TOPOLOGY_TOPOLOGY_H
