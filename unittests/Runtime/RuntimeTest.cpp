//===- RuntimeTest.cpp - Tests of the runtime C API -----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "SessionHelpers.h"
#include "TestArtifacts.h"

#include "orchestra_rt/orchestra_rt.hpp"

#include "gtest/gtest.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace orx;
using namespace orx::test;

namespace {

std::vector<orx_trace_event_t> getTrace(orx_session_t *session) {
  std::vector<orx_trace_event_t> events(orx_session_trace_size(session));
  for (size_t i = 0; i < events.size(); ++i) {
    Status status{orx_session_trace_event(session, i, &events[i])};
    EXPECT_FALSE(status) << message(status);
  }
  return events;
}

TEST(RuntimeTest, Introspection) {
  ArtifactPtr artifact = load(makeTwoDeviceArtifact());
  ASSERT_TRUE(artifact);
  EXPECT_STREQ(orx_artifact_entry_name(artifact.get()), "two_device");
  EXPECT_STREQ(orx_artifact_topology_name(artifact.get()), "two-cpu");
  EXPECT_STREQ(orx_artifact_producer(artifact.get()), "runtime unit tests");
  ASSERT_EQ(orx_artifact_num_devices(artifact.get()), 2u);
  EXPECT_STREQ(orx_artifact_device_name(artifact.get(), 1), "cpu1");
  EXPECT_STREQ(orx_artifact_device_arch(artifact.get(), 0), getTestHostArch());
  EXPECT_EQ(orx_artifact_device_name(artifact.get(), 2), nullptr);
  ASSERT_EQ(orx_artifact_num_memory_spaces(artifact.get()), 2u);
  EXPECT_STREQ(orx_artifact_memory_space_name(artifact.get(), 1), "cpu1_dram");
  EXPECT_EQ(orx_artifact_memory_space_arena_bytes(artifact.get(), 0),
            3 * kVectorBytes);
  EXPECT_EQ(orx_artifact_memory_space_arena_bytes(artifact.get(), 2), 0u);
  ASSERT_EQ(orx_artifact_num_inputs(artifact.get()), 1u);
  ASSERT_EQ(orx_artifact_num_outputs(artifact.get()), 1u);

  orx_tensor_info_t info;
  Status status{orx_artifact_input_info(artifact.get(), 0, &info)};
  ASSERT_FALSE(status) << message(status);
  EXPECT_STREQ(info.name, "a");
  EXPECT_EQ(info.dtype, static_cast<uint32_t>(ORX_DTYPE_F32));
  ASSERT_EQ(info.rank, 1u);
  EXPECT_EQ(info.dims[0], 16);
  EXPECT_EQ(info.byte_size, kVectorBytes);
  status.reset(orx_artifact_output_info(artifact.get(), 0, &info));
  ASSERT_FALSE(status) << message(status);
  EXPECT_STREQ(info.name, "d");
  status.reset(orx_artifact_output_info(artifact.get(), 1, &info));
  EXPECT_EQ(message(status), "no output 1 (the entry has 1)");

  EXPECT_STREQ(orx_dtype_name(ORX_DTYPE_BF16), "bf16");
  EXPECT_EQ(orx_dtype_size(ORX_DTYPE_I64), 8u);
  EXPECT_EQ(orx_dtype_name(77), nullptr);
  EXPECT_EQ(orx_dtype_size(77), 0u);
}

TEST(RuntimeTest, NullArgumentsAreErrors) {
  orx_artifact_t *artifact = nullptr;
  Status status{orx_artifact_load_file(nullptr, &artifact)};
  EXPECT_TRUE(status);
  status.reset(orx_artifact_load_memory(nullptr, 4, &artifact));
  EXPECT_TRUE(status);
  orx_session_t *session = nullptr;
  status.reset(orx_session_create(nullptr, &session));
  EXPECT_TRUE(status);
  status.reset(
      orx_session_run(nullptr, nullptr, nullptr, 0, nullptr, nullptr, 0));
  EXPECT_TRUE(status);
  EXPECT_STREQ(orx_status_message(nullptr), "");
  orx_status_free(nullptr);
  orx_artifact_free(nullptr);
  orx_session_free(nullptr);
  EXPECT_EQ(orx_session_trace_size(nullptr), 0u);
  EXPECT_EQ(orx_artifact_num_inputs(nullptr), 0u);
}

TEST(RuntimeTest, LoadErrors) {
  orx_artifact_t *artifact = nullptr;
  Status status{orx_artifact_load_file("/nonexistent/model.orcx", &artifact)};
  EXPECT_EQ(artifact, nullptr);
  EXPECT_NE(message(status).find("cannot open '/nonexistent/model.orcx'"),
            std::string::npos)
      << message(status);

  std::vector<uint8_t> bytes = serializeArtifact(makeAddArtifact());
  status.reset(orx_artifact_load_memory(bytes.data(), 100, &artifact));
  EXPECT_EQ(artifact, nullptr);
  EXPECT_NE(message(status).find("artifact is truncated"), std::string::npos)
      << message(status);
}

TEST(RuntimeTest, LoadFile) {
  std::string path = ::testing::TempDir() + "orx-runtime-test.orcx";
  std::string error;
  ASSERT_TRUE(writeArtifactFile(path, makeAddArtifact(), error)) << error;
  orx_artifact_t *raw = nullptr;
  Status status{orx_artifact_load_file(path.c_str(), &raw)};
  ArtifactPtr artifact(raw);
  std::remove(path.c_str());
  ASSERT_FALSE(status) << message(status);
  EXPECT_STREQ(orx_artifact_entry_name(artifact.get()), "add");
}

TEST(RuntimeTest, SingleDevice) {
  SessionPtr session = createSession(makeAddArtifact());
  ASSERT_TRUE(session);
  EXPECT_EQ(orx_session_trace_size(session.get()), 0u);
  std::vector<std::vector<float>> outputs = {std::vector<float>(16)};
  Status status = runVectors(session.get(), {iota(0), iota(100)}, outputs);
  ASSERT_FALSE(status) << message(status);
  for (size_t i = 0; i < kVectorLength; ++i)
    EXPECT_EQ(outputs[0][i], 100.0f + 2.0f * i);

  // The session is reused with new inputs.
  status = runVectors(session.get(), {iota(1), iota(1)}, outputs);
  ASSERT_FALSE(status) << message(status);
  for (size_t i = 0; i < kVectorLength; ++i)
    EXPECT_EQ(outputs[0][i], 2.0f + 2.0f * i);

  std::vector<orx_trace_event_t> trace = getTrace(session.get());
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_STREQ(trace[0].name, "add");
  EXPECT_EQ(trace[0].kind, static_cast<uint32_t>(ORX_STEP_LAUNCH));
  EXPECT_EQ(trace[0].device, 0u);
  EXPECT_LE(trace[0].start_ns, trace[0].end_ns);
  EXPECT_EQ(trace[0].predicted_start, 0);
  EXPECT_EQ(trace[0].predicted_finish, 1e-6);
  orx_trace_event_t event;
  Status outOfRange{orx_session_trace_event(session.get(), 1, &event)};
  EXPECT_EQ(message(outOfRange), "no trace event 1 (the last run traced 1)");
}

TEST(RuntimeTest, TwoDevicesWithCopyAndConstant) {
  SessionPtr session = createSession(makeTwoDeviceArtifact());
  ASSERT_TRUE(session);
  std::vector<std::vector<float>> outputs = {std::vector<float>(16)};
  for (int run = 0; run < 3; ++run) {
    Status status = runVectors(session.get(), {iota(10.0f * run)}, outputs);
    ASSERT_FALSE(status) << message(status);
    // d = 2 * (a + b) with b = 1, 2, 3, ...
    for (size_t i = 0; i < kVectorLength; ++i)
      EXPECT_EQ(outputs[0][i], 2.0f * (10.0f * run + i + (i + 1)));
  }
  std::vector<orx_trace_event_t> trace = getTrace(session.get());
  ASSERT_EQ(trace.size(), 3u);
  EXPECT_STREQ(trace[1].name, "c_to_cpu1");
  EXPECT_EQ(trace[1].kind, static_cast<uint32_t>(ORX_STEP_COPY));
  EXPECT_EQ(trace[1].device, 0u);
  EXPECT_EQ(trace[2].device, 1u);
  EXPECT_LT(trace[1].predicted_start, 0);
  // Each step starts after its dependency finished.
  EXPECT_GE(trace[1].start_ns, trace[0].end_ns);
  EXPECT_GE(trace[2].start_ns, trace[1].end_ns);
}

TEST(RuntimeTest, CopyOnlyPlan) {
  SessionPtr session = createSession(makeCopyArtifact());
  ASSERT_TRUE(session);
  std::vector<float> x = {1.5f, -2, 3, 4, 5, 6.25f};
  std::vector<float> y(6);
  std::vector<int32_t> k(4);
  const void *inputs[] = {x.data()};
  size_t inputSizes[] = {24};
  void *outputs[] = {y.data(), k.data()};
  size_t outputSizes[] = {24, 16};
  Status status{orx_session_run(session.get(), inputs, inputSizes, 1, outputs,
                                outputSizes, 2)};
  ASSERT_FALSE(status) << message(status);
  EXPECT_EQ(y, x);
  EXPECT_EQ(k, (std::vector<int32_t>{1, 2, 3, 4}));
}

// A select step copies the list its condition picks, across memory spaces,
// and the trace says which; the other list is not read.
TEST(RuntimeTest, SelectPlan) {
  SessionPtr session = createSession(makeSelectArtifact());
  ASSERT_TRUE(session);
  std::vector<float> a = {1, 2, 3, 4}, b = {-1, -2, -3, -4};
  for (uint8_t condition : {1, 0, 2}) {
    std::vector<float> r(4);
    std::vector<int32_t> k(4);
    const void *inputs[] = {&condition, a.data(), b.data()};
    size_t inputSizes[] = {1, 16, 16};
    void *outputs[] = {r.data(), k.data()};
    size_t outputSizes[] = {16, 16};
    Status status{orx_session_run(session.get(), inputs, inputSizes, 3, outputs,
                                  outputSizes, 2)};
    ASSERT_FALSE(status) << message(status);
    bool taken = condition != 0;
    EXPECT_EQ(r, taken ? a : b) << int(condition);
    std::vector<int32_t> sevens = {7, 7, 7, 7}, ks = {1, 2, 3, 4};
    EXPECT_EQ(k, taken ? sevens : ks);
    ASSERT_EQ(orx_session_trace_size(session.get()), 2u);
    orx_trace_event_t event;
    ASSERT_FALSE(Status{orx_session_trace_event(session.get(), 1, &event)});
    EXPECT_EQ(event.kind, ORX_STEP_SELECT);
    EXPECT_EQ(orx_session_trace_selected(session.get(), 1), taken ? 1 : 0);
    EXPECT_EQ(orx_session_trace_selected(session.get(), 0), -1);
    EXPECT_EQ(orx_session_trace_selected(session.get(), 2), -1);
  }
}

//===----------------------------------------------------------------------===//
// Replacing a kernel (hot swap, design/0019 decision 11)
//===----------------------------------------------------------------------===//

std::vector<uint8_t> readFile(const char *path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(file),
                              std::istreambuf_iterator<char>());
}

Status replaceKernel(orx_session_t *session, const char *symbol,
                     const std::vector<uint8_t> &binary) {
  return Status{orx_session_replace_kernel(session, symbol, binary.data(),
                                           binary.size(), "elf-shared-object")};
}

/// Runs makeAddArtifact's plan on a = 1, 2, ... and b = 10, 11, ...: c.
std::vector<float> runAdd(orx_session_t *session) {
  std::vector<std::vector<float>> outputs(1, std::vector<float>(kVectorLength));
  Status status = runVectors(session, {iota(1), iota(10)}, outputs);
  EXPECT_FALSE(status) << message(status);
  return outputs[0];
}

std::vector<float> sumOf(float sign) {
  std::vector<float> a = iota(1), b = iota(10), c(kVectorLength);
  for (size_t i = 0; i < kVectorLength; ++i)
    c[i] = a[i] + sign * b[i];
  return c;
}

// A replacement takes effect from the next run; replacing it again (by the
// first version, loaded anew) too.
TEST(RuntimeTest, ReplaceKernel) {
  SessionPtr session = createSession(makeAddArtifact());
  ASSERT_TRUE(session);
  EXPECT_EQ(runAdd(session.get()), sumOf(1));
  Status status = replaceKernel(session.get(), "add_f32",
                                readFile(ORX_TEST_SWAP_KERNELS_PATH));
  ASSERT_FALSE(status) << message(status);
  EXPECT_EQ(runAdd(session.get()), sumOf(-1));
  EXPECT_EQ(runAdd(session.get()), sumOf(-1));
  status = replaceKernel(session.get(), "add_f32", readTestKernels());
  ASSERT_FALSE(status) << message(status);
  EXPECT_EQ(runAdd(session.get()), sumOf(1));
}

// Every refused replacement leaves the old kernel running.
TEST(RuntimeTest, RefusedReplacementsKeepTheOldKernel) {
  SessionPtr session = createSession(makeAddArtifact());
  ASSERT_TRUE(session);
  auto expectRefused = [&](const char *symbol, std::vector<uint8_t> binary,
                           const std::string &expected) {
    Status status = replaceKernel(session.get(), symbol, binary);
    ASSERT_TRUE(status) << symbol;
    EXPECT_NE(message(status).find(expected), std::string::npos)
        << message(status);
    EXPECT_EQ(runAdd(session.get()), sumOf(1));
  };
  expectRefused(
      "nope", readFile(ORX_TEST_SWAP_KERNELS_PATH),
      "cannot replace kernel 'nope': no step of the plan launches it");
  expectRefused("add_f32", {'n', 'o', 't', ' ', 'E', 'L', 'F'},
                "cannot replace kernel 'add_f32': ");
  expectRefused("add_f32", {}, "cannot replace kernel 'add_f32': ");
  // A binary without the kernel: kernels_swap.c has no scale2.
  Artifact artifact = makeAddArtifact();
  artifact.kernels[0].symbol = "scale2";
  artifact.steps[0].args = {0, 2};
  artifact.steps[0].numInputs = 1;
  SessionPtr scale = createSession(artifact);
  ASSERT_TRUE(scale);
  Status status = replaceKernel(scale.get(), "scale2",
                                readFile(ORX_TEST_SWAP_KERNELS_PATH));
  ASSERT_TRUE(status);
  EXPECT_NE(message(status).find("cannot replace kernel 'scale2': "),
            std::string::npos)
      << message(status);
  std::vector<std::vector<float>> outputs(1, std::vector<float>(kVectorLength));
  status = runVectors(scale.get(), {iota(1), iota(10)}, outputs);
  ASSERT_FALSE(status) << message(status);
  for (size_t i = 0; i < kVectorLength; ++i)
    EXPECT_EQ(outputs[0][i], 2 * (1 + static_cast<float>(i)));
  EXPECT_TRUE(Status{orx_session_replace_kernel(nullptr, "add_f32", nullptr, 0,
                                                "elf-shared-object")});
  EXPECT_TRUE(Status{
      orx_session_replace_kernel(session.get(), nullptr, nullptr, 0, "x")});
}

// A replacement asked for during a run waits for it: the run uses one
// kernel throughout, the next the new one. (The thread sanitizer's build
// runs this too.)
TEST(RuntimeTest, ReplaceKernelDuringARun) {
  // t = sleep_copy(a) (50 ms), c = add_f32(t, b).
  Artifact artifact = makeAddArtifact();
  artifact.memorySpaces[0].arenaBytes = 4 * kVectorBytes;
  artifact.values.push_back({0, 3 * kVectorBytes, kVectorBytes});
  artifact.kernels.push_back({"sleep_copy", 0});
  artifact.steps = {launch(0, "sleep", 1, {0, 3}, 1),
                    launch(0, "add", 0, {3, 1, 2}, 2, {0})};
  SessionPtr session = createSession(artifact);
  ASSERT_TRUE(session);
  std::vector<float> during;
  std::thread run([&] { during = runAdd(session.get()); });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  Status status = replaceKernel(session.get(), "add_f32",
                                readFile(ORX_TEST_SWAP_KERNELS_PATH));
  run.join();
  ASSERT_FALSE(status) << message(status);
  EXPECT_TRUE(during == sumOf(1) || during == sumOf(-1));
  EXPECT_EQ(runAdd(session.get()), sumOf(-1));
}

TEST(RuntimeTest, EmptyPlan) {
  Artifact artifact;
  artifact.entryName = "empty";
  SessionPtr session = createSession(artifact);
  ASSERT_TRUE(session);
  Status status{
      orx_session_run(session.get(), nullptr, nullptr, 0, nullptr, nullptr, 0)};
  EXPECT_FALSE(status) << message(status);
  EXPECT_EQ(orx_session_trace_size(session.get()), 0u);
}

TEST(RuntimeTest, WrongInputsAreErrors) {
  SessionPtr session = createSession(makeAddArtifact());
  ASSERT_TRUE(session);
  std::vector<std::vector<float>> outputs = {std::vector<float>(16)};
  Status status = runVectors(session.get(), {iota(0)}, outputs);
  EXPECT_EQ(message(status), "expected 2 inputs, got 1");

  std::vector<float> shortInput(15);
  status = runVectors(session.get(), {iota(0), shortInput}, outputs);
  EXPECT_EQ(message(status),
            "input 1 'b' (f32[16]): expected 64 bytes, got 60");

  std::vector<std::vector<float>> shortOutputs = {std::vector<float>(8)};
  status = runVectors(session.get(), {iota(0), iota(0)}, shortOutputs);
  EXPECT_EQ(message(status),
            "output 0 'c' (f32[16]): expected 64 bytes, got 32");

  std::vector<std::vector<float>> noOutputs;
  status = runVectors(session.get(), {iota(0), iota(0)}, noOutputs);
  EXPECT_EQ(message(status), "expected 1 outputs, got 0");

  const void *inputs[] = {nullptr, nullptr};
  size_t sizes[] = {64, 64};
  float out[16];
  void *outputsData[] = {out};
  size_t outputSizes[] = {64};
  status.reset(orx_session_run(session.get(), inputs, sizes, 2, outputsData,
                               outputSizes, 1));
  EXPECT_EQ(message(status), "input 0 'a' (f32[16]) is null");
}

TEST(RuntimeTest, DynamicDims) {
  Artifact artifact = makeDynamicArtifact();
  ArtifactPtr loaded = load(artifact);
  ASSERT_TRUE(loaded);
  ASSERT_EQ(orx_artifact_num_dims(loaded.get()), 1u);
  const char *name;
  int64_t min, max;
  ASSERT_FALSE(
      Status(orx_artifact_dim_info(loaded.get(), 0, &name, &min, &max)));
  EXPECT_STREQ(name, "n");
  EXPECT_EQ(min, 1);
  EXPECT_EQ(max, 16);
  orx_tensor_info_t info;
  ASSERT_FALSE(Status(orx_artifact_input_info(loaded.get(), 0, &info)));
  EXPECT_EQ(info.dims[0], -1);
  EXPECT_EQ(info.byte_size, 0u);

  SessionPtr session = createSession(artifact);
  ASSERT_TRUE(session);
  std::vector<std::vector<float>> outputs = {std::vector<float>(5)};
  Status status = runVectors(session.get(), {std::vector<float>(5)}, outputs);
  EXPECT_EQ(message(status),
            "input 0 'x' (f32[?]) has dynamic dimensions: set its shape first "
            "(orx_session_set_input_shape)");
  int64_t shape[] = {17};
  status.reset(orx_session_set_input_shape(session.get(), 0, shape, 1));
  EXPECT_EQ(message(status),
            "input 0 'x' (f32[?]): dimension 0 ('n') is 17, outside the range "
            "1..16 it was compiled for (compile with --dim n=MIN..MAX for "
            "another)");
  int64_t matrix[] = {4, 4};
  status.reset(orx_session_set_input_shape(session.get(), 0, matrix, 2));
  EXPECT_EQ(message(status), "input 0 'x' (f32[?]): expected rank 1, got 2");

  // Each run takes the sizes of the shape set last.
  for (int64_t n : {5, 16, 1}) {
    shape[0] = n;
    ASSERT_FALSE(
        Status(orx_session_set_input_shape(session.get(), 0, shape, 1)));
    int64_t outShape[1];
    size_t rank;
    ASSERT_FALSE(
        Status(orx_session_output_shape(session.get(), 0, outShape, 1, &rank)));
    EXPECT_EQ(rank, 1u);
    EXPECT_EQ(outShape[0], n);
    std::vector<float> input = iota(1);
    input.resize(n);
    outputs = {std::vector<float>(n)};
    status = runVectors(session.get(), {input}, outputs);
    ASSERT_FALSE(status) << message(status);
    for (int64_t i = 0; i < n; ++i)
      EXPECT_EQ(outputs[0][i], 2.0f * (i + 1));
  }
  status = runVectors(session.get(), {std::vector<float>(2)}, outputs);
  EXPECT_EQ(message(status), "input 0 'x' (f32[?]): expected 4 bytes, got 8");
}

TEST(RuntimeTest, MissingKernelSymbol) {
  Artifact artifact = makeAddArtifact();
  artifact.kernels[0].symbol = "no_such_kernel";
  EXPECT_EQ(sessionError(artifact),
            "kernel 'no_such_kernel' is not defined in kernel binary 0");
}

TEST(RuntimeTest, UnknownDriver) {
  Artifact artifact = makeAddArtifact();
  artifact.devices[0].driver = "warp_drive";
  // The list of drivers depends on ORCHESTRA_RUNTIME_DRIVERS; 'cpu' is
  // always first.
  EXPECT_EQ(sessionError(artifact).rfind(
                std::string("device 'cpu0' (") + getTestHostArch() +
                    ") needs the runtime driver 'warp_drive', which this "
                    "runtime was built without (it has 'cpu'",
                0),
            0u);
  // A device the plan does not use needs no driver.
  artifact = makeTwoDeviceArtifact();
  artifact.devices.push_back({"idle", "idle_arch", "warp_drive", 0, 1});
  EXPECT_TRUE(createSession(artifact));
}

// A kernel that names a value in the (empty) arena of a device the plan does
// not use is refused, not run on a null address.
TEST(RuntimeTest, KernelUsesTheMemoryOfAnIdleDevice) {
  Artifact artifact = makeAddArtifact();
  artifact.devices.push_back({"idle", getTestHostArch(), "cpu", 1, 1});
  artifact.memorySpaces.push_back({"idle_dram", 1, 0});
  artifact.values.push_back({1, 0, 0});
  artifact.steps[0].args.push_back(3);
  EXPECT_EQ(sessionError(artifact),
            "step 0 ('add') on device 'cpu0' uses value 3, which is in memory "
            "space 'idle_dram' of device 'idle': its kernel cannot address "
            "it");
}

TEST(RuntimeTest, WrongArch) {
  Artifact artifact = makeAddArtifact();
  artifact.binaries[0].arch = getOtherArch();
  EXPECT_EQ(sessionError(artifact),
            std::string("kernel binary 0 is for arch '") + getOtherArch() +
                "', this machine is '" + getTestHostArch() + "'");
}

TEST(RuntimeTest, MissingCpuFeature) {
  Artifact artifact = makeAddArtifact();
  artifact.binaries[0].requiredFeatures = {"nonexistent_feature", "-avx512f",
                                           "other.missing"};
  EXPECT_EQ(sessionError(artifact),
            "kernel binary 0 needs CPU features this machine lacks: "
            "nonexistent_feature, other.missing");
}

#if defined(__x86_64__)
TEST(RuntimeTest, BaselineCpuFeaturesAreFound) {
  // Every x86-64 machine has these, in LLVM's spelling.
  Artifact artifact = makeAddArtifact();
  artifact.binaries[0].requiredFeatures = {"sse2", "+sse", "64bit", "cx8",
                                           "fxsr"};
  SessionPtr session = createSession(artifact);
  EXPECT_TRUE(session);
}
#endif

TEST(RuntimeTest, UnsupportedFormat) {
  Artifact artifact = makeAddArtifact();
  artifact.binaries[0].format = "cubin";
  EXPECT_EQ(sessionError(artifact),
            "kernel binary 0 has format 'cubin'; this runtime loads only "
            "'elf-shared-object'");
}

TEST(RuntimeTest, GarbageBinary) {
  Artifact artifact = makeAddArtifact();
  artifact.binaries[0].data = {'n', 'o', 't', ' ', 'E', 'L', 'F'};
  std::string error = sessionError(artifact);
  EXPECT_NE(error.find("kernel binary 0 (7 bytes) cannot be loaded: "),
            std::string::npos)
      << error;
}

TEST(RuntimeTest, UnusedBinariesAreNotLoaded) {
  Artifact artifact = makeAddArtifact();
  artifact.binaries.push_back({getOtherArch(), "elf-shared-object", {1}, {}});
  SessionPtr session = createSession(artifact);
  EXPECT_TRUE(session);
}

TEST(RuntimeTest, HugeArenaIsAnError) {
  Artifact artifact = makeCopyArtifact();
  artifact.memorySpaces[0].arenaBytes = ~0ull;
  std::string error = sessionError(artifact);
  EXPECT_NE(error.find("cannot allocate the 18446744073709551615-byte arena "
                       "of memory space 'cpu0_dram'"),
            std::string::npos)
      << error;
  // More than any address space.
  artifact.memorySpaces[0].arenaBytes = 1ull << 62;
  error = sessionError(artifact);
  EXPECT_NE(error.find("cannot allocate the 4611686018427387904-byte arena"),
            std::string::npos)
      << error;
}

// A plan needing more host memory than the machine has is refused when the
// session is made, not killed when it runs (the mapping alone would succeed).
TEST(RuntimeTest, ArenasBeyondTheMachinesMemoryAreAnError) {
  // 2^60 bytes: more than any machine has, less than the address space.
  Artifact artifact = makeCopyArtifact();
  artifact.memorySpaces[0].arenaBytes = 1ull << 60;
  std::string error = sessionError(artifact);
  EXPECT_NE(error.find("cannot allocate the 1152921504606846976-byte arena "
                       "of memory space 'cpu0_dram': with the 0 bytes of "
                       "host arenas already allocated it exceeds "),
            std::string::npos)
      << error;
  std::string tail = " bytes); the plan was compiled for a topology with "
                     "more memory";
  size_t end = error.find(tail);
  size_t begin = error.rfind('(', end);
  ASSERT_TRUE(end != std::string::npos && begin != std::string::npos) << error;
  uint64_t limit = std::stoull(error.substr(begin + 1, end - begin - 1));
  // Each one fits, both together do not: the second session is refused, and
  // once the first is gone its memory counts no more.
  artifact.memorySpaces[0].arenaBytes = limit / 4 * 3;
  SessionPtr first = createSession(artifact);
  ASSERT_TRUE(first);
  error = sessionError(artifact);
  EXPECT_NE(error.find("bytes of host arenas already allocated it exceeds"),
            std::string::npos)
      << error;
  first.reset();
  EXPECT_TRUE(createSession(artifact));
}

TEST(RuntimeTest, DevicesRunConcurrently) {
  SessionPtr session = createSession(makeConcurrentArtifact());
  ASSERT_TRUE(session);
  std::vector<std::vector<float>> outputs = {std::vector<float>(16),
                                             std::vector<float>(16)};
  Status status = runVectors(session.get(), {iota(0), iota(50)}, outputs);
  ASSERT_FALSE(status) << message(status);
  EXPECT_EQ(outputs[0], iota(0));
  EXPECT_EQ(outputs[1], iota(50));
  std::vector<orx_trace_event_t> trace = getTrace(session.get());
  ASSERT_EQ(trace.size(), 2u);
  EXPECT_EQ(trace[0].device, 0u);
  EXPECT_EQ(trace[1].device, 1u);
  for (const orx_trace_event_t &event : trace)
    EXPECT_GE(event.end_ns - event.start_ns, 50u * 1000 * 1000);
  // The two 50 ms intervals overlap.
  EXPECT_LT(std::max(trace[0].start_ns, trace[1].start_ns),
            std::min(trace[0].end_ns, trace[1].end_ns));
}

TEST(RuntimeTest, DependenciesOrderDevices) {
  // The same plan with step 1 waiting for step 0: no overlap.
  Artifact artifact = makeConcurrentArtifact();
  artifact.steps[1].deps = {0};
  SessionPtr session = createSession(artifact);
  ASSERT_TRUE(session);
  std::vector<std::vector<float>> outputs = {std::vector<float>(16),
                                             std::vector<float>(16)};
  Status status = runVectors(session.get(), {iota(0), iota(50)}, outputs);
  ASSERT_FALSE(status) << message(status);
  std::vector<orx_trace_event_t> trace = getTrace(session.get());
  ASSERT_EQ(trace.size(), 2u);
  EXPECT_GE(trace[1].start_ns, trace[0].end_ns);
}

TEST(RuntimeTest, ManySessionsAndRuns) {
  // Sessions load their own copy of the kernels; freeing one leaves the
  // others working, and later sessions load afresh.
  ArtifactPtr artifact = load(makeTwoDeviceArtifact());
  ASSERT_TRUE(artifact);
  for (int round = 0; round < 3; ++round) {
    std::vector<SessionPtr> sessions;
    for (int i = 0; i < 3; ++i) {
      orx_session_t *raw = nullptr;
      Status status{orx_session_create(artifact.get(), &raw)};
      ASSERT_FALSE(status) << message(status);
      sessions.emplace_back(raw);
    }
    sessions.erase(sessions.begin());
    std::vector<std::thread> threads;
    for (SessionPtr &session : sessions) {
      threads.emplace_back([&session] {
        std::vector<std::vector<float>> outputs = {std::vector<float>(16)};
        for (int run = 0; run < 20; ++run) {
          Status status = runVectors(session.get(), {iota(1)}, outputs);
          ASSERT_FALSE(status) << message(status);
          EXPECT_EQ(outputs[0][0], 4.0f);
        }
      });
    }
    for (std::thread &thread : threads)
      thread.join();
  }
}

TEST(RuntimeTest, SessionOutlivesArtifact) {
  ArtifactPtr artifact = load(makeAddArtifact());
  ASSERT_TRUE(artifact);
  orx_session_t *raw = nullptr;
  Status status{orx_session_create(artifact.get(), &raw)};
  ASSERT_FALSE(status) << message(status);
  SessionPtr session(raw);
  artifact.reset();
  std::vector<std::vector<float>> outputs = {std::vector<float>(16)};
  status = runVectors(session.get(), {iota(0), iota(0)}, outputs);
  ASSERT_FALSE(status) << message(status);
  EXPECT_EQ(outputs[0][3], 6.0f);
  std::vector<orx_trace_event_t> trace = getTrace(session.get());
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_STREQ(trace[0].name, "add");
}

} // namespace

// Kernels allocate their scratch buffers through the hooks the runtime sets
// when it loads their binary; freed blocks are reused for the same size.
TEST(RuntimeTest, KernelScratchBuffersAreReused) {
  Artifact a = makeAddArtifact();
  a.entryName = "scratch";
  a.inputs = {vectorDesc("x")};
  a.inputValues = {0};
  a.outputs = {vectorDesc("y")};
  a.outputValues = {1};
  a.values.pop_back();
  a.kernels = {{"scratch_reuse", 0}};
  a.steps = {launch(0, "scratch", 0, {0, 1}, 1)};
  SessionPtr session = createSession(a);
  ASSERT_TRUE(session);
  for (int run = 0; run < 2; ++run) {
    std::vector<std::vector<float>> outputs = {std::vector<float>(16)};
    Status status = runVectors(session.get(), {iota(0)}, outputs);
    ASSERT_FALSE(status) << message(status);
    EXPECT_EQ(outputs[0][0], 1.0f) << "the allocator hooks are not set";
    EXPECT_EQ(outputs[0][1], 1.0f) << "the block is misaligned";
    EXPECT_EQ(outputs[0][2], 1.0f) << "the freed block was not reused";
    EXPECT_EQ(outputs[0][3], 1.0f) << "a block of another size was reused";
  }
}

/// orx_artifact_check_topology's message for `json`, or "" when it accepts.
static std::string topologyError(const Artifact &artifact,
                                 const std::string &json) {
  ArtifactPtr loaded = load(artifact);
  if (!loaded)
    return "artifact did not load";
  Status status{
      orx_artifact_check_topology(loaded.get(), json.data(), json.size())};
  return status ? message(status) : "";
}

TEST(RuntimeTest, TopologyCheck) {
  Artifact artifact = makeTwoDeviceArtifact();
  std::string arch = getTestHostArch();
  std::string devices = "[{\"name\": \"cpu0\", \"arch\": \"" + arch +
                        "\", \"peak_flops\": {\"f32\": 1e11}}, "
                        "{\"name\": \"cpu1\", \"arch\": \"" +
                        arch + "\"}]";
  EXPECT_EQ(topologyError(artifact, "{\"name\": \"two-cpu\", \"devices\": " +
                                        devices + ", \"links\": []}"),
            "");
  EXPECT_EQ(
      topologyError(artifact,
                    "{\"name\": \"other\", \"devices\": " + devices + "}"),
      "the artifact was built for topology 'two-cpu' (devices cpu0:" + arch +
          ", cpu1:" + arch + "), not 'other' (cpu0:" + arch + ", cpu1:" + arch +
          ")");
  EXPECT_EQ(
      topologyError(artifact, "{\"name\": \"two-cpu\", \"devices\": "
                              "[{\"name\": \"cpu0\", \"arch\": \"" +
                                  arch + "\"}]}"),
      "the artifact was built for topology 'two-cpu' (devices cpu0:" + arch +
          ", cpu1:" + arch + "), not 'two-cpu' (cpu0:" + arch + ")");
  // Malformed text: where and what.
  EXPECT_EQ(topologyError(artifact, "{\"name\": \"two-cpu\",\n  \"devices\": "
                                    "[1, }"),
            "line 2, column 18: invalid value");
  EXPECT_EQ(topologyError(artifact, "{\"name\": \"a\\qb\"}"),
            "line 1, column 13: invalid escape in a string");
  EXPECT_EQ(topologyError(artifact, "[]"),
            "not a topology: expected an object with a string 'name' and an "
            "array 'devices'");
  EXPECT_EQ(topologyError(artifact, "{\"name\": \"x\", \"devices\": [{}]}"),
            "not a topology: devices[0] has no string 'name' and 'arch'");
  EXPECT_EQ(topologyError(artifact, "{} {}"),
            "line 1, column 4: unexpected text after the value");
  EXPECT_EQ(topologyError(artifact, "\"abc"),
            "line 1, column 5: unterminated string");
  // Hostile nesting is bounded, not a stack overflow.
  EXPECT_EQ(topologyError(artifact, std::string(100000, '[')),
            "line 1, column 129: nested deeper than 128");
  // Escapes and surrogate pairs decode.
  EXPECT_NE(topologyError(artifact,
                          "{\"name\": \"\\u0074wo-cpu\\ud83d\\ude00\","
                          " \"devices\": []}")
                .find("not 'two-cpu\xf0\x9f\x98\x80' ()"),
            std::string::npos);
}
