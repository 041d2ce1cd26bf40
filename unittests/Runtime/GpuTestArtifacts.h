//===- GpuTestArtifacts.h - Artifacts for the GPU driver tests --*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// What the tests of the GPU drivers share: an environment override for the
// vendor library, the control functions of the simulated GPU
// (fake_cuda.cpp, which the simulated HIP runtime fake_hip.cpp drives too),
// and artifacts whose GPU kernels are the simulation's, for a GPU of either
// vendor (`FakeGpu`).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_UNITTESTS_RUNTIME_GPUTESTARTIFACTS_H
#define ORCHESTRA_UNITTESTS_RUNTIME_GPUTESTARTIFACTS_H

#include "SessionHelpers.h"
#include "TestArtifacts.h"

#include "orchestra_rt/GpuBundle.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <dlfcn.h>

namespace orx::test {

/// Sets an environment variable for its lifetime, then restores it.
class EnvironmentOverride {
public:
  EnvironmentOverride(const char *variable, const char *value)
      : variable(variable) {
    if (const char *old = std::getenv(variable)) {
      previous = old;
      hadPrevious = true;
    }
    ::setenv(variable, value, 1);
  }
  ~EnvironmentOverride() {
    if (hadPrevious)
      ::setenv(variable, previous.c_str(), 1);
    else
      ::unsetenv(variable);
  }
  EnvironmentOverride(const EnvironmentOverride &) = delete;
  EnvironmentOverride &operator=(const EnvironmentOverride &) = delete;

private:
  const char *variable;
  std::string previous;
  bool hadPrevious = false;
};

/// The control functions of a simulated GPU library at `path`, which the
/// runtime loads from the same path (so both see one copy of the library).
struct FakeGpuControl {
  void (*configure)(const char *key, long long value) = nullptr;
  long long (*query)(const char *key) = nullptr;
  void *(*currentContext)() = nullptr;

  explicit FakeGpuControl(const char *path) {
    void *handle = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      return;
    configure = reinterpret_cast<decltype(configure)>(
        ::dlsym(handle, "orx_fake_cuda_configure"));
    query = reinterpret_cast<decltype(query)>(
        ::dlsym(handle, "orx_fake_cuda_query"));
    currentContext = reinterpret_cast<decltype(currentContext)>(
        ::dlsym(handle, "orx_fake_cuda_current_context"));
  }
  bool loaded() const { return configure && query && currentContext; }
};

/// How one vendor's GPU appears in artifacts.
struct FakeGpu {
  std::string arch;
  std::string driver;
  std::string chip;
  /// The images of the bundles' one module, in order of preference.
  std::vector<GpuImageDesc> images;
  /// The dynamic shared memory of the second launch of
  /// orx_kernel_scale_add: more than the simulation allows without raising
  /// the function's limit on the GPU that can (CUDA's 48 KiB).
  uint32_t largeSharedBytes = 0;
};

inline std::vector<uint8_t> bytesOf(const char *text) {
  return std::vector<uint8_t>(text, text + std::strlen(text));
}

/// A Hopper GPU: a cubin and PTX (JIT-compiled when the cubin is refused).
inline FakeGpu cudaGpu() {
  return {"nvidia_hopper",
          "cuda",
          "sm_90a",
          {{"cubin", {'F', 'A', 'K', 'E', 'C', 'U', 'B', 'I', 'N', 0}},
           {"ptx", bytesOf("//FAKEPTX main")}},
          64 * 1024};
}

/// An MI300X: one code object.
inline FakeGpu hipGpu() {
  return {"amd_cdna3",
          "hip",
          "gfx942",
          {{"hsaco", bytesOf("FAKEHSACO")}},
          32 * 1024};
}

inline uint64_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline GpuLaunchDesc gpuLaunch(const std::string &function,
                               std::vector<GpuArgDesc> args,
                               uint32_t dynamicSharedBytes = 0) {
  GpuLaunchDesc launch;
  launch.module = 0;
  launch.function = function;
  launch.block[0] = static_cast<uint32_t>(kVectorLength);
  launch.dynamicSharedBytes = dynamicSharedBytes;
  launch.args = std::move(args);
  return launch;
}

inline GpuArgDesc buffer(uint64_t index) {
  return {GpuArgKind::Buffer, index, 8};
}
inline GpuArgDesc scratch(uint64_t index) {
  return {GpuArgKind::Scratch, index, 8};
}
inline GpuArgDesc immediate(uint64_t bits, uint32_t size) {
  return {GpuArgKind::Immediate, bits, size};
}

/// The kernels of the simulated GPU's modules:
/// - orx_kernel_add: c = a + b;
/// - orx_kernel_scale_add: scratch = 2 * c, then d = scratch + k, the second
///   launch with gpu.largeSharedBytes of dynamic shared memory;
/// - orx_kernel_scale: y = 2 * x.
inline GpuBundle makeFakeBundle(const FakeGpu &gpu = cudaGpu()) {
  GpuBundle bundle;
  bundle.chip = gpu.chip;
  bundle.modules = {{"main", gpu.images}};
  GpuKernelDesc add;
  add.symbol = "orx_kernel_add";
  add.launches = {gpuLaunch("fake_add_f32", {buffer(0), buffer(1), buffer(2),
                                             immediate(kVectorLength, 4)})};
  GpuKernelDesc scaleAdd;
  scaleAdd.symbol = "orx_kernel_scale_add";
  scaleAdd.scratchBytes = {kVectorBytes};
  scaleAdd.launches = {
      gpuLaunch("fake_scale_f32",
                {buffer(0), scratch(0), immediate(floatBits(2.0f), 4),
                 immediate(kVectorLength, 8)}),
      gpuLaunch("fake_add_f32",
                {scratch(0), buffer(1), buffer(2), immediate(kVectorLength, 4)},
                gpu.largeSharedBytes)};
  GpuKernelDesc scale;
  scale.symbol = "orx_kernel_scale";
  scale.launches = {gpuLaunch("fake_scale_f32", {buffer(0), buffer(1),
                                                 immediate(floatBits(2.0f), 4),
                                                 immediate(kVectorLength, 8)})};
  bundle.kernels = {add, scaleAdd, scale};
  return bundle;
}

inline BinaryDesc bundleBinary(const GpuBundle &bundle,
                               const std::string &arch = "nvidia_hopper") {
  return {arch, kGpuBundleFormat, serializeGpuBundle(bundle), {}};
}

inline std::vector<uint8_t> floatBytes(const std::vector<float> &values) {
  const uint8_t *bytes = reinterpret_cast<const uint8_t *>(values.data());
  return std::vector<uint8_t>(bytes, bytes + values.size() * sizeof(float));
}

/// A CPU and a GPU, as orchestra-compile plans them for a CPU+GPU topology:
/// the entry's inputs a, b and output e are in host memory. The GPU copies
/// a and b in (copy stream), computes c = a + b, then d = 2 * c + k (kernel
/// stream; k is a constant in GPU memory); the CPU copies d out and computes
/// e = 2 * d. So e = 2 * (2 * (a + b) + k) with k = 100, 101, ...
inline Artifact makeCpuGpuArtifact(const FakeGpu &gpu = cudaGpu()) {
  Artifact a;
  a.producer = "runtime unit tests";
  a.topologyName = "cpu+" + gpu.chip;
  a.devices = {{"cpu0", getTestHostArch(), "cpu", 0, 1},
               {"gpu0", gpu.arch, gpu.driver, 0, 1}};
  a.memorySpaces = {{"cpu0_dram", 0, 4 * kVectorBytes},
                    {"gpu0_hbm", 1, 5 * kVectorBytes}};
  a.entryName = "cpu_gpu";
  a.inputs = {vectorDesc("a"), vectorDesc("b")};
  a.inputValues = {0, 1};
  a.outputs = {vectorDesc("e")};
  a.outputValues = {3};
  a.values = {{0, 0, kVectorBytes},                 // 0: a
              {0, kVectorBytes, kVectorBytes},      // 1: b
              {0, 2 * kVectorBytes, kVectorBytes},  // 2: d on cpu0
              {0, 3 * kVectorBytes, kVectorBytes},  // 3: e
              {1, 0, kVectorBytes},                 // 4: a on gpu0
              {1, kVectorBytes, kVectorBytes},      // 5: b on gpu0
              {1, 2 * kVectorBytes, kVectorBytes},  // 6: c
              {1, 3 * kVectorBytes, kVectorBytes},  // 7: k (constant)
              {1, 4 * kVectorBytes, kVectorBytes}}; // 8: d on gpu0
  a.constants = {{7, floatBytes(iota(100))}};
  a.binaries = {hostBinary(), bundleBinary(makeFakeBundle(gpu), gpu.arch)};
  a.kernels = {
      {"scale2", 0}, {"orx_kernel_add", 1}, {"orx_kernel_scale_add", 1}};
  a.steps = {copy(1, "a_to_gpu", 0, 4),
             copy(1, "b_to_gpu", 1, 5),
             launch(1, "add", 1, {4, 5, 6}, 2, {0, 1}),
             launch(1, "scale_add", 2, {6, 7, 8}, 2, {2}),
             copy(0, "d_to_cpu", 8, 2, {3}),
             launch(0, "scale", 0, {2, 3}, 1, {4})};
  return a;
}

/// One GPU holding the entry (a GPU-only topology): c = a + b on the GPU,
/// then a select step on the GPU's queue: r = p ? c : a, with the condition
/// p in device memory (the worker reads it back) and the copies made by the
/// GPU.
inline Artifact makeGpuSelectArtifact(const FakeGpu &gpu = cudaGpu()) {
  Artifact a;
  a.producer = "runtime unit tests";
  a.topologyName = gpu.chip;
  a.devices = {{"gpu0", gpu.arch, gpu.driver, 0, 1}};
  a.memorySpaces = {{"gpu0_hbm", 0, 5 * kVectorBytes}};
  a.entryName = "select";
  a.inputs = {{"p", DType::I1, {}}, vectorDesc("a"), vectorDesc("b")};
  a.inputValues = {0, 1, 2};
  a.outputs = {vectorDesc("r")};
  a.outputValues = {4};
  a.values = {{0, 0, 1},                            // 0: p
              {0, kVectorBytes, kVectorBytes},      // 1: a
              {0, 2 * kVectorBytes, kVectorBytes},  // 2: b
              {0, 3 * kVectorBytes, kVectorBytes},  // 3: c
              {0, 4 * kVectorBytes, kVectorBytes}}; // 4: r
  a.binaries = {bundleBinary(makeFakeBundle(gpu), gpu.arch)};
  a.kernels = {{"orx_kernel_add", 0}};
  StepDesc select;
  select.kind = StepKind::Select;
  select.device = 0;
  select.name = "commit";
  select.args = {0, 3, 1, 4};
  select.numInputs = 3;
  select.deps = {0};
  a.steps = {launch(0, "add", 0, {1, 2, 3}, 2), select};
  return a;
}

/// Runs makeGpuSelectArtifact's plan for both conditions and checks r and
/// the trace's choice.
inline void expectGpuSelects(orx_session_t *session) {
  std::vector<float> x = iota(1), y = iota(-3), sum(kVectorLength);
  for (size_t i = 0; i < kVectorLength; ++i)
    sum[i] = x[i] + y[i];
  for (uint8_t p : {1, 0}) {
    std::vector<float> r(kVectorLength);
    const void *inputs[] = {&p, x.data(), y.data()};
    size_t inputSizes[] = {1, kVectorBytes, kVectorBytes};
    void *outputs[] = {r.data()};
    size_t outputSizes[] = {kVectorBytes};
    Status status{orx_session_run(session, inputs, inputSizes, 3, outputs,
                                  outputSizes, 1)};
    ASSERT_FALSE(status) << message(status);
    EXPECT_EQ(r, p ? sum : x) << int(p);
    EXPECT_EQ(orx_session_trace_selected(session, 1), p);
  }
}

inline std::vector<float> expectedCpuGpu(const std::vector<float> &a,
                                         const std::vector<float> &b) {
  std::vector<float> e(kVectorLength);
  for (size_t i = 0; i < kVectorLength; ++i)
    e[i] = 2 * (2 * (a[i] + b[i]) + (100 + static_cast<float>(i)));
  return e;
}

/// Two GPUs: gpu0 computes c = a + b, which a copy moves to gpu1, where
/// d = 2 * c. Of one vendor by default (a peer copy; gpu1 is the driver's
/// device 1), else each its driver's device 0.
inline Artifact makeTwoGpuArtifact(const FakeGpu &gpu = cudaGpu(),
                                   const FakeGpu *other = nullptr) {
  const FakeGpu &second = other ? *other : gpu;
  uint32_t secondId = second.driver == gpu.driver ? 1 : 0;
  Artifact a;
  a.producer = "runtime unit tests";
  a.topologyName = "two-gpus";
  a.devices = {{"gpu0", gpu.arch, gpu.driver, 0, 1},
               {"gpu1", second.arch, second.driver, secondId, 1}};
  a.memorySpaces = {{"gpu0_hbm", 0, 3 * kVectorBytes},
                    {"gpu1_hbm", 1, 2 * kVectorBytes}};
  a.entryName = "two_gpus";
  a.inputs = {vectorDesc("a"), vectorDesc("b")};
  a.inputValues = {0, 1};
  a.outputs = {vectorDesc("d")};
  a.outputValues = {4};
  a.values = {{0, 0, kVectorBytes},
              {0, kVectorBytes, kVectorBytes},
              {0, 2 * kVectorBytes, kVectorBytes}, // c on gpu0
              {1, 0, kVectorBytes},                // c on gpu1
              {1, kVectorBytes, kVectorBytes}};    // d = 2 * c
  a.binaries = {bundleBinary(makeFakeBundle(gpu), gpu.arch),
                bundleBinary(makeFakeBundle(second), second.arch)};
  a.kernels = {{"orx_kernel_add", 0}, {"orx_kernel_scale", 1}};
  a.steps = {launch(0, "add", 0, {0, 1, 2}, 2), copy(1, "c_to_gpu1", 2, 3, {0}),
             launch(1, "scale", 1, {3, 4}, 1, {1})};
  return a;
}

} // namespace orx::test

#endif // ORCHESTRA_UNITTESTS_RUNTIME_GPUTESTARTIFACTS_H
