//===- HipBackendTest.cpp - Tests of the runtime's HIP driver -------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// These run without an AMD GPU: ORCHESTRA_HIP_RUNTIME points the runtime at
// a missing library, at Debian's HIP runtime (which finds no GPU here), or at
// a simulated one (fake_hip.cpp) whose streams run their work only when
// waited for, so that the tests see missing synchronisation.
//
//===----------------------------------------------------------------------===//

#include "GpuTestArtifacts.h"
#include "orchestra_rt/orchestra_rt.hpp"

#include "gtest/gtest.h"

#include <string>
#include <vector>

#include <dlfcn.h>

using namespace orx;
using namespace orx::test;

namespace {

constexpr const char *kRuntimeVariable = "ORCHESTRA_HIP_RUNTIME";

/// Points the runtime at another HIP runtime library for its lifetime.
struct RuntimeOverride : EnvironmentOverride {
  explicit RuntimeOverride(const char *path)
      : EnvironmentOverride(kRuntimeVariable, path) {}
};

//===----------------------------------------------------------------------===//
// Without a usable runtime
//===----------------------------------------------------------------------===//

TEST(HipRuntimeTest, NoRuntimeLibrary) {
  RuntimeOverride runtime("/nonexistent/libamdhip64.so.6");
  std::string error = sessionError(makeCpuGpuArtifact(hipGpu()));
  EXPECT_EQ(
      error.rfind("no HIP runtime found (/nonexistent/libamdhip64.so.6: ", 0),
      0u)
      << error;
  EXPECT_NE(error.find("); device 'gpu0' (amd_cdna3) needs an AMD GPU and "
                       "ROCm's HIP runtime"),
            std::string::npos)
      << error;
}

TEST(HipRuntimeTest, NoDevice) {
  RuntimeOverride runtime(ORX_FAKE_HIP_NODEVICE_PATH);
  EXPECT_EQ(sessionError(makeCpuGpuArtifact(hipGpu())),
            "no HIP device found (hipInit failed: hipErrorNoDevice (no "
            "ROCm-capable device is detected)); device 'gpu0' (amd_cdna3) "
            "needs an AMD GPU");
}

// Debian's HIP runtime (libamdhip64-5, installed by scripts/setup.sh) on a
// machine without an AMD GPU: it loads, and refuses.
TEST(HipRuntimeTest, RealRuntimeWithoutDevice) {
  void *library = ::dlopen("libamdhip64.so.5", RTLD_NOW | RTLD_LOCAL);
  if (!library)
    GTEST_SKIP() << "libamdhip64.so.5 is not installed: " << ::dlerror();
  RuntimeOverride runtime("libamdhip64.so.5");
  std::string error = sessionError(makeCpuGpuArtifact(hipGpu()));
  EXPECT_EQ(error.rfind("no HIP device found (hip", 0), 0u) << error;
  EXPECT_NE(error.find("device 'gpu0' (amd_cdna3) needs an AMD GPU"),
            std::string::npos)
      << error;
}

//===----------------------------------------------------------------------===//
// With the simulated runtime
//===----------------------------------------------------------------------===//

class HipBackendTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(fake.loaded())
        << "cannot load " << ORX_FAKE_HIP_PATH << ": " << ::dlerror();
    fake.configure("reset", 0);
  }

  /// Checks that every object the runtime made in the runtime is gone.
  void expectAllReleased() {
    for (const char *object :
         {"allocations", "pinned", "streams", "events", "modules"})
      EXPECT_EQ(fake.query(object), 0) << object;
  }

  static FakeGpuControl &getFake() {
    static FakeGpuControl control(ORX_FAKE_HIP_PATH);
    return control;
  }

  FakeGpuControl &fake = getFake();
  RuntimeOverride runtime{ORX_FAKE_HIP_PATH};
};

TEST_F(HipBackendTest, CpuAndGpu) {
  // The application's thread has device 1 current; sessions on device 0
  // leave it so.
  fake.configure("device_count", 2);
  void *library = ::dlopen(ORX_FAKE_HIP_PATH, RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(library);
  auto setDevice =
      reinterpret_cast<int (*)(int)>(::dlsym(library, "hipSetDevice"));
  auto getDevice =
      reinterpret_cast<int (*)(int *)>(::dlsym(library, "hipGetDevice"));
  ASSERT_TRUE(setDevice && getDevice);
  ASSERT_EQ(setDevice(1), 0);
  auto currentDevice = [&] {
    int device = -1;
    getDevice(&device);
    return device;
  };
  {
    SessionPtr session = createSession(makeCpuGpuArtifact(hipGpu()));
    ASSERT_TRUE(session);
    // Per GPU step, the event streams wait for and two timing events.
    EXPECT_EQ(fake.query("streams"), 3);
    EXPECT_EQ(fake.query("events"), 12);
    EXPECT_EQ(fake.query("modules"), 1);
    EXPECT_EQ(fake.query("pinned"), 1);
    EXPECT_EQ(currentDevice(), 1)
        << "session creation changed the caller's device";

    for (float start : {0.0f, 10.0f}) {
      std::vector<float> a = iota(start), b = iota(start * 2);
      std::vector<std::vector<float>> outputs(
          1, std::vector<float>(kVectorLength));
      Status status = runVectors(session.get(), {a, b}, outputs);
      ASSERT_FALSE(status) << message(status);
      EXPECT_EQ(outputs[0], expectedCpuGpu(a, b));
    }
    EXPECT_EQ(currentDevice(), 1) << "a run changed the caller's device";
    EXPECT_EQ(fake.query("launches"), 6);
    EXPECT_EQ(fake.query("stream_waits"), 4);
    EXPECT_EQ(fake.query("pageable_async_copies"), 0);
    EXPECT_EQ(fake.query("elapsed_times"), 8); // 4 GPU steps, 2 runs
  }
  expectAllReleased();
}

// A select step on a GPU's queue: the condition read from device memory
// after the GPU's kernel, the chosen values copied by the GPU.
TEST_F(HipBackendTest, SelectInDeviceMemory) {
  {
    SessionPtr session = createSession(makeGpuSelectArtifact(hipGpu()));
    ASSERT_TRUE(session);
    expectGpuSelects(session.get());
  }
  expectAllReleased();
}

TEST_F(HipBackendTest, TwoGpusWithPeerCopy) {
  fake.configure("device_count", 2);
  {
    SessionPtr session = createSession(makeTwoGpuArtifact(hipGpu()));
    ASSERT_TRUE(session);
    std::vector<float> x = iota(1), y = iota(2);
    std::vector<std::vector<float>> outputs(1,
                                            std::vector<float>(kVectorLength));
    Status status = runVectors(session.get(), {x, y}, outputs);
    ASSERT_FALSE(status) << message(status);
    for (size_t i = 0; i < kVectorLength; ++i)
      EXPECT_EQ(outputs[0][i], 2 * (x[i] + y[i]));
    EXPECT_EQ(fake.query("peer_copies"), 1);
    EXPECT_EQ(fake.query("stream_waits"), 2);
  }
  expectAllReleased();
}

// A CUDA GPU and an AMD GPU in one plan: neither driver reaches the other's
// memory, so the session copies through a host buffer (each side with its
// own driver), and the AMD GPU's queue waits for the CUDA GPU's kernel on the
// host.
TEST_F(HipBackendTest, CudaAndHipGpus) {
  FakeGpuControl cuda(ORX_FAKE_CUDA_PATH);
  ASSERT_TRUE(cuda.loaded());
  cuda.configure("reset", 0);
  EnvironmentOverride cudaDriver("ORCHESTRA_CUDA_DRIVER", ORX_FAKE_CUDA_PATH);
  FakeGpu amd = hipGpu();
  // Counted over the process ("reset" leaves them).
  long long peerCopies = cuda.query("peer_copies") + fake.query("peer_copies");
  {
    SessionPtr session = createSession(makeTwoGpuArtifact(cudaGpu(), &amd));
    ASSERT_TRUE(session);
    for (float start : {1.0f, 5.0f}) {
      std::vector<float> x = iota(start), y = iota(2 * start);
      std::vector<std::vector<float>> outputs(
          1, std::vector<float>(kVectorLength));
      Status status = runVectors(session.get(), {x, y}, outputs);
      ASSERT_FALSE(status) << message(status);
      for (size_t i = 0; i < kVectorLength; ++i)
        EXPECT_EQ(outputs[0][i], 2 * (x[i] + y[i]));
    }
    EXPECT_EQ(cuda.query("launches"), 2);
    EXPECT_EQ(fake.query("launches"), 2);
    EXPECT_EQ(cuda.query("peer_copies") + fake.query("peer_copies"),
              peerCopies);
  }
  expectAllReleased();
  for (const char *object :
       {"allocations", "pinned", "streams", "events", "modules", "retains"})
    EXPECT_EQ(cuda.query(object), 0) << object;
}

TEST_F(HipBackendTest, ModuleLoadFailure) {
  fake.configure("reject_hsaco", 1);
  EXPECT_EQ(sessionError(makeCpuGpuArtifact(hipGpu())),
            "cannot load module 'main' of kernel binary 1 (built for gfx942) "
            "on device 'gpu0' (amd_cdna3, HIP device 0: Fake GPU 0): its "
            "hsaco: hipModuleLoadData failed: hipErrorNoBinaryForGpu (no "
            "kernel image is available for execution on the device)");
  expectAllReleased();

  // A bundle for the other vendor.
  FakeGpu gpu = hipGpu();
  gpu.images = cudaGpu().images;
  EXPECT_EQ(sessionError(makeCpuGpuArtifact(gpu)),
            "cannot load module 'main' of kernel binary 1 (built for gfx942) "
            "on device 'gpu0' (amd_cdna3, HIP device 0: Fake GPU 0): it has "
            "no hsaco image");
  expectAllReleased();
}

TEST_F(HipBackendTest, DeviceOrdinalOutOfRange) {
  fake.configure("device_count", 2);
  Artifact artifact = makeCpuGpuArtifact(hipGpu());
  artifact.devices[1].deviceId = 2;
  EXPECT_EQ(sessionError(artifact),
            "device 'gpu0' (amd_cdna3) is HIP device 2, but this machine has "
            "2 HIP devices (0-1)");
  expectAllReleased();
}

TEST_F(HipBackendTest, DeviceMemoryExhausted) {
  Artifact artifact = makeCpuGpuArtifact(hipGpu());
  artifact.memorySpaces[1].arenaBytes = 1ull << 41;
  EXPECT_EQ(sessionError(artifact),
            "cannot allocate the 2199023255552-byte arena of memory space "
            "'gpu0_hbm' on device 'gpu0' (amd_cdna3, HIP device 0: Fake GPU "
            "0): hipMalloc failed: hipErrorOutOfMemory (out of memory)");
  expectAllReleased();
}

TEST_F(HipBackendTest, FunctionNotInModule) {
  Artifact artifact = makeCpuGpuArtifact(hipGpu());
  GpuBundle bundle = makeFakeBundle(hipGpu());
  bundle.kernels[0].launches[0].function = "missing";
  artifact.binaries[1] = bundleBinary(bundle, "amd_cdna3");
  EXPECT_EQ(sessionError(artifact),
            "kernel 'orx_kernel_add' of kernel binary 1: module 'main' has no "
            "function 'missing' on device 'gpu0' (amd_cdna3, HIP device 0: "
            "Fake GPU 0): hipModuleGetFunction failed: hipErrorNotFound "
            "(named symbol not found)");
  expectAllReleased();
}

TEST_F(HipBackendTest, KernelFaultFailsTheRun) {
  Artifact artifact = makeCpuGpuArtifact(hipGpu());
  GpuBundle bundle = makeFakeBundle(hipGpu());
  bundle.kernels[0].launches[0] = gpuLaunch("fake_fault", {});
  artifact.binaries[1] = bundleBinary(bundle, "amd_cdna3");
  {
    SessionPtr session = createSession(artifact);
    ASSERT_TRUE(session);
    std::vector<std::vector<float>> outputs(1,
                                            std::vector<float>(kVectorLength));
    Status status = runVectors(session.get(), {iota(0), iota(1)}, outputs);
    ASSERT_TRUE(status);
    EXPECT_NE(message(status).find("hipErrorIllegalAddress (an illegal "
                                   "memory access was encountered)"),
              std::string::npos)
        << message(status);
  }
  expectAllReleased();
}

} // namespace
