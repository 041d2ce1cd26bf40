//===- TopologyTest.cpp - Tests of topology loading and validation --------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Topology/Topology.h"

#include "orchestra/Target/TargetRegistry.h"

#include "gtest/gtest.h"

#include <string>

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
  for (const char *name : {"host.json", "two-cpu.json"}) {
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
