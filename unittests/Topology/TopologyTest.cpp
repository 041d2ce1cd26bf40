//===- TopologyTest.cpp - Tests of topology loading and validation --------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Topology/Topology.h"

#include "orchestra/Target/TargetRegistry.h"

#include "llvm/ADT/STLExtras.h"

#include "gtest/gtest.h"

#include <cmath>
#include <string>
#include <vector>

using namespace mlir::orchestra;

namespace {

/// A valid two-device topology; tests replace one fragment to break it.
constexpr const char *kValid = R"json({
  "name": "t",
  "devices": [
    {"name": "cpu0", "arch": "x86_64", "device_id": 0,
     "peak_flops": {"f32": 1e11}, "memory_bandwidth": 2e10,
     "launch_overhead": 1e-6, "compute_units": 2, "target": {"num_threads": 2}},
    {"name": "gpu0", "arch": "nvidia_hopper", "device_id": 0,
     "peak_flops": {"f16": 9.9e14, "f32": 6.7e13}, "memory_bandwidth": 3.35e12}
  ],
  "memory_spaces": [
    {"name": "host_dram", "device": "cpu0", "kind": "dram", "capacity": 1024},
    {"name": "gpu0_hbm", "device": "gpu0", "kind": "hbm", "capacity": 2048}
  ],
  "links": [
    {"from": "host_dram", "to": "gpu0_hbm", "bandwidth": 5.5e10, "latency": 1e-5}
  ]
})json";

/// Returns `kValid` with `from` replaced by `to` (which must occur once).
std::string replace(std::string from, std::string to) {
  std::string text = kValid;
  size_t pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos)
    text.replace(pos, from.size(), to);
  return text;
}

/// Parses `text` and returns the error message, or "" if it is valid.
std::string errorOf(const std::string &text) {
  llvm::Expected<Topology> topology =
      Topology::parse(text, getTargetRegistry());
  if (topology)
    return "";
  return llvm::toString(topology.takeError());
}

TEST(TopologyTest, ParsesAValidTopology) {
  llvm::Expected<Topology> topology =
      Topology::parse(kValid, getTargetRegistry());
  ASSERT_TRUE(bool(topology)) << llvm::toString(topology.takeError());
  EXPECT_EQ(topology->name, "t");
  ASSERT_EQ(topology->devices.size(), 2u);
  const TopologyDevice *gpu = topology->lookupDevice("gpu0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->peakFlops.lookup("f16"), 9.9e14);
  EXPECT_EQ(gpu->computeUnits, 1);   // default
  EXPECT_EQ(gpu->launchOverhead, 0); // default
  const TopologyMemorySpace *hbm =
      topology->getDefaultMemorySpace(*gpu, getTargetRegistry());
  ASSERT_NE(hbm, nullptr);
  EXPECT_EQ(hbm->name, "gpu0_hbm");
  // Links are bidirectional unless stated.
  EXPECT_NE(topology->lookupLink("gpu0_hbm", "host_dram"), nullptr);
  EXPECT_EQ(topology->lookupLink("host_dram", "host_dram"), nullptr);

  // toJSON round-trips through parse.
  std::string json;
  llvm::raw_string_ostream os(json);
  os << topology->toJSON();
  llvm::Expected<Topology> again = Topology::parse(json, getTargetRegistry());
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  EXPECT_EQ(again->devices[0].target.getInteger("num_threads"), 2);
}

TEST(TopologyTest, ReportsMalformedJSON) {
  EXPECT_NE(errorOf("{\"name\": ").find("topology is not valid JSON"),
            std::string::npos);
  EXPECT_NE(errorOf("[]").find("expected object"), std::string::npos);
}

TEST(TopologyTest, ReportsStructuralErrorsWithTheirPath) {
  std::string message = errorOf(replace("\"arch\": \"x86_64\"", "\"arch\": 3"));
  EXPECT_NE(message.find("topology.devices[0].arch"), std::string::npos)
      << message;
  message =
      errorOf(replace("\"memory_bandwidth\": 3.35e12", "\"bandwidth\": 1"));
  EXPECT_NE(message.find("unknown field"), std::string::npos) << message;
  EXPECT_NE(message.find("topology.devices[1]: unknown field 'bandwidth'"),
            std::string::npos)
      << message;
  message = errorOf(replace("\"capacity\": 2048", "\"capacity\": \"2GiB\""));
  EXPECT_NE(message.find("memory_spaces[1].capacity"), std::string::npos)
      << message;
}

TEST(TopologyTest, ReportsSemanticErrors) {
  auto expectError = [](const std::string &text, const std::string &needle) {
    std::string message = errorOf(text);
    EXPECT_NE(message.find(needle), std::string::npos)
        << "expected '" << needle << "' in: " << message;
  };
  expectError(
      replace("\"arch\": \"nvidia_hopper\"", "\"arch\": \"nvidia_hoper\""),
      "devices[1] (\"gpu0\").arch: unknown arch \"nvidia_hoper\"; did "
      "you mean \"nvidia_hopper\"?");
  expectError(replace("\"num_threads\": 2", "\"num_thread\": 2"),
              "unknown target key 'num_thread'");
  expectError(replace("\"num_threads\": 2", "\"num_threads\": true"),
              "target key 'num_threads' of arch \"x86_64\" must be a integer");
  expectError(replace("\"f32\": 1e11", "\"f32\": 0"),
              "peak_flops.f32: must be a "
              "positive number");
  expectError(replace("\"memory_bandwidth\": 2e10", "\"memory_bandwidth\": -1"),
              "memory_bandwidth: must be a positive number of bytes/s");
  expectError(replace("\"compute_units\": 2", "\"compute_units\": 0"),
              "compute_units: must be at least 1");
  // A negative zero is kept positive: JSON writers print it as -0, which
  // reads back as 0, so the topology would not print the same twice (found
  // by the topology fuzzer).
  {
    llvm::Expected<Topology> topology = Topology::parse(
        replace("\"latency\": 1e-5", "\"latency\": -0.0"), getTargetRegistry());
    ASSERT_TRUE(bool(topology)) << llvm::toString(topology.takeError());
    EXPECT_FALSE(std::signbit(topology->links[0].latency));
  }
  // Numbers past the double range read as infinity, which JSON cannot
  // write back (found by the topology fuzzer).
  expectError(replace("\"bandwidth\": 5.5e10", "\"bandwidth\": 51e308"),
              "links[0].bandwidth: must be a positive number of bytes/s");
  expectError(replace("\"latency\": 1e-5", "\"latency\": 1e999"),
              "links[0].latency: must be a non-negative number of seconds");
  expectError(replace("\"f32\": 1e11", "\"f32\": 2e308"),
              "peak_flops.f32: must be a positive number");
  expectError(
      replace("\"launch_overhead\": 1e-6", "\"launch_overhead\": 9e999"),
      "launch_overhead: must be a non-negative number of seconds");
  expectError(
      replace("\"name\": \"gpu0\", \"arch\"", "\"name\": \"cpu0\", \"arch\""),
      "duplicate device name \"cpu0\"");
  expectError(replace("\"kind\": \"hbm\"", "\"kind\": \"lds\""),
              "arch \"nvidia_hopper\" has no memory space kind \"lds\"; it "
              "has: hbm, shared");
  expectError(replace("\"device\": \"gpu0\"", "\"device\": \"gpu9\""),
              "no device is named \"gpu9\"");
  expectError(replace("\"capacity\": 1024", "\"capacity\": 0"),
              "capacity: must be a positive number of bytes");
  expectError(replace("\"to\": \"gpu0_hbm\"", "\"to\": \"gpu1_hbm\""),
              "links[0].to: no memory space is named \"gpu1_hbm\"");
  expectError(replace("\"to\": \"gpu0_hbm\"", "\"to\": \"host_dram\""),
              "a link must join two different memory spaces");
  expectError(replace("\"kind\": \"hbm\"", "\"kind\": \"shared\""),
              "has no memory space of its arch's default kind \"hbm\"");
  expectError(replace("\"devices\": [", "\"devices\": [], \"old\": ["),
              "unknown field");
}

TEST(TopologyTest, ShippedTopologiesAreValid) {
  for (const char *name : {"host.json", "two-cpu.json", "cpu+hopper.json",
                           "dgx-h100.json", "mixed-vendor.json"}) {
    std::string path = std::string(ORCHESTRA_TOPOLOGIES_DIR) + "/" + name;
    llvm::Expected<Topology> topology =
        Topology::load(path, getTargetRegistry());
    EXPECT_TRUE(bool(topology))
        << name << ": " << llvm::toString(topology.takeError());
  }
  llvm::Expected<Topology> twoCpu =
      Topology::load(std::string(ORCHESTRA_TOPOLOGIES_DIR) + "/two-cpu.json",
                     getTargetRegistry());
  ASSERT_TRUE(bool(twoCpu));
  EXPECT_EQ(twoCpu->devices.size(), 2u);
  EXPECT_NE(twoCpu->lookupLink("cpu1_dram", "cpu0_dram"), nullptr);
}

/// Loads `topologies/<name>`.
llvm::Expected<Topology> loadShipped(const std::string &name) {
  return Topology::load(std::string(ORCHESTRA_TOPOLOGIES_DIR) + "/" + name,
                        getTargetRegistry());
}

/// Returns the archs of `topology`'s devices in declaration order.
std::vector<std::string> getArchs(const Topology &topology) {
  std::vector<std::string> archs;
  for (const TopologyDevice &device : topology.devices)
    archs.push_back(device.arch);
  return archs;
}

/// Returns the default memory space of the device named `name`.
std::string getSpaceOf(const Topology &topology, const std::string &name) {
  const TopologyDevice *device = topology.lookupDevice(name);
  if (!device)
    return "";
  const TopologyMemorySpace *space =
      topology.getDefaultMemorySpace(*device, getTargetRegistry());
  return space ? space->name : "";
}

TEST(TopologyTest, ShippedAcceleratorTopologiesDescribeTheirMachines) {
  struct Machine {
    const char *file;
    std::vector<std::string> archs;
  };
  std::vector<std::string> dgx(9, "nvidia_hopper");
  dgx.front() = "x86_64";
  for (const Machine &machine :
       {Machine{"cpu+hopper.json", {"x86_64", "nvidia_hopper"}},
        Machine{"dgx-h100.json", dgx},
        Machine{"mixed-vendor.json",
                {"x86_64", "nvidia_hopper", "amd_cdna3", "google_tpu_v5e",
                 "aws_trainium2"}}}) {
    SCOPED_TRACE(machine.file);
    llvm::Expected<Topology> topology = loadShipped(machine.file);
    ASSERT_TRUE(bool(topology)) << llvm::toString(topology.takeError());
    EXPECT_EQ(getArchs(*topology), machine.archs);
    // Every device gives at least its f32 throughput.
    for (const TopologyDevice &device : topology->devices)
      EXPECT_GT(device.peakFlops.lookup("f32"), 0) << device.name;
    // Every accelerator reaches the host's DRAM, both ways.
    std::string dram = getSpaceOf(*topology, topology->devices.front().name);
    ASSERT_EQ(dram, "cpu0_dram");
    for (const TopologyDevice &device : llvm::drop_begin(topology->devices)) {
      std::string space = getSpaceOf(*topology, device.name);
      ASSERT_FALSE(space.empty()) << device.name;
      EXPECT_NE(topology->lookupLink(space, dram), nullptr) << device.name;
      EXPECT_NE(topology->lookupLink(dram, space), nullptr) << device.name;
    }
  }
}

TEST(TopologyTest, DGXH100LinksEveryGPUPairOverNVLink) {
  llvm::Expected<Topology> topology = loadShipped("dgx-h100.json");
  ASSERT_TRUE(bool(topology)) << llvm::toString(topology.takeError());
  // 8 host links and one link per GPU pair (8 choose 2).
  EXPECT_EQ(topology->links.size(), 8u + 28u);
  for (int64_t i = 0; i < 8; ++i) {
    EXPECT_EQ(topology->devices[i + 1].deviceId, i);
    for (int64_t j = 0; j < 8; ++j) {
      if (i == j)
        continue;
      std::string from = "gpu" + std::to_string(i) + "_hbm";
      std::string to = "gpu" + std::to_string(j) + "_hbm";
      const TopologyLink *link = topology->lookupLink(from, to);
      ASSERT_NE(link, nullptr) << from << " -> " << to;
      EXPECT_GT(link->bandwidth,
                topology->lookupLink(from, "cpu0_dram")->bandwidth);
    }
  }
}

TEST(TopologyTest, MixedVendorAcceleratorsOnlyReachTheHost) {
  llvm::Expected<Topology> topology = loadShipped("mixed-vendor.json");
  ASSERT_TRUE(bool(topology)) << llvm::toString(topology.takeError());
  for (const TopologyLink &link : topology->links)
    EXPECT_TRUE(link.from == "cpu0_dram" || link.to == "cpu0_dram")
        << link.from << " -> " << link.to;
}

TEST(TopologyTest, MissingFileIsAClearError) {
  llvm::Expected<Topology> topology =
      Topology::resolve("/nonexistent/topo.json", getTargetRegistry());
  ASSERT_FALSE(bool(topology));
  std::string message = llvm::toString(topology.takeError());
  EXPECT_NE(message.find("cannot read topology file '/nonexistent/topo.json'"),
            std::string::npos)
      << message;
}

TEST(TopologyTest, ProbesTheHost) {
  llvm::Expected<Topology> host =
      Topology::resolve("host", getTargetRegistry());
  ASSERT_TRUE(bool(host)) << llvm::toString(host.takeError());
  ASSERT_EQ(host->devices.size(), 1u);
  const TopologyDevice &cpu = host->devices.front();
  EXPECT_EQ(cpu.arch, "x86_64");
  EXPECT_GE(cpu.computeUnits, 1);
  // Peak throughput scales with the probed core count.
  EXPECT_DOUBLE_EQ(cpu.peakFlops.lookup("f32"), 1.0e11 * cpu.computeUnits);
  EXPECT_GT(host->memorySpaces.front().capacity, 0);
}

} // namespace
