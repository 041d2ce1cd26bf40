//===- PjrtBackendTest.cpp - Tests of the runtime's PJRT driver -----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Most of these run against simulated plugins (fake_pjrt.cpp, loaded
// through ORCHESTRA_PJRT_PLUGIN): a working one and one per way a plugin can
// be refused. The last ones run a real StableHLO program on the plugin
// ORCHESTRA_TEST_PJRT_PLUGIN names (by default the one the build found next
// to the PJRT C API header), and are skipped where there is none.
//
//===----------------------------------------------------------------------===//

#include "SessionHelpers.h"
#include "TestArtifacts.h"

#include "orchestra_rt/PjrtBundle.h"
#include "orchestra_rt/orchestra_rt.hpp"

#include "pjrt_c_api.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <unistd.h>

using namespace orx;
using namespace orx::test;

namespace {

constexpr const char *kPluginVariable = "ORCHESTRA_PJRT_PLUGIN";
constexpr const char *kArch = "test_pjrt";

/// Sets (or, with null, unsets) an environment variable for its lifetime,
/// then restores it.
class EnvOverride {
public:
  EnvOverride(const char *name, const char *value) : name(name) {
    const char *old = std::getenv(name);
    hadPrevious = old != nullptr;
    if (old)
      previous = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~EnvOverride() {
    if (hadPrevious)
      ::setenv(name, previous.c_str(), 1);
    else
      ::unsetenv(name);
  }

private:
  const char *name;
  std::string previous;
  bool hadPrevious = false;
};

/// The control functions of the simulated plugin, which the runtime loads
/// from the same path (so both see one copy of the library).
struct FakePjrt {
  void (*configure)(const char *key, long long value) = nullptr;
  long long (*query)(const char *key) = nullptr;

  static FakePjrt &get() {
    static FakePjrt fake = [] {
      FakePjrt result;
      void *handle = ::dlopen(ORX_FAKE_PJRT_PATH, RTLD_NOW | RTLD_LOCAL);
      if (!handle)
        return result;
      result.configure = reinterpret_cast<decltype(result.configure)>(
          ::dlsym(handle, "orx_fake_pjrt_configure"));
      result.query = reinterpret_cast<decltype(result.query)>(
          ::dlsym(handle, "orx_fake_pjrt_query"));
      return result;
    }();
    return fake;
  }
};

/// Sets a configuration key of the simulated plugin for its lifetime.
class FakeSetting {
public:
  FakeSetting(const char *key, long long value, long long restore)
      : key(key), restore(restore) {
    FakePjrt::get().configure(key, value);
  }
  ~FakeSetting() { FakePjrt::get().configure(key, restore); }

private:
  const char *key;
  long long restore;
};

PjrtTensorDesc f32(std::vector<int64_t> dims) {
  return {DType::F32, std::move(dims)};
}

/// A bundle with kernel orx_kernel_add running `program` on two f32[16]
/// arguments into one f32[16] result.
PjrtBundle makeBundle(const std::string &program,
                      const std::string &plugin = "") {
  PjrtBundle bundle;
  bundle.plugin = plugin;
  bundle.platform = "fake";
  PjrtKernelDesc add;
  add.symbol = "orx_kernel_add";
  add.programFormat = kPjrtMlirProgramFormat;
  add.program.assign(program.begin(), program.end());
  int64_t n = static_cast<int64_t>(kVectorLength);
  add.args = {f32({n}), f32({n})};
  add.results = {f32({n})};
  bundle.kernels = {add};
  return bundle;
}

BinaryDesc bundleBinary(const PjrtBundle &bundle) {
  return {kArch, kPjrtBundleFormat, serializePjrtBundle(bundle), {}};
}

/// One PJRT device: c = a + b by kernel orx_kernel_add of `bundle`.
Artifact makePjrtArtifact(const PjrtBundle &bundle, uint32_t deviceId = 0) {
  Artifact a;
  a.producer = "runtime unit tests";
  a.topologyName = "pjrt";
  a.devices = {{"accel0", kArch, "pjrt", deviceId, 1}};
  a.memorySpaces = {{"accel0_mem", 0, 3 * kVectorBytes}};
  a.entryName = "add";
  a.inputs = {vectorDesc("a"), vectorDesc("b")};
  a.inputValues = {0, 1};
  a.outputs = {vectorDesc("c")};
  a.outputValues = {2};
  a.values = {{0, 0, kVectorBytes},
              {0, kVectorBytes, kVectorBytes},
              {0, 2 * kVectorBytes, kVectorBytes}};
  a.binaries = {bundleBinary(bundle)};
  a.kernels = {{"orx_kernel_add", 0}};
  a.steps = {launch(0, "add", 0, {0, 1, 2}, 2)};
  return a;
}

long long fakeCount(const char *key) { return FakePjrt::get().query(key); }

/// "the PJRT plugin '<path>' (C API 0.81)" for the working fake.
std::string fakeDescription() {
  return "PJRT plugin '" + std::string(ORX_FAKE_PJRT_PATH) + "' (C API 0." +
         std::to_string(PJRT_API_MINOR) + ")";
}

class PjrtFakeTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NE(FakePjrt::get().configure, nullptr)
        << "cannot load " << ORX_FAKE_PJRT_PATH << ": " << ::dlerror();
  }

  EnvOverride plugin{kPluginVariable, ORX_FAKE_PJRT_PATH};
};

//===----------------------------------------------------------------------===//
// Running through the simulated plugin
//===----------------------------------------------------------------------===//

TEST_F(PjrtFakeTest, RunsTheProgram) {
  long long compiles = fakeCount("compiles");
  {
    SessionPtr session = createSession(makePjrtArtifact(makeBundle("add")));
    ASSERT_TRUE(session);
    // Compiled once, when the session is created, with the default options
    // (one replica, one partition, portable).
    EXPECT_EQ(fakeCount("compiles"), compiles + 1);
    EXPECT_EQ(fakeCount("last_options_size"), 8);
    EXPECT_EQ(fakeCount("live_clients"), 1);
    for (float start : {1.0f, 100.0f}) {
      std::vector<std::vector<float>> outputs = {
          std::vector<float>(kVectorLength)};
      Status status =
          runVectors(session.get(), {iota(start), iota(0)}, outputs);
      ASSERT_FALSE(status) << message(status);
      for (size_t i = 0; i < kVectorLength; ++i)
        EXPECT_EQ(outputs[0][i], start + 2 * static_cast<float>(i));
      // Each launch releases its device buffers and events.
      EXPECT_EQ(fakeCount("live_buffers"), 0);
      EXPECT_EQ(fakeCount("live_events"), 0);
      EXPECT_EQ(fakeCount("last_device"), 0);
    }
    EXPECT_EQ(fakeCount("compiles"), compiles + 1);
  }
  EXPECT_EQ(fakeCount("live_executables"), 0);
  EXPECT_EQ(fakeCount("live_clients"), 0);
}

/// A TPU executable compiled ahead of time is loaded on a TPU instead of
/// compiling the program; one the plugin refuses (another libtpu) falls back
/// to the program; another platform never loads one.
TEST_F(PjrtFakeTest, LoadsTpuExecutablesOnATpu) {
  auto runOnce = [](const PjrtBundle &bundle) {
    SessionPtr session = createSession(makePjrtArtifact(bundle));
    ASSERT_TRUE(session);
    std::vector<std::vector<float>> outputs = {
        std::vector<float>(kVectorLength)};
    Status status = runVectors(session.get(), {iota(1), iota(2)}, outputs);
    ASSERT_FALSE(status) << message(status);
    EXPECT_EQ(outputs[0][3], 4.0f + 5.0f);
  };
  auto withExecutable = [](const std::string &bytes) {
    PjrtBundle bundle = makeBundle("add");
    bundle.kernels[0].aotFormat =
        std::string(kPjrtExecutableFormatPrefix) + "tpu";
    bundle.kernels[0].aotBinary.assign(bytes.begin(), bytes.end());
    return bundle;
  };
  long long compiles = fakeCount("compiles");
  long long loads = fakeCount("deserializations");
  {
    FakeSetting tpu("platform_tpu", 1, 0);
    runOnce(withExecutable("executable: add"));
    EXPECT_EQ(fakeCount("deserializations"), loads + 1);
    EXPECT_EQ(fakeCount("compiles"), compiles);
    runOnce(withExecutable("an executable of another libtpu"));
    EXPECT_EQ(fakeCount("deserializations"), loads + 1);
    EXPECT_EQ(fakeCount("compiles"), compiles + 1);
  }
  runOnce(withExecutable("executable: add"));
  EXPECT_EQ(fakeCount("deserializations"), loads + 1);
  EXPECT_EQ(fakeCount("compiles"), compiles + 2);
  EXPECT_EQ(fakeCount("live_executables"), 0);
}

TEST_F(PjrtFakeTest, PassesTheBundlesCompileOptions) {
  PjrtBundle bundle = makeBundle("add");
  bundle.kernels[0].compileOptions = std::vector<uint8_t>(10, 0);
  SessionPtr session = createSession(makePjrtArtifact(bundle));
  ASSERT_TRUE(session);
  EXPECT_EQ(fakeCount("last_options_size"), 10);
}

TEST_F(PjrtFakeTest, RunsOnTheDeviceItNames) {
  SessionPtr session = createSession(makePjrtArtifact(makeBundle("add"), 1));
  ASSERT_TRUE(session);
  std::vector<std::vector<float>> outputs = {std::vector<float>(kVectorLength)};
  Status status = runVectors(session.get(), {iota(1), iota(2)}, outputs);
  ASSERT_FALSE(status) << message(status);
  EXPECT_EQ(fakeCount("last_device"), 1);
  EXPECT_EQ(outputs[0][3], 4.0f + 5.0f);
}

TEST_F(PjrtFakeTest, DevicesShareOneClient) {
  Artifact a = makePjrtArtifact(makeBundle("add"));
  a.devices.push_back({"accel1", kArch, "pjrt", 1, 1});
  a.memorySpaces.push_back({"accel1_mem", 1, kVectorBytes});
  a.values.push_back({1, 0, kVectorBytes});
  a.outputs.push_back(vectorDesc("d"));
  a.outputValues.push_back(3);
  // accel1 adds a to c, which it reads from accel0's host memory.
  a.steps.push_back(launch(1, "add_again", 0, {0, 2, 3}, 2, {0}));
  SessionPtr session = createSession(a);
  ASSERT_TRUE(session);
  EXPECT_EQ(fakeCount("live_clients"), 1);
  std::vector<std::vector<float>> outputs = {std::vector<float>(kVectorLength),
                                             std::vector<float>(kVectorLength)};
  Status status = runVectors(session.get(), {iota(1), iota(10)}, outputs);
  ASSERT_FALSE(status) << message(status);
  EXPECT_EQ(outputs[1][2], 3.0f + (3.0f + 12.0f));
}

TEST_F(PjrtFakeTest, SharesHostMemoryWithTheCpu) {
  // accel0 computes c = a + b in its arena; cpu0 reads c there (both are
  // host memory, so the plan needs no copy) and computes d = 2 * c.
  Artifact a = makePjrtArtifact(makeBundle("add"));
  a.devices.push_back({"cpu0", getTestHostArch(), "cpu", 0, 1});
  a.memorySpaces.push_back({"cpu0_dram", 1, kVectorBytes});
  a.values.push_back({1, 0, kVectorBytes});
  a.outputs = {vectorDesc("d")};
  a.outputValues = {3};
  a.binaries.push_back(hostBinary());
  a.kernels.push_back({"scale2", 1});
  a.steps.push_back(launch(1, "scale", 1, {2, 3}, 1, {0}));
  SessionPtr session = createSession(a);
  ASSERT_TRUE(session);
  std::vector<std::vector<float>> outputs = {std::vector<float>(kVectorLength)};
  Status status = runVectors(session.get(), {iota(1), iota(0)}, outputs);
  ASSERT_FALSE(status) << message(status);
  for (size_t i = 0; i < kVectorLength; ++i)
    EXPECT_EQ(outputs[0][i], 2 * (1 + 2 * static_cast<float>(i)));
}

TEST_F(PjrtFakeTest, IdleDevicesNeedNoPlugin) {
  EnvOverride missing(kPluginVariable, "/nonexistent/pjrt_plugin.so");
  Artifact a = makeAddArtifact();
  a.devices.push_back({"accel0", kArch, "pjrt", 0, 1});
  SessionPtr session = createSession(a);
  EXPECT_TRUE(session);
}

TEST_F(PjrtFakeTest, PluginNamedByTheBundle) {
  EnvOverride unset(kPluginVariable, nullptr);
  SessionPtr session =
      createSession(makePjrtArtifact(makeBundle("add", ORX_FAKE_PJRT_PATH)));
  EXPECT_TRUE(session);
  // The variable wins over the bundle.
  EnvOverride missing(kPluginVariable, "/nonexistent/pjrt_plugin.so");
  EXPECT_NE(
      sessionError(makePjrtArtifact(makeBundle("add", ORX_FAKE_PJRT_PATH)))
          .find("/nonexistent/pjrt_plugin.so"),
      std::string::npos);
}

//===----------------------------------------------------------------------===//
// Refused plugins
//===----------------------------------------------------------------------===//

TEST_F(PjrtFakeTest, NoPluginNamed) {
  EnvOverride unset(kPluginVariable, nullptr);
  EXPECT_EQ(sessionError(makePjrtArtifact(makeBundle("add"))),
            "device 'accel0' (test_pjrt) names no PJRT plugin: set "
            "ORCHESTRA_PJRT_PLUGIN to the path of one");
}

TEST_F(PjrtFakeTest, MissingPlugin) {
  EnvOverride missing(kPluginVariable, "/nonexistent/pjrt_plugin.so");
  std::string error = sessionError(makePjrtArtifact(makeBundle("add")));
  EXPECT_EQ(
      error.rfind("cannot open the PJRT plugin '/nonexistent/pjrt_plugin.so' (",
                  0),
      0u)
      << error;
  EXPECT_NE(error.find("); device 'accel0' (test_pjrt) needs it"),
            std::string::npos)
      << error;
}

TEST_F(PjrtFakeTest, NotAPlugin) {
  EnvOverride other(kPluginVariable, ORX_TEST_KERNELS_PATH);
  EXPECT_EQ(sessionError(makePjrtArtifact(makeBundle("add"))),
            "'" + std::string(ORX_TEST_KERNELS_PATH) +
                "' is not a PJRT plugin: it does not export GetPjrtApi; "
                "device 'accel0' (test_pjrt) cannot use it");
}

TEST_F(PjrtFakeTest, OtherMajorVersion) {
  EnvOverride other(kPluginVariable, ORX_FAKE_PJRT_MAJOR_PATH);
  EXPECT_EQ(sessionError(makePjrtArtifact(makeBundle("add"))),
            "the PJRT plugin '" + std::string(ORX_FAKE_PJRT_MAJOR_PATH) +
                "' implements PJRT C API 1." + std::to_string(PJRT_API_MINOR) +
                ", this runtime reads 0.57 and later minor versions of major "
                "version 0; device 'accel0' (test_pjrt) cannot use it");
}

TEST_F(PjrtFakeTest, TooOldMinorVersion) {
  EnvOverride other(kPluginVariable, ORX_FAKE_PJRT_OLD_PATH);
  EXPECT_EQ(sessionError(makePjrtArtifact(makeBundle("add"))),
            "the PJRT plugin '" + std::string(ORX_FAKE_PJRT_OLD_PATH) +
                "' implements PJRT C API 0.40, this runtime reads 0.57 and "
                "later minor versions of major version 0; device 'accel0' "
                "(test_pjrt) cannot use it");
}

TEST_F(PjrtFakeTest, ShortFunctionTable) {
  // A plugin older than the header: its table ends before the functions
  // the driver calls last.
  EnvOverride other(kPluginVariable, ORX_FAKE_PJRT_SHORT_PATH);
  EXPECT_EQ(sessionError(makePjrtArtifact(makeBundle("add"))),
            "the PJRT plugin '" + std::string(ORX_FAKE_PJRT_SHORT_PATH) +
                "' (PJRT C API 0." + std::to_string(PJRT_API_MINOR) +
                ") lacks PJRT_Buffer_ToHostBuffer; device 'accel0' "
                "(test_pjrt) cannot use it");
}

TEST_F(PjrtFakeTest, InitializationFails) {
  EnvOverride other(kPluginVariable, ORX_FAKE_PJRT_INIT_PATH);
  std::string expected =
      "the PJRT plugin '" + std::string(ORX_FAKE_PJRT_INIT_PATH) +
      "': PJRT_Plugin_Initialize failed: fake plugin: cannot initialise; "
      "device 'accel0' (test_pjrt) cannot use it";
  EXPECT_EQ(sessionError(makePjrtArtifact(makeBundle("add"))), expected);
  // The plugin is initialised once per process: the failure stays.
  EXPECT_EQ(sessionError(makePjrtArtifact(makeBundle("add"))), expected);
}

TEST_F(PjrtFakeTest, NoDevice) {
  {
    FakeSetting noClient("fail_client_create", 1, 0);
    EXPECT_EQ(sessionError(makePjrtArtifact(makeBundle("add"))),
              "no device found: " + fakeDescription() +
                  ": PJRT_Client_Create failed: fake plugin: no devices "
                  "found; device 'accel0' (test_pjrt) needs a device of the "
                  "plugin's platform");
  }
  {
    FakeSetting none("num_devices", 0, 2);
    EXPECT_EQ(sessionError(makePjrtArtifact(makeBundle("add"))),
              "no device found: the fake client of the " + fakeDescription() +
                  " has no device this process can use; device 'accel0' "
                  "(test_pjrt) needs one");
  }
  EXPECT_EQ(fakeCount("live_clients"), 0);
  // Clients are created again once devices come back.
  EXPECT_TRUE(createSession(makePjrtArtifact(makeBundle("add"))));
}

TEST_F(PjrtFakeTest, DeviceOutOfRange) {
  EXPECT_EQ(sessionError(makePjrtArtifact(makeBundle("add"), 2)),
            "device 'accel0' (test_pjrt) is PJRT device 2, but the fake "
            "client of the " +
                fakeDescription() + " has 2 devices (0-1)");
}

//===----------------------------------------------------------------------===//
// Refused kernels
//===----------------------------------------------------------------------===//

TEST_F(PjrtFakeTest, CompileError) {
  EXPECT_EQ(
      sessionError(makePjrtArtifact(makeBundle("error: expected ')' here"))),
      "cannot compile kernel 'orx_kernel_add' of kernel binary 0 for device "
      "'accel0' (test_pjrt) with the " +
          fakeDescription() +
          ": PJRT_Client_Compile failed: expected ')' here (the plugin reads "
          "StableHLO up to 1.2.3)");
  EXPECT_EQ(fakeCount("live_executables"), 0);
}

TEST_F(PjrtFakeTest, ResultCountMismatch) {
  EXPECT_EQ(sessionError(makePjrtArtifact(makeBundle("two_results"))),
            "kernel 'orx_kernel_add' of kernel binary 0 declares 1 result, "
            "but its program returns 2");
  EXPECT_EQ(fakeCount("live_executables"), 0);
}

TEST_F(PjrtFakeTest, ValueCountMismatch) {
  PjrtBundle bundle = makeBundle("add");
  bundle.kernels[0].args.pop_back();
  EXPECT_EQ(sessionError(makePjrtArtifact(bundle)),
            "step 0 ('add') passes 3 values to kernel 'orx_kernel_add', whose "
            "program takes 1 argument and returns 1 result");
}

TEST_F(PjrtFakeTest, ResultSizeMismatch) {
  SessionPtr session = createSession(makePjrtArtifact(makeBundle("add_wide")));
  ASSERT_TRUE(session);
  std::vector<std::vector<float>> outputs = {std::vector<float>(kVectorLength)};
  Status status = runVectors(session.get(), {iota(1), iota(2)}, outputs);
  ASSERT_TRUE(status);
  EXPECT_EQ(message(status),
            "step 0 ('add') failed: kernel 'orx_kernel_add' on device 'accel0' "
            "(test_pjrt): result 0 has 128 bytes, but kernel 'orx_kernel_add' "
            "declares 64");
  EXPECT_EQ(fakeCount("live_buffers"), 0);
  EXPECT_EQ(fakeCount("live_events"), 0);
}

TEST_F(PjrtFakeTest, UndefinedKernel) {
  Artifact a = makePjrtArtifact(makeBundle("add"));
  a.kernels[0].symbol = "orx_kernel_other";
  EXPECT_EQ(sessionError(a), "kernel 'orx_kernel_other' is not defined in "
                             "kernel binary 0");
}

TEST_F(PjrtFakeTest, OtherBinaryFormats) {
  Artifact a = makePjrtArtifact(makeBundle("add"));
  a.binaries = {hostBinary()};
  a.binaries[0].arch = kArch;
  EXPECT_EQ(sessionError(a),
            "step 0 ('add') runs on device 'accel0' (test_pjrt), but its "
            "kernel 'orx_kernel_add' is in kernel binary 0 of format "
            "'elf-shared-object', not a PJRT program bundle");

  // A CPU does not run PJRT programs.
  Artifact b = makeAddArtifact();
  b.binaries = {bundleBinary(makeBundle("add"))};
  b.kernels[0].symbol = "orx_kernel_add";
  EXPECT_EQ(sessionError(b),
            "step 0 ('add') runs on device 'cpu0' (" +
                std::string(getTestHostArch()) +
                "), but its kernel 'orx_kernel_add' is in kernel binary 0, a "
                "PJRT program bundle for 'test_pjrt'");
}

TEST_F(PjrtFakeTest, CorruptBundle) {
  Artifact a = makePjrtArtifact(makeBundle("add"));
  a.binaries[0].data.resize(20);
  std::string error = sessionError(a);
  EXPECT_EQ(error.rfind("kernel binary 0 (20 bytes) is invalid: PJRT program "
                        "bundle: ",
                        0),
            0u)
      << error;
}

//===----------------------------------------------------------------------===//
// A real plugin
//===----------------------------------------------------------------------===//

/// The plugin to run real programs on: $ORCHESTRA_TEST_PJRT_PLUGIN, else the
/// one the build found; empty when neither exists.
std::string getRealPlugin() {
  const char *named = std::getenv("ORCHESTRA_TEST_PJRT_PLUGIN");
  std::string path = named && *named ? named : ORX_TEST_PJRT_PLUGIN_PATH;
  if (path.empty() || ::access(path.c_str(), R_OK) != 0)
    return {};
  return path;
}

/// y[4x4] = x[4x8] . w[8x4] + b[4x4], as StableHLO text.
constexpr const char *kMatmulAddProgram = R"(
module @matmul_add {
  func.func public @main(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>,
                         %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0]
        : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %1 = stablehlo.add %0, %b : tensor<4x4xf32>
    return %1 : tensor<4x4xf32>
  }
}
)";

/// One PJRT device running kMatmulAddProgram (or `program`) with `plugin`.
Artifact makeMatmulAddArtifact(const std::string &plugin, uint32_t deviceId,
                               const std::string &program = kMatmulAddProgram) {
  PjrtBundle bundle;
  bundle.plugin = plugin;
  bundle.platform = "cpu";
  PjrtKernelDesc kernel;
  kernel.symbol = "orx_kernel_matmul_add";
  kernel.programFormat = kPjrtMlirProgramFormat;
  kernel.program.assign(program.begin(), program.end());
  kernel.args = {f32({4, 8}), f32({8, 4}), f32({4, 4})};
  kernel.results = {f32({4, 4})};
  bundle.kernels = {kernel};

  Artifact a;
  a.producer = "runtime unit tests";
  a.topologyName = "pjrt";
  a.devices = {{"accel0", kArch, "pjrt", deviceId, 1}};
  a.memorySpaces = {{"accel0_mem", 0, (32 + 32 + 16 + 16) * sizeof(float)}};
  a.entryName = "matmul_add";
  a.inputs = {{"x", DType::F32, {4, 8}},
              {"w", DType::F32, {8, 4}},
              {"b", DType::F32, {4, 4}}};
  a.inputValues = {0, 1, 2};
  a.outputs = {{"y", DType::F32, {4, 4}}};
  a.outputValues = {3};
  a.values = {{0, 0, 128}, {0, 128, 128}, {0, 256, 64}, {0, 320, 64}};
  a.binaries = {bundleBinary(bundle)};
  a.kernels = {{"orx_kernel_matmul_add", 0}};
  a.steps = {launch(0, "matmul_add", 0, {0, 1, 2, 3}, 3)};
  return a;
}

class PjrtRealPluginTest : public ::testing::TestWithParam<uint32_t> {
protected:
  void SetUp() override {
    plugin = getRealPlugin();
    if (plugin.empty())
      GTEST_SKIP() << "no PJRT plugin to run programs on (set "
                      "ORCHESTRA_TEST_PJRT_PLUGIN to one, or build with "
                      "ORCHESTRA_TEST_PJRT_PLUGIN)";
  }

  /// The bundle names the plugin; the variable must not override it.
  EnvOverride unset{kPluginVariable, nullptr};
  std::string plugin;
};

TEST_P(PjrtRealPluginTest, MatmulAdd) {
  ArtifactPtr artifact = load(makeMatmulAddArtifact(plugin, GetParam()));
  orx_session_t *raw = nullptr;
  Status created{orx_session_create(artifact.get(), &raw)};
  SessionPtr session(raw);
  // How many devices a plugin has depends on the machine.
  if (created && GetParam() > 0 &&
      message(created).find("is PJRT device " + std::to_string(GetParam()) +
                            ", but") != std::string::npos)
    GTEST_SKIP() << message(created);
  ASSERT_FALSE(created) << message(created);
  std::vector<float> x(32), w(32), b(16);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(i) / 8.0f;
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = static_cast<float>(i % 4) - 0.25f * static_cast<float>(i / 4);
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = 0.5f * static_cast<float>(i);
  for (int iteration = 0; iteration < 2; ++iteration) {
    std::vector<std::vector<float>> outputs = {std::vector<float>(16)};
    Status status = runVectors(session.get(), {x, w, b}, outputs);
    ASSERT_FALSE(status) << message(status);
    for (size_t i = 0; i < 4; ++i) {
      for (size_t j = 0; j < 4; ++j) {
        float expected = b[i * 4 + j];
        for (size_t k = 0; k < 8; ++k)
          expected += x[i * 8 + k] * w[k * 4 + j];
        // f32: atol 1e-4 / rtol 1e-4.
        EXPECT_NEAR(outputs[0][i * 4 + j], expected,
                    1e-4f + 1e-4f * std::fabs(expected))
            << "y[" << i << "][" << j << "]";
      }
    }
    // The next run sees other inputs.
    for (float &value : b)
      value += 1.0f;
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, PjrtRealPluginTest, ::testing::Values(0, 1));

TEST(PjrtRealPluginErrorTest, CompileError) {
  std::string plugin = getRealPlugin();
  if (plugin.empty())
    GTEST_SKIP() << "no PJRT plugin to run programs on";
  EnvOverride unset(kPluginVariable, nullptr);
  std::string error =
      sessionError(makeMatmulAddArtifact(plugin, 0, "func.func @main( {"));
  EXPECT_EQ(error.rfind("cannot compile kernel 'orx_kernel_matmul_add' of "
                        "kernel binary 0 for device 'accel0' (test_pjrt) "
                        "with the PJRT plugin '" +
                            plugin + "'",
                        0),
            0u)
      << error;
  EXPECT_NE(error.find(": PJRT_Client_Compile failed: "), std::string::npos)
      << error;
}

} // namespace
