//===- TestArtifacts.h - Artifacts for the runtime unit tests ---*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Small artifacts built in memory. Their kernels come from kernels.c, built
// into ORX_TEST_KERNELS_PATH.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_UNITTESTS_RUNTIME_TESTARTIFACTS_H
#define ORCHESTRA_UNITTESTS_RUNTIME_TESTARTIFACTS_H

#include "orchestra_rt/Artifact.h"

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace orx::test {

/// Floats per vector in kernels.c.
constexpr size_t kVectorLength = 16;
constexpr uint64_t kVectorBytes = kVectorLength * sizeof(float);

/// The arch of the machine the tests run on, as the runtime spells it.
inline const char *getTestHostArch() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "unknown";
#endif
}

/// An arch that is not the host's.
inline const char *getOtherArch() {
  return std::string(getTestHostArch()) == "aarch64" ? "x86_64" : "aarch64";
}

/// The bytes of the kernels.c shared object.
inline std::vector<uint8_t> readTestKernels() {
  std::ifstream file(ORX_TEST_KERNELS_PATH, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file),
                              std::istreambuf_iterator<char>());
}

inline TensorDesc vectorDesc(const std::string &name) {
  return {name, DType::F32, {static_cast<int64_t>(kVectorLength)}};
}

inline BinaryDesc hostBinary() {
  return {getTestHostArch(), "elf-shared-object", readTestKernels(), {}};
}

inline StepDesc launch(uint32_t device, const std::string &name,
                       uint32_t kernel, std::vector<uint32_t> args,
                       uint32_t numInputs, std::vector<uint32_t> deps = {}) {
  StepDesc step;
  step.kind = StepKind::Launch;
  step.device = device;
  step.name = name;
  step.kernel = kernel;
  step.args = std::move(args);
  step.numInputs = numInputs;
  step.deps = std::move(deps);
  return step;
}

inline StepDesc copy(uint32_t device, const std::string &name, uint32_t source,
                     uint32_t destination, std::vector<uint32_t> deps = {}) {
  StepDesc step;
  step.kind = StepKind::Copy;
  step.device = device;
  step.name = name;
  step.args = {source, destination};
  step.deps = std::move(deps);
  return step;
}

/// One device: c = add_f32(a, b).
inline Artifact makeAddArtifact() {
  Artifact a;
  a.producer = "runtime unit tests";
  a.topologyName = "host";
  a.devices = {{"cpu0", getTestHostArch(), "cpu", 0, 1}};
  a.memorySpaces = {{"host_dram", 0, 3 * kVectorBytes}};
  a.entryName = "add";
  a.inputs = {vectorDesc("a"), vectorDesc("b")};
  a.inputValues = {0, 1};
  a.outputs = {vectorDesc("c")};
  a.outputValues = {2};
  a.values = {{0, 0, kVectorBytes},
              {0, kVectorBytes, kVectorBytes},
              {0, 2 * kVectorBytes, kVectorBytes}};
  a.binaries = {hostBinary()};
  a.kernels = {{"add_f32", 0}};
  a.steps = {launch(0, "add", 0, {0, 1, 2}, 2)};
  a.steps[0].predictedStart = 0;
  a.steps[0].predictedFinish = 1e-6;
  return a;
}

/// Two devices with an arena each: on cpu0 c = a + b where b is a constant
/// (1, 2, 3, ...), then c is copied to cpu1, which computes d = 2 * c.
/// The size program of dim `dim` alone.
inline SizeExpr dimSize(int64_t dim) {
  return {{static_cast<int64_t>(SizeOp::Dim), dim}};
}

/// y = 2 * x for x of dynamic length n in 1..16 (dim 0): the buffers are
/// held at 16 floats, the kernel gets n.
inline Artifact makeDynamicArtifact() {
  Artifact a;
  a.producer = "runtime unit tests";
  a.topologyName = "host";
  a.devices = {{"cpu0", getTestHostArch(), "cpu", 0, 1}};
  a.memorySpaces = {{"host_dram", 0, 2 * kVectorBytes}};
  a.entryName = "scale";
  a.dims = {{"n", 1, static_cast<int64_t>(kVectorLength)}};
  a.inputs = {{"x", DType::F32, {-1}, {dimSize(0)}}};
  a.inputValues = {0};
  a.outputs = {{"y", DType::F32, {-1}, {dimSize(0)}}};
  a.outputValues = {1};
  a.values = {{0, 0, kVectorBytes}, {0, kVectorBytes, kVectorBytes}};
  a.binaries = {hostBinary()};
  a.kernels = {{"scale2_n", 0}};
  a.steps = {launch(0, "scale", 0, {0, 1}, 1)};
  a.steps[0].sizes = {dimSize(0)};
  return a;
}

inline Artifact makeTwoDeviceArtifact() {
  Artifact a;
  a.producer = "runtime unit tests";
  a.topologyName = "two-cpu";
  a.devices = {{"cpu0", getTestHostArch(), "cpu", 0, 1},
               {"cpu1", getTestHostArch(), "cpu", 1, 1}};
  a.memorySpaces = {{"cpu0_dram", 0, 3 * kVectorBytes},
                    {"cpu1_dram", 1, 2 * kVectorBytes}};
  a.entryName = "two_device";
  a.inputs = {vectorDesc("a")};
  a.inputValues = {0};
  a.outputs = {vectorDesc("d")};
  a.outputValues = {4};
  a.values = {{0, 0, kVectorBytes},                // a
              {0, kVectorBytes, kVectorBytes},     // b (constant)
              {0, 2 * kVectorBytes, kVectorBytes}, // c on cpu0
              {1, 0, kVectorBytes},                // c on cpu1
              {1, kVectorBytes, kVectorBytes}};    // d
  std::vector<float> b(kVectorLength);
  for (size_t i = 0; i < kVectorLength; ++i)
    b[i] = static_cast<float>(i + 1);
  const uint8_t *bBytes = reinterpret_cast<const uint8_t *>(b.data());
  a.constants = {{1, std::vector<uint8_t>(bBytes, bBytes + kVectorBytes)}};
  a.binaries = {hostBinary()};
  a.kernels = {{"add_f32", 0}, {"scale2", 0}};
  a.steps = {launch(0, "add", 0, {0, 1, 2}, 2), copy(0, "c_to_cpu1", 2, 3, {0}),
             launch(1, "scale", 1, {3, 4}, 1, {1})};
  return a;
}

/// Two devices, each running sleep_copy (50 ms) with no dependency between
/// them: x0 -> y0 on cpu0, x1 -> y1 on cpu1.
inline Artifact makeConcurrentArtifact() {
  Artifact a = makeTwoDeviceArtifact();
  a.entryName = "concurrent";
  a.memorySpaces = {{"cpu0_dram", 0, 2 * kVectorBytes},
                    {"cpu1_dram", 1, 2 * kVectorBytes}};
  a.inputs = {vectorDesc("x0"), vectorDesc("x1")};
  a.inputValues = {0, 2};
  a.outputs = {vectorDesc("y0"), vectorDesc("y1")};
  a.outputValues = {1, 3};
  a.values = {{0, 0, kVectorBytes},
              {0, kVectorBytes, kVectorBytes},
              {1, 0, kVectorBytes},
              {1, kVectorBytes, kVectorBytes}};
  a.constants.clear();
  a.kernels = {{"sleep_copy", 0}};
  a.steps = {launch(0, "sleep0", 0, {0, 1}, 1),
             launch(1, "sleep1", 0, {2, 3}, 1)};
  return a;
}

/// No kernels: the input is copied from cpu0 to cpu1 and back; a constant
/// i32[4] is a second output.
inline Artifact makeCopyArtifact() {
  Artifact a;
  a.producer = "runtime unit tests";
  a.topologyName = "two-cpu";
  a.devices = {{"cpu0", getTestHostArch(), "cpu", 0, 1},
               {"cpu1", getTestHostArch(), "cpu", 1, 1}};
  a.memorySpaces = {{"cpu0_dram", 0, 48}, {"cpu1_dram", 1, 40}};
  a.entryName = "copy";
  a.inputs = {{"x", DType::F32, {2, 3}}};
  a.inputValues = {0};
  a.outputs = {{"y", DType::F32, {2, 3}}, {"k", DType::I32, {4}}};
  a.outputValues = {2, 3};
  a.values = {{0, 0, 24}, {1, 0, 24}, {0, 24, 24}, {1, 24, 16}};
  std::vector<int32_t> k = {1, 2, 3, 4};
  const uint8_t *kBytes = reinterpret_cast<const uint8_t *>(k.data());
  a.constants = {{3, std::vector<uint8_t>(kBytes, kBytes + 16)}};
  a.steps = {copy(0, "to_cpu1", 0, 1), copy(1, "to_cpu0", 1, 2, {0})};
  a.steps[0].predictedStart = 0;
  a.steps[0].predictedFinish = 2e-6;
  a.steps[1].predictedStart = 2e-6;
  a.steps[1].predictedFinish = 4e-6;
  return a;
}

/// Two host devices: r, k = c ? (a, 7s) : (b copied to cpu1, ks), the
/// select step on cpu0 reading the false values from cpu1's memory.
inline Artifact makeSelectArtifact() {
  Artifact a;
  a.producer = "runtime unit tests";
  a.topologyName = "two-cpu";
  a.devices = {{"cpu0", getTestHostArch(), "cpu", 0, 1},
               {"cpu1", getTestHostArch(), "cpu", 1, 1}};
  a.memorySpaces = {{"cpu0_dram", 0, 96}, {"cpu1_dram", 1, 32}};
  a.entryName = "select";
  a.inputs = {
      {"c", DType::I1, {}}, {"a", DType::F32, {4}}, {"b", DType::F32, {4}}};
  a.inputValues = {0, 1, 2};
  a.outputs = {{"r", DType::F32, {4}}, {"k", DType::I32, {4}}};
  a.outputValues = {4, 7};
  // 0 c, 1 a, 2 b, 3 b on cpu1, 4 r, 5 the 7s, 6 the ks on cpu1, 7 k.
  a.values = {{0, 0, 1},   {0, 16, 16}, {0, 32, 16}, {1, 0, 16},
              {0, 48, 16}, {0, 64, 16}, {1, 16, 16}, {0, 80, 16}};
  auto bytesOf = [](std::vector<int32_t> v) {
    const uint8_t *bytes = reinterpret_cast<const uint8_t *>(v.data());
    return std::vector<uint8_t>(bytes, bytes + 4 * v.size());
  };
  a.constants = {{5, bytesOf({7, 7, 7, 7})}, {6, bytesOf({1, 2, 3, 4})}};
  StepDesc select;
  select.kind = StepKind::Select;
  select.device = 0;
  select.name = "commit";
  select.args = {0, 1, 5, 3, 6, 4, 7};
  select.numInputs = 5;
  select.deps = {0};
  a.steps = {copy(1, "b_to_cpu1", 2, 3), select};
  return a;
}

} // namespace orx::test

#endif // ORCHESTRA_UNITTESTS_RUNTIME_TESTARTIFACTS_H
