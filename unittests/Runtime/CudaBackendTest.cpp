//===- CudaBackendTest.cpp - Tests of the runtime's CUDA backend ----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// These run without a GPU: ORCHESTRA_CUDA_DRIVER points the runtime at a
// missing library, at drivers that fail early (fake_cuda_minimal.c) or at a
// simulated driver (fake_cuda.cpp) whose streams run their work only when
// waited for, so that the tests see missing synchronisation.
//
//===----------------------------------------------------------------------===//

#include "GpuTestArtifacts.h"
#include "orchestra_rt/orchestra_rt.hpp"

#include "gtest/gtest.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <dlfcn.h>

using namespace orx;
using namespace orx::test;

namespace {

constexpr const char *kDriverVariable = "ORCHESTRA_CUDA_DRIVER";

/// Points the runtime at another CUDA driver library for its lifetime.
struct DriverOverride : EnvironmentOverride {
  explicit DriverOverride(const char *path)
      : EnvironmentOverride(kDriverVariable, path) {}
};

/// The control functions of the simulated driver.
struct FakeCuda {
  static FakeGpuControl &get() {
    static FakeGpuControl fake(ORX_FAKE_CUDA_PATH);
    return fake;
  }
};

//===----------------------------------------------------------------------===//
// Without a usable driver
//===----------------------------------------------------------------------===//

TEST(CudaDriverTest, NoDriverLibrary) {
  DriverOverride driver("/nonexistent/libcuda.so.1");
  std::string error = sessionError(makeCpuGpuArtifact());
  EXPECT_EQ(error.rfind("no CUDA driver found (/nonexistent/libcuda.so.1: ", 0),
            0u)
      << error;
  EXPECT_NE(error.find("); device 'gpu0' (nvidia_hopper) needs an NVIDIA GPU "
                       "and its driver"),
            std::string::npos)
      << error;
}

TEST(CudaDriverTest, CpuOnlyArtifactsNeedNoDriver) {
  DriverOverride driver("/nonexistent/libcuda.so.1");
  ArtifactPtr artifact = load(makeTwoDeviceArtifact());
  orx_session_t *raw = nullptr;
  Status status{orx_session_create(artifact.get(), &raw)};
  SessionPtr session(raw);
  EXPECT_FALSE(status) << message(status);
}

TEST(CudaDriverTest, IdleGpusNeedNoDriver) {
  // A GPU in the topology that the plan leaves idle: no step on it, an
  // empty arena.
  Artifact a = makeCpuGpuArtifact();
  a.memorySpaces[1].arenaBytes = 0;
  a.values.resize(4);
  a.constants.clear();
  a.binaries.resize(1);
  a.kernels = {{"scale2", 0}};
  a.steps = {launch(0, "scale", 0, {0, 3}, 1, {})};
  DriverOverride driver("/nonexistent/libcuda.so.1");
  ArtifactPtr artifact = load(a);
  orx_session_t *raw = nullptr;
  Status status{orx_session_create(artifact.get(), &raw)};
  SessionPtr session(raw);
  EXPECT_FALSE(status) << message(status);
}

TEST(CudaDriverTest, NoDevice) {
  DriverOverride driver(ORX_FAKE_CUDA_NODEVICE_PATH);
  EXPECT_EQ(sessionError(makeCpuGpuArtifact()),
            "no CUDA device found (cuInit failed: CUDA_ERROR_NO_DEVICE (no "
            "CUDA-capable device is detected)); device 'gpu0' (nvidia_hopper) "
            "needs an NVIDIA GPU");
}

TEST(CudaDriverTest, MissingEntryPoint) {
  DriverOverride driver(ORX_FAKE_CUDA_INCOMPLETE_PATH);
  EXPECT_EQ(sessionError(makeCpuGpuArtifact()),
            std::string("the CUDA driver '") + ORX_FAKE_CUDA_INCOMPLETE_PATH +
                "' does not export cuDeviceGetCount; device 'gpu0' "
                "(nvidia_hopper) needs a newer NVIDIA driver");
}

//===----------------------------------------------------------------------===//
// With the simulated driver
//===----------------------------------------------------------------------===//

class CudaBackendTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(fake.loaded())
        << "cannot load " << ORX_FAKE_CUDA_PATH << ": " << ::dlerror();
    fake.configure("reset", 0);
  }

  /// Checks that every object the runtime made in the driver is gone.
  void expectAllReleased() {
    for (const char *object :
         {"allocations", "pinned", "streams", "events", "modules", "retains"})
      EXPECT_EQ(fake.query(object), 0) << object;
  }

  FakeGpuControl &fake = FakeCuda::get();
  DriverOverride driver{ORX_FAKE_CUDA_PATH};
};

TEST_F(CudaBackendTest, CpuAndGpu) {
  {
    SessionPtr session = createSession(makeCpuGpuArtifact());
    ASSERT_TRUE(session);
    // Two streams' worth of work, two step kernels, three launches; per GPU
    // step, the event streams wait for and two timing events.
    EXPECT_EQ(fake.query("streams"), 3);
    EXPECT_EQ(fake.query("events"), 12);
    EXPECT_EQ(fake.query("modules"), 1);
    EXPECT_EQ(fake.query("pinned"), 1);
    EXPECT_EQ(fake.query("set_attribute"), 1);
    EXPECT_EQ(fake.query("retains"), 1);
    EXPECT_EQ(fake.currentContext(), nullptr)
        << "session creation changed the caller's context";

    for (float start : {0.0f, 10.0f}) {
      std::vector<float> a = iota(start), b = iota(start * 2);
      std::vector<std::vector<float>> outputs(
          1, std::vector<float>(kVectorLength));
      Status status = runVectors(session.get(), {a, b}, outputs);
      ASSERT_FALSE(status) << message(status);
      EXPECT_EQ(outputs[0], expectedCpuGpu(a, b));
    }
    EXPECT_EQ(fake.query("elapsed_times"), 8); // 4 GPU steps, 2 runs
    EXPECT_EQ(fake.currentContext(), nullptr)
        << "a run changed the caller's context";
    EXPECT_EQ(fake.query("launches"), 6);
    // The kernel stream waits for both copies; the copies between arenas
    // are from and to pinned memory.
    EXPECT_EQ(fake.query("stream_waits"), 4);
    EXPECT_EQ(fake.query("pageable_async_copies"), 0);

    ASSERT_EQ(orx_session_trace_size(session.get()), 6u);
    for (size_t i = 0; i < 6; ++i) {
      orx_trace_event_t event;
      Status status{orx_session_trace_event(session.get(), i, &event)};
      ASSERT_FALSE(status) << message(status);
      EXPECT_LE(event.start_ns, event.end_ns) << event.name;
      EXPECT_NE(event.end_ns, 0u) << event.name;
      // The GPU's steps (its copies in and its two kernels) have GPU
      // times, from events around them on their streams: the fake driver's
      // microsecond per operation. The CPU's copy out and kernel have none.
      uint64_t expected = i >= 4 ? 0 : i == 3 ? 2000 : 1000;
      EXPECT_EQ(event.device_ns, expected) << event.name;
    }
  }
  expectAllReleased();
}

// A driver that cannot pin host memory (some sandboxes): the copies go from
// pageable memory, and the results are the same.
TEST_F(CudaBackendTest, HostMemoryNotPinnable) {
  fake.configure("reject_host_register", 1);
  {
    SessionPtr session = createSession(makeCpuGpuArtifact());
    ASSERT_TRUE(session);
    EXPECT_EQ(fake.query("pinned"), 0);
    std::vector<float> a = iota(1.0f), b = iota(3.0f);
    std::vector<std::vector<float>> outputs(1,
                                            std::vector<float>(kVectorLength));
    Status status = runVectors(session.get(), {a, b}, outputs);
    ASSERT_FALSE(status) << message(status);
    EXPECT_EQ(outputs[0], expectedCpuGpu(a, b));
    EXPECT_GT(fake.query("pageable_async_copies"), 0);
  }
  expectAllReleased();
}

/// A TMA tensor map of the whole vector in buffer `index` (f32, one box).
GpuArgDesc vectorTensorMap(uint32_t index) {
  GpuArgDesc arg{GpuArgKind::TensorMap, 0, 8};
  arg.tensorMap.source = GpuArgKind::Buffer;
  arg.tensorMap.sourceIndex = index;
  arg.tensorMap.dataType = 7; // CU_TENSOR_MAP_DATA_TYPE_FLOAT32
  arg.tensorMap.rank = 1;
  arg.tensorMap.globalDim[0] = kVectorLength;
  arg.tensorMap.boxDim[0] = kVectorLength;
  return arg;
}

// A kernel that takes a tensor map of its input: the runtime encodes the map
// for the step's buffer, copies it into device memory of its own once, when
// the session is created, and passes that device pointer (the simulated TMA
// load reads the map from there, checks it, and copies the box). Runs copy
// no maps.
TEST_F(CudaBackendTest, TensorMapParameter) {
  Artifact artifact = makeCpuGpuArtifact();
  GpuBundle bundle = makeFakeBundle();
  bundle.kernels[0].launches[0] =
      gpuLaunch("fake_tma_copy_f32", {vectorTensorMap(0), buffer(2)});
  artifact.binaries[1] = bundleBinary(bundle);
  {
    SessionPtr session = createSession(artifact);
    ASSERT_TRUE(session);
    EXPECT_EQ(fake.query("tensor_maps"), 1);
    long long copiesAtCreation = fake.query("pageable_async_copies");
    for (float start : {3.0f, 20.0f}) {
      std::vector<float> a = iota(start), b = iota(0);
      std::vector<std::vector<float>> outputs(
          1, std::vector<float>(kVectorLength));
      Status status = runVectors(session.get(), {a, b}, outputs);
      ASSERT_FALSE(status) << message(status);
      // c = a (the TMA copy), so e = 2 * (2 * a + k).
      std::vector<float> expected(kVectorLength);
      for (size_t i = 0; i < kVectorLength; ++i)
        expected[i] = 2 * (2 * a[i] + (100 + static_cast<float>(i)));
      EXPECT_EQ(outputs[0], expected);
    }
    EXPECT_EQ(fake.query("tensor_maps"), 1);
    EXPECT_EQ(fake.query("pageable_async_copies"), copiesAtCreation);
  }
  expectAllReleased();
}

// The bundle reader checks what it can of a tensor map: here a row stride
// that is not a multiple of 16 bytes.
TEST_F(CudaBackendTest, TensorMapStridesChecked) {
  GpuBundle bundle = makeFakeBundle();
  GpuArgDesc map = vectorTensorMap(0);
  map.tensorMap.rank = 2;
  map.tensorMap.globalDim[1] = 2;
  map.tensorMap.boxDim[1] = 1;
  map.tensorMap.globalStrides[0] = 8;
  bundle.kernels[0].launches[0] =
      gpuLaunch("fake_tma_copy_f32", {map, buffer(2)});
  std::vector<uint8_t> bytes = serializeGpuBundle(bundle);
  GpuBundle parsed;
  std::string error;
  EXPECT_FALSE(parseGpuBundle(bytes.data(), bytes.size(), parsed, error));
  EXPECT_EQ(error, "GPU module bundle: kernels[0].launches[0].args[0]"
                   ".tensor_map.global_strides[0] = 8 bytes is not a "
                   "multiple of 16");
}

// A tensor map the driver refuses (an unknown data type) fails session
// creation, where the launches are prepared, with an error that names the
// launch and the parameter.
TEST_F(CudaBackendTest, TensorMapRefusedByTheDriver) {
  Artifact artifact = makeCpuGpuArtifact();
  GpuBundle bundle = makeFakeBundle();
  GpuArgDesc map = vectorTensorMap(0);
  map.tensorMap.dataType = 99;
  bundle.kernels[0].launches[0] =
      gpuLaunch("fake_tma_copy_f32", {map, buffer(2)});
  artifact.binaries[1] = bundleBinary(bundle);
  EXPECT_EQ(sessionError(artifact),
            "step 2 ('add'): launch 0 ('fake_tma_copy_f32') of kernel "
            "'orx_kernel_add': the tensor map of parameter 0 on device 'gpu0' "
            "(nvidia_hopper, CUDA device 0: Fake GPU 0, sm_90): "
            "cuTensorMapEncodeTiled failed: CUDA_ERROR_INVALID_VALUE (invalid "
            "argument)");
  expectAllReleased();
}

TEST_F(CudaBackendTest, GpuOnlyWithEntryInDeviceMemory) {
  Artifact a;
  a.producer = "runtime unit tests";
  a.topologyName = "hopper";
  a.devices = {{"gpu0", "nvidia_hopper", "cuda", 0, 1}};
  a.memorySpaces = {{"gpu0_hbm", 0, 3 * kVectorBytes}};
  a.entryName = "add";
  a.inputs = {vectorDesc("a"), vectorDesc("b")};
  a.inputValues = {0, 1};
  a.outputs = {vectorDesc("c")};
  a.outputValues = {2};
  a.values = {{0, 0, kVectorBytes},
              {0, kVectorBytes, kVectorBytes},
              {0, 2 * kVectorBytes, kVectorBytes}};
  a.binaries = {bundleBinary(makeFakeBundle())};
  a.kernels = {{"orx_kernel_add", 0}};
  a.steps = {launch(0, "add", 0, {0, 1, 2}, 2)};
  {
    SessionPtr session = createSession(a);
    ASSERT_TRUE(session);
    std::vector<float> x = iota(1), y = iota(-3);
    std::vector<std::vector<float>> outputs(1,
                                            std::vector<float>(kVectorLength));
    Status status = runVectors(session.get(), {x, y}, outputs);
    ASSERT_FALSE(status) << message(status);
    for (size_t i = 0; i < kVectorLength; ++i)
      EXPECT_EQ(outputs[0][i], x[i] + y[i]);
    EXPECT_EQ(fake.query("pinned"), 0);
  }
  expectAllReleased();
}

// A select step on a GPU's queue: the condition read from device memory
// after the GPU's kernel, the chosen values copied by the GPU.
TEST_F(CudaBackendTest, SelectInDeviceMemory) {
  {
    SessionPtr session = createSession(makeGpuSelectArtifact(cudaGpu()));
    ASSERT_TRUE(session);
    expectGpuSelects(session.get());
  }
  expectAllReleased();
}

// A kernel compiled with --profile-branches (design/0019): its counters in
// device memory, passed as its ProfileCounters parameter, read back and
// zeroed by the session.
TEST_F(CudaBackendTest, BranchCountersInDeviceMemory) {
  GpuBundle bundle = makeFakeBundle();
  GpuKernelDesc count;
  count.symbol = "orx_kernel_count";
  count.launches = {
      gpuLaunch("fake_count_positive_f32", {buffer(0),
                                            {GpuArgKind::ProfileCounters, 0, 8},
                                            immediate(kVectorLength, 4)})};
  bundle.kernels.push_back(count);
  Artifact a = makeGpuSelectArtifact();
  a.binaries = {bundleBinary(bundle)};
  a.kernels = {{"orx_kernel_count", 0, {"loc(\"x.mlir\":3:8)"}}};
  a.outputs.clear();
  a.outputValues.clear();
  a.steps = {launch(0, "count", 0, {1}, 1)};
  {
    SessionPtr session = createSession(a);
    ASSERT_TRUE(session);
    // a: 16 values, 5 of them positive (one warp of 16 lanes).
    std::vector<float> x(kVectorLength, -1.0f);
    for (size_t i = 0; i < 5; ++i)
      x[3 * i] = 1.0f;
    std::vector<float> unused(kVectorLength, 0.0f);
    uint8_t p = 0;
    const void *inputs[] = {&p, x.data(), unused.data()};
    size_t sizes[] = {1, kVectorBytes, kVectorBytes};
    for (int run = 0; run < 2; ++run) {
      Status status(orx_session_run(session.get(), inputs, sizes, 3, nullptr,
                                    nullptr, 0));
      ASSERT_FALSE(status) << message(status);
    }
    size_t records = 0;
    Status status(orx_session_branch_profile_size(session.get(), &records));
    ASSERT_FALSE(status) << message(status);
    ASSERT_EQ(records, 1u);
    orx_branch_record_t record;
    status.reset(orx_session_branch_profile_record(session.get(), 0, &record));
    ASSERT_FALSE(status) << message(status);
    EXPECT_STREQ(record.kernel, "orx_kernel_count");
    EXPECT_STREQ(record.location, "loc(\"x.mlir\":3:8)");
    EXPECT_EQ(record.invocation_count, 2u);
    EXPECT_EQ(record.then_count, 10u);
    EXPECT_EQ(record.else_count, 22u);
    EXPECT_EQ(record.warps, 2u);
    EXPECT_EQ(record.divergent_warps, 2u);
    status.reset(orx_session_branch_profile_reset(session.get()));
    ASSERT_FALSE(status) << message(status);
    status.reset(orx_session_branch_profile_size(session.get(), &records));
    ASSERT_FALSE(status) << message(status);
    status.reset(orx_session_branch_profile_record(session.get(), 0, &record));
    ASSERT_FALSE(status) << message(status);
    EXPECT_EQ(record.then_count + record.else_count + record.warps, 0u);
  }
  expectAllReleased();
}

// A kernel with a loop (design/0019): r = x doubled n times, n from the
// data. The program starts a countdown, then while its condition byte
// (read back each iteration) is set adds the vector to itself into the
// other of two scratch buffers and counts down; a last launch copies the
// result out.
TEST_F(CudaBackendTest, LoopProgram) {
  GpuBundle bundle = makeFakeBundle();
  GpuKernelDesc loop;
  loop.symbol = "orx_kernel_loop";
  // 0: counter, 1: condition, 2 and 3: the vector, in turn.
  loop.scratchBytes = {8, 1, kVectorBytes, kVectorBytes};
  GpuArgDesc vector{GpuArgKind::Register, 0, 8, {}};
  GpuArgDesc next{GpuArgKind::Register, 1, 8, {}};
  loop.launches = {
      gpuLaunch("fake_start_countdown", {buffer(0), scratch(0), scratch(1)}),
      gpuLaunch("fake_add_f32",
                {vector, vector, next, immediate(kVectorLength, 4)}),
      gpuLaunch("fake_count_down", {scratch(0), scratch(1)}),
      gpuLaunch("fake_scale_f32",
                {vector, buffer(2), immediate(floatBits(1.0f), 4),
                 immediate(kVectorLength, 8)})};
  auto scratchKind = static_cast<uint64_t>(GpuArgKind::Scratch);
  auto bufferKind = static_cast<uint64_t>(GpuArgKind::Buffer);
  auto registerKind = static_cast<uint64_t>(GpuArgKind::Register);
  loop.program = {
      {GpuOp::Launch, 0, 0, 0},         {GpuOp::Set, 0, bufferKind, 1},
      {GpuOp::LoopBegin, 0, 1, 0},      {GpuOp::ExitUnless, 0, scratchKind, 1},
      {GpuOp::SetAlternating, 1, 2, 3}, {GpuOp::Launch, 1, 0, 0},
      {GpuOp::Set, 0, registerKind, 1}, {GpuOp::Launch, 2, 0, 0},
      {GpuOp::LoopEnd, 0, 0, 0},        {GpuOp::Launch, 3, 0, 0}};
  loop.registers = 2;
  bundle.kernels.push_back(loop);
  Artifact a = makeGpuSelectArtifact();
  a.binaries = {bundleBinary(bundle)};
  a.kernels = {{"orx_kernel_loop", 0, {}}};
  a.inputs = {{"n", DType::I64, {}}, vectorDesc("x"), vectorDesc("b")};
  a.values[0] = {0, 0, 8};
  a.steps = {launch(0, "loop", 0, {0, 1, 4}, 2)};
  {
    SessionPtr session = createSession(a);
    ASSERT_TRUE(session);
    std::vector<float> x = iota(1), unused(kVectorLength, 0.0f);
    for (int64_t n : {3, 0, 1}) {
      std::vector<float> r(kVectorLength, -1.0f);
      const void *inputs[] = {&n, x.data(), unused.data()};
      size_t sizes[] = {8, kVectorBytes, kVectorBytes};
      void *outputs[] = {r.data()};
      size_t outputSizes[] = {kVectorBytes};
      Status status(orx_session_run(session.get(), inputs, sizes, 3, outputs,
                                    outputSizes, 1));
      ASSERT_FALSE(status) << message(status);
      for (size_t i = 0; i < kVectorLength; ++i)
        EXPECT_EQ(r[i], x[i] * float(1 << n)) << "n = " << n << ", i = " << i;
    }
  }
  expectAllReleased();
}

TEST_F(CudaBackendTest, TwoGpusWithPeerCopy) {
  fake.configure("device_count", 2);
  Artifact a = makeTwoGpuArtifact();
  {
    SessionPtr session = createSession(a);
    ASSERT_TRUE(session);
    EXPECT_EQ(fake.query("retains"), 2);
    std::vector<float> x = iota(1), y = iota(2);
    std::vector<std::vector<float>> outputs(1,
                                            std::vector<float>(kVectorLength));
    Status status = runVectors(session.get(), {x, y}, outputs);
    ASSERT_FALSE(status) << message(status);
    for (size_t i = 0; i < kVectorLength; ++i)
      EXPECT_EQ(outputs[0][i], 2 * (x[i] + y[i]));
    EXPECT_EQ(fake.query("peer_copies"), 1);
    // gpu1's copy stream waits for gpu0's kernel stream, its kernel stream
    // for its copy stream.
    EXPECT_EQ(fake.query("stream_waits"), 2);
  }
  expectAllReleased();
}

TEST_F(CudaBackendTest, PtxFallback) {
  fake.configure("reject_cubin", 1);
  {
    SessionPtr session = createSession(makeCpuGpuArtifact());
    ASSERT_TRUE(session);
    EXPECT_EQ(fake.query("ptx_loads"), 1);
    std::vector<float> a = iota(3), b = iota(4);
    std::vector<std::vector<float>> outputs(1,
                                            std::vector<float>(kVectorLength));
    Status status = runVectors(session.get(), {a, b}, outputs);
    ASSERT_FALSE(status) << message(status);
    EXPECT_EQ(outputs[0], expectedCpuGpu(a, b));
  }
  expectAllReleased();
}

TEST_F(CudaBackendTest, ModuleLoadFailure) {
  fake.configure("reject_cubin", 1);
  fake.configure("reject_ptx", 1);
  EXPECT_EQ(sessionError(makeCpuGpuArtifact()),
            "cannot load module 'main' of kernel binary 1 (built for sm_90a) "
            "on device 'gpu0' (nvidia_hopper, CUDA device 0: Fake GPU 0, "
            "sm_90): its cubin: cuModuleLoadData failed: "
            "CUDA_ERROR_NO_BINARY_FOR_GPU (no kernel image is available for "
            "execution on the device); its ptx: cuModuleLoadData failed: "
            "CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed)");
  expectAllReleased();

  Artifact artifact = makeCpuGpuArtifact();
  GpuBundle bundle = makeFakeBundle();
  bundle.modules[0].images.pop_back();
  artifact.binaries[1] = bundleBinary(bundle);
  EXPECT_EQ(sessionError(artifact),
            "cannot load module 'main' of kernel binary 1 (built for sm_90a) "
            "on device 'gpu0' (nvidia_hopper, CUDA device 0: Fake GPU 0, "
            "sm_90): its cubin: cuModuleLoadData failed: "
            "CUDA_ERROR_NO_BINARY_FOR_GPU (no kernel image is available for "
            "execution on the device)");
  expectAllReleased();

  // Images of kinds the driver does not know are skipped.
  bundle.modules[0].images = {{"hsaco", {1, 2, 3}}};
  artifact.binaries[1] = bundleBinary(bundle);
  EXPECT_EQ(sessionError(artifact),
            "cannot load module 'main' of kernel binary 1 (built for sm_90a) "
            "on device 'gpu0' (nvidia_hopper, CUDA device 0: Fake GPU 0, "
            "sm_90): it has no cubin or PTX image");
  expectAllReleased();
}

TEST_F(CudaBackendTest, NoDeviceFromDriver) {
  fake.configure("init_result", 100);
  EXPECT_EQ(sessionError(makeCpuGpuArtifact()),
            "no CUDA device found (cuInit failed: CUDA_ERROR_NO_DEVICE (no "
            "CUDA-capable device is detected)); device 'gpu0' (nvidia_hopper) "
            "needs an NVIDIA GPU");
  fake.configure("reset", 0);
  fake.configure("device_count", 0);
  EXPECT_EQ(sessionError(makeCpuGpuArtifact()),
            std::string("no CUDA device found (the driver '") +
                ORX_FAKE_CUDA_PATH +
                "' reports none); device 'gpu0' (nvidia_hopper) needs an "
                "NVIDIA GPU");
}

TEST_F(CudaBackendTest, DeviceOrdinalOutOfRange) {
  fake.configure("device_count", 2);
  Artifact artifact = makeCpuGpuArtifact();
  artifact.devices[1].deviceId = 3;
  EXPECT_EQ(sessionError(artifact),
            "device 'gpu0' (nvidia_hopper) is CUDA device 3, but this machine "
            "has 2 CUDA devices (0-1)");
  fake.configure("device_count", 1);
  EXPECT_EQ(sessionError(artifact),
            "device 'gpu0' (nvidia_hopper) is CUDA device 3, but this machine "
            "has 1 CUDA device (0)");
  expectAllReleased();
}

TEST_F(CudaBackendTest, DeviceMemoryExhausted) {
  Artifact artifact = makeCpuGpuArtifact();
  artifact.memorySpaces[1].arenaBytes = 1ull << 41;
  EXPECT_EQ(sessionError(artifact),
            "cannot allocate the 2199023255552-byte arena of memory space "
            "'gpu0_hbm' on device 'gpu0' (nvidia_hopper, CUDA device 0: Fake "
            "GPU 0, sm_90): cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY "
            "(out of memory)");
  expectAllReleased();
}

TEST_F(CudaBackendTest, InvalidBundle) {
  Artifact artifact = makeCpuGpuArtifact();
  artifact.binaries[1].data = {1, 2, 3};
  EXPECT_EQ(sessionError(artifact),
            "kernel binary 1 (3 bytes) is invalid: not a GPU module bundle");
  expectAllReleased();
}

TEST_F(CudaBackendTest, BundleForAnotherArch) {
  Artifact artifact = makeCpuGpuArtifact();
  artifact.binaries[1].arch = "nvidia_blackwell";
  EXPECT_EQ(sessionError(artifact), "kernel binary 1 is for arch "
                                    "'nvidia_blackwell', device 'gpu0' is "
                                    "'nvidia_hopper'");
  expectAllReleased();
}

TEST_F(CudaBackendTest, KernelNotInBundle) {
  Artifact artifact = makeCpuGpuArtifact();
  artifact.kernels[1].symbol = "orx_kernel_none";
  EXPECT_EQ(sessionError(artifact),
            "kernel 'orx_kernel_none' is not defined in kernel binary 1");
  expectAllReleased();
}

TEST_F(CudaBackendTest, FunctionNotInModule) {
  Artifact artifact = makeCpuGpuArtifact();
  GpuBundle bundle = makeFakeBundle();
  bundle.kernels[0].launches[0].function = "no_such_function";
  artifact.binaries[1] = bundleBinary(bundle);
  EXPECT_EQ(sessionError(artifact),
            "kernel 'orx_kernel_add' of kernel binary 1: module 'main' has no "
            "function 'no_such_function' on device 'gpu0' (nvidia_hopper, "
            "CUDA device 0: Fake GPU 0, sm_90): cuModuleGetFunction failed: "
            "CUDA_ERROR_NOT_FOUND (named symbol not found)");
  expectAllReleased();
}

TEST_F(CudaBackendTest, BufferParameterOutOfRange) {
  Artifact artifact = makeCpuGpuArtifact();
  GpuBundle bundle = makeFakeBundle();
  bundle.kernels[0].launches[0].args[1] = buffer(3);
  artifact.binaries[1] = bundleBinary(bundle);
  EXPECT_EQ(sessionError(artifact),
            "step 2 ('add'): launch 0 ('fake_add_f32') of kernel "
            "'orx_kernel_add': parameter 1 is buffer 3, but the step has 3 "
            "values");
  expectAllReleased();
}

TEST_F(CudaBackendTest, BufferParameterMisaligned) {
  // Kernels are compiled for 64-byte aligned buffers; an artifact that
  // places one elsewhere is refused before any launch.
  Artifact artifact = makeCpuGpuArtifact();
  artifact.memorySpaces[1].arenaBytes = 7 * kVectorBytes;
  artifact.values[6].offset = 5 * kVectorBytes + 4;
  EXPECT_EQ(sessionError(artifact),
            "step 2 ('add'): launch 0 ('fake_add_f32') of kernel "
            "'orx_kernel_add': parameter 2 is buffer 2, whose device address "
            "is not 64-byte aligned");
  expectAllReleased();
}

TEST_F(CudaBackendTest, KernelsAddressOnlyTheirDevicesMemory) {
  Artifact artifact = makeCpuGpuArtifact();
  artifact.steps[2].args[0] = 0;
  EXPECT_EQ(sessionError(artifact),
            "step 2 ('add') on device 'gpu0' uses value 0, which is in memory "
            "space 'cpu0_dram' of device 'cpu0': its kernel cannot address "
            "it");
  artifact = makeCpuGpuArtifact();
  artifact.steps[5].args[0] = 8;
  EXPECT_EQ(sessionError(artifact),
            "step 5 ('scale') on device 'cpu0' uses value 8, which is in "
            "memory space 'gpu0_hbm' of device 'gpu0': its kernel cannot "
            "address it");
  expectAllReleased();
}

TEST_F(CudaBackendTest, KernelOfTheWrongKind) {
  Artifact artifact = makeCpuGpuArtifact();
  artifact.steps[5].kernel = 1;
  EXPECT_EQ(sessionError(artifact),
            std::string("step 5 ('scale') runs on device 'cpu0' (") +
                getTestHostArch() +
                "), but its kernel 'orx_kernel_add' is in kernel binary 1, a "
                "GPU module bundle for 'nvidia_hopper'");
  artifact = makeCpuGpuArtifact();
  artifact.steps[2].kernel = 0;
  EXPECT_EQ(sessionError(artifact),
            "step 2 ('add') runs on device 'gpu0' (nvidia_hopper, CUDA device "
            "0: Fake GPU 0, sm_90), but its kernel 'scale2' is in kernel "
            "binary 0 of format 'elf-shared-object', not a GPU module bundle");
  expectAllReleased();
}

TEST_F(CudaBackendTest, KernelFaultFailsTheRun) {
  Artifact artifact = makeCpuGpuArtifact();
  GpuBundle bundle = makeFakeBundle();
  bundle.kernels[0].launches[0] = gpuLaunch("fake_fault", {});
  artifact.binaries[1] = bundleBinary(bundle);
  {
    SessionPtr session = createSession(artifact);
    ASSERT_TRUE(session);
    std::vector<std::vector<float>> outputs(1,
                                            std::vector<float>(kVectorLength));
    Status status = runVectors(session.get(), {iota(0), iota(1)}, outputs);
    ASSERT_TRUE(status);
    EXPECT_NE(message(status).find("CUDA_ERROR_ILLEGAL_ADDRESS (an illegal "
                                   "memory access was encountered)"),
              std::string::npos)
        << message(status);
  }
  expectAllReleased();
}

} // namespace
