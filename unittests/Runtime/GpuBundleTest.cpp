//===- GpuBundleTest.cpp - Tests of the GPU module bundle format ----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra_rt/GpuBundle.h"

#include "gtest/gtest.h"

#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace orx;

namespace {

GpuArgDesc buffer(uint64_t index) { return {GpuArgKind::Buffer, index, 8}; }
GpuArgDesc scratch(uint64_t index) { return {GpuArgKind::Scratch, index, 8}; }
GpuArgDesc immediate(uint64_t bits, uint32_t size) {
  return {GpuArgKind::Immediate, bits, size};
}
/// A tensor map of a 256x512 f16 buffer, in 64x32 boxes.
GpuArgDesc tensorMap(uint32_t bufferIndex) {
  GpuArgDesc arg{GpuArgKind::TensorMap, 0, 8};
  GpuTensorMapDesc &map = arg.tensorMap;
  map.source = GpuArgKind::Buffer;
  map.sourceIndex = bufferIndex;
  map.dataType = 6;
  map.rank = 2;
  map.globalDim[0] = 512;
  map.globalDim[1] = 256;
  map.globalStrides[0] = 1024;
  map.boxDim[0] = 32;
  map.boxDim[1] = 64;
  map.oobFill = 0;
  map.l2Promotion = 2;
  return arg;
}

/// Two modules (one with two images, one with one) and two kernels,
/// one with two launches and scratch buffers, one with nothing.
GpuBundle makeBundle() {
  GpuBundle bundle;
  bundle.chip = "sm_90a";
  bundle.modules = {{"main",
                     {{"binary", {0x7f, 'E', 'L', 'F', 0, 1, 2}},
                      {"text", {'/', '/', '\n'}}}},
                    {"text_only", {{"text", {'.', 'v', '\n'}}}}};
  bundle.modules[0].functions = {
      {"matmul_tile",
       {{"vgpr_count", 128}, {"group_segment_fixed_size", 32768}}},
      {"unused", {}}};
  GpuKernelDesc matmul;
  matmul.symbol = "orx_kernel_matmul";
  matmul.scratchBytes = {4096, 0};
  GpuLaunchDesc first;
  first.module = 0;
  first.function = "matmul_tile";
  first.grid[0] = 8;
  first.grid[1] = 4;
  first.block[0] = 128;
  first.dynamicSharedBytes = 98304;
  first.args = {buffer(0), buffer(2), scratch(1), immediate(7, 4),
                immediate(0x123456789abcdefull, 8)};
  GpuLaunchDesc second;
  second.module = 1;
  second.function = "reduce";
  second.block[0] = 32;
  second.block[1] = 32;
  second.args = {scratch(0), buffer(1), tensorMap(1)};
  matmul.launches = {first, second};
  GpuKernelDesc empty;
  empty.symbol = "orx_kernel_empty";
  bundle.kernels = {matmul, empty};
  return bundle;
}

/// Parses `bytes`, expecting failure; returns the error.
std::string parseError(const std::vector<uint8_t> &bytes) {
  GpuBundle bundle;
  std::string error;
  EXPECT_FALSE(parseGpuBundle(bytes.data(), bytes.size(), bundle, error));
  return error;
}

/// The error of parsing makeBundle() after `edit`.
std::string editError(const std::function<void(GpuBundle &)> &edit) {
  GpuBundle bundle = makeBundle();
  edit(bundle);
  return parseError(serializeGpuBundle(bundle));
}

GpuLaunchDesc &firstLaunch(GpuBundle &bundle) {
  return bundle.kernels[0].launches[0];
}

TEST(GpuBundleTest, RoundTrip) {
  GpuBundle original = makeBundle();
  std::vector<uint8_t> bytes = serializeGpuBundle(original);
  ASSERT_GE(bytes.size(), 12u);
  EXPECT_EQ(std::memcmp(bytes.data(), "ORXGPU\0\0", 8), 0);
  EXPECT_EQ(bytes[8], kGpuBundleVersion);

  GpuBundle parsed;
  std::string error;
  ASSERT_TRUE(parseGpuBundle(bytes.data(), bytes.size(), parsed, error))
      << error;
  EXPECT_EQ(parsed.chip, "sm_90a");
  ASSERT_EQ(parsed.modules.size(), 2u);
  EXPECT_EQ(parsed.modules[0].name, "main");
  ASSERT_EQ(parsed.modules[0].images.size(), 2u);
  EXPECT_EQ(parsed.modules[0].images[0].kind, "binary");
  EXPECT_EQ(parsed.modules[0].images[0].data,
            original.modules[0].images[0].data);
  EXPECT_EQ(parsed.modules[0].images[1].kind, "text");
  EXPECT_EQ(parsed.modules[0].lookupImage("text"),
            &parsed.modules[0].images[1]);
  EXPECT_EQ(parsed.modules[0].lookupImage("other"), nullptr);
  ASSERT_EQ(parsed.modules[0].functions.size(), 2u);
  EXPECT_EQ(parsed.modules[0].functions[0].name, "matmul_tile");
  EXPECT_EQ(parsed.modules[0].functions[0].resources,
            original.modules[0].functions[0].resources);
  EXPECT_TRUE(parsed.modules[0].functions[1].resources.empty());
  EXPECT_TRUE(parsed.modules[1].functions.empty());
  ASSERT_EQ(parsed.modules[1].images.size(), 1u);
  EXPECT_EQ(parsed.modules[1].images[0].data,
            (std::vector<uint8_t>{'.', 'v', '\n'}));
  ASSERT_EQ(parsed.kernels.size(), 2u);
  const GpuKernelDesc &matmul = parsed.kernels[0];
  EXPECT_EQ(matmul.symbol, "orx_kernel_matmul");
  EXPECT_EQ(matmul.scratchBytes, (std::vector<uint64_t>{4096, 0}));
  ASSERT_EQ(matmul.launches.size(), 2u);
  const GpuLaunchDesc &launch = matmul.launches[0];
  EXPECT_EQ(launch.module, 0u);
  EXPECT_EQ(launch.function, "matmul_tile");
  EXPECT_EQ(launch.grid[0], 8u);
  EXPECT_EQ(launch.grid[1], 4u);
  EXPECT_EQ(launch.grid[2], 1u);
  EXPECT_EQ(launch.block[0], 128u);
  EXPECT_EQ(launch.dynamicSharedBytes, 98304u);
  ASSERT_EQ(launch.args.size(), 5u);
  EXPECT_EQ(launch.args[1].kind, GpuArgKind::Buffer);
  EXPECT_EQ(launch.args[1].value, 2u);
  EXPECT_EQ(launch.args[2].kind, GpuArgKind::Scratch);
  EXPECT_EQ(launch.args[3].kind, GpuArgKind::Immediate);
  EXPECT_EQ(launch.args[3].size, 4u);
  EXPECT_EQ(launch.args[4].value, 0x123456789abcdefull);
  EXPECT_EQ(matmul.launches[1].block[1], 32u);
  ASSERT_EQ(matmul.launches[1].args.size(), 3u);
  const GpuArgDesc &map = matmul.launches[1].args[2];
  EXPECT_EQ(map.kind, GpuArgKind::TensorMap);
  EXPECT_EQ(map.tensorMap.source, GpuArgKind::Buffer);
  EXPECT_EQ(map.tensorMap.sourceIndex, 1u);
  EXPECT_EQ(map.tensorMap.dataType, 6u);
  EXPECT_EQ(map.tensorMap.rank, 2u);
  EXPECT_EQ(map.tensorMap.globalDim[0], 512u);
  EXPECT_EQ(map.tensorMap.globalDim[1], 256u);
  EXPECT_EQ(map.tensorMap.globalStrides[0], 1024u);
  EXPECT_EQ(map.tensorMap.boxDim[0], 32u);
  EXPECT_EQ(map.tensorMap.boxDim[1], 64u);
  EXPECT_EQ(map.tensorMap.l2Promotion, 2u);
  EXPECT_TRUE(parsed.kernels[1].launches.empty());

  // Writing what was read gives the same bytes.
  EXPECT_EQ(serializeGpuBundle(parsed), bytes);

  EXPECT_EQ(parsed.lookupKernel("orx_kernel_empty"), &parsed.kernels[1]);
  EXPECT_EQ(parsed.lookupKernel("orx_kernel_none"), nullptr);
}

TEST(GpuBundleTest, EmptyBundle) {
  std::vector<uint8_t> bytes = serializeGpuBundle(GpuBundle());
  GpuBundle parsed;
  std::string error;
  EXPECT_TRUE(parseGpuBundle(bytes.data(), bytes.size(), parsed, error))
      << error;
  EXPECT_TRUE(parsed.modules.empty());
  EXPECT_TRUE(parsed.kernels.empty());
}

TEST(GpuBundleTest, BadMagic) {
  std::vector<uint8_t> bytes = serializeGpuBundle(makeBundle());
  bytes[3] = 'X';
  EXPECT_EQ(parseError(bytes), "not a GPU module bundle");
  EXPECT_EQ(parseError({}), "not a GPU module bundle");
  EXPECT_EQ(parseError({'O', 'R', 'X'}), "not a GPU module bundle");
}

TEST(GpuBundleTest, OtherVersion) {
  std::vector<uint8_t> bytes = serializeGpuBundle(makeBundle());
  for (uint8_t version : {0, 3, 6}) {
    bytes[8] = version;
    EXPECT_EQ(parseError(bytes),
              "GPU module bundle: GPU module bundle version " +
                  std::to_string(version) + ", this runtime reads 4 to 5");
  }
  // Version 4 (before branch counters and programs) is read too: one
  // kernel, without the program and register count that end a kernel in 5.
  GpuBundle one = makeBundle();
  one.kernels.resize(1);
  bytes = serializeGpuBundle(one);
  bytes.resize(bytes.size() - 8);
  bytes[8] = 4;
  GpuBundle parsed;
  std::string error;
  EXPECT_TRUE(parseGpuBundle(bytes.data(), bytes.size(), parsed, error))
      << error;
  EXPECT_TRUE(parsed.kernels[0].program.empty());
}

// A kernel's program (design/0019: loops on GPUs) round-trips, and what
// the runtime could not run is refused.
TEST(GpuBundleTest, Programs) {
  auto bufferKind = static_cast<uint64_t>(GpuArgKind::Buffer);
  auto registerKind = static_cast<uint64_t>(GpuArgKind::Register);
  GpuBundle bundle = makeBundle();
  GpuKernelDesc &kernel = bundle.kernels[0];
  kernel.scratchBytes = {8, 8};
  kernel.registers = 2;
  firstLaunch(bundle).args.push_back({GpuArgKind::Register, 1, 8, {}});
  kernel.program = {{GpuOp::Set, 0, bufferKind, 0},
                    {GpuOp::LoopBegin, 0, 1, 0},
                    {GpuOp::ExitUnless, 0, registerKind, 0},
                    {GpuOp::SetAlternating, 1, 0, 1},
                    {GpuOp::Launch, 0, 0, 0},
                    {GpuOp::LoopEnd, 0, 0, 0}};
  GpuBundle parsed;
  std::string error;
  std::vector<uint8_t> bytes = serializeGpuBundle(bundle);
  ASSERT_TRUE(parseGpuBundle(bytes.data(), bytes.size(), parsed, error))
      << error;
  ASSERT_EQ(parsed.kernels[0].program.size(), 6u);
  EXPECT_EQ(parsed.kernels[0].program[3].op, GpuOp::SetAlternating);
  EXPECT_EQ(parsed.kernels[0].program[3].c, 1u);
  EXPECT_EQ(parsed.kernels[0].registers, 2u);

  auto refused = [&](const std::function<void(GpuKernelDesc &)> &edit) {
    GpuBundle broken = bundle;
    edit(broken.kernels[0]);
    std::vector<uint8_t> data = serializeGpuBundle(broken);
    GpuBundle out;
    std::string message;
    EXPECT_FALSE(parseGpuBundle(data.data(), data.size(), out, message));
    return message;
  };
  const std::string invalid =
      " is not a valid instruction here (a launch, scratch buffer or "
      "register out of range, a register read before it is set, a nested "
      "loop, or an exit or end outside a loop)";
  EXPECT_EQ(refused([](GpuKernelDesc &k) { k.program[4].a = 9; }),
            "GPU module bundle: kernels[0].program[4]" + invalid);
  EXPECT_EQ(refused([](GpuKernelDesc &k) { k.program[3].c = 2; }),
            "GPU module bundle: kernels[0].program[3]" + invalid);
  EXPECT_EQ(
      refused([](GpuKernelDesc &k) {
        k.program.insert(k.program.begin() + 2, {GpuOp::LoopBegin, 1, 0, 0});
      }),
      "GPU module bundle: kernels[0].program[2]" + invalid);
  EXPECT_EQ(refused([](GpuKernelDesc &k) { k.program.pop_back(); }),
            "GPU module bundle: kernels[0].program ends inside a loop");
  EXPECT_EQ(
      refused([](GpuKernelDesc &k) { k.program.erase(k.program.begin() + 1); }),
      "GPU module bundle: kernels[0].program[1]" + invalid);
  EXPECT_EQ(refused([](GpuKernelDesc &k) { k.registers = 1; }),
            "GPU module bundle: kernels[0].program[3]" + invalid);
  // The launch reads register 1 before the SetAlternating that sets it.
  EXPECT_EQ(
      refused([](GpuKernelDesc &k) { std::swap(k.program[3], k.program[4]); }),
      "GPU module bundle: kernels[0].program[3]" + invalid);
  EXPECT_EQ(refused([](GpuKernelDesc &k) {
              k.program[0].op = static_cast<GpuOp>(9);
            }),
            "GPU module bundle: kernels[0].program[0].op = 9 is not an "
            "instruction");
  EXPECT_EQ(
      refused([](GpuKernelDesc &k) { k.launches[0].args.back().value = 2; }),
      "GPU module bundle: kernels[0].program[4]" + invalid);
}

// Branch counters (design/0019) are a parameter kind of version 5 only.
TEST(GpuBundleTest, ProfileCountersNeedVersion5) {
  GpuBundle bundle = makeBundle();
  firstLaunch(bundle).args.push_back({GpuArgKind::ProfileCounters, 0, 8});
  std::vector<uint8_t> bytes = serializeGpuBundle(bundle);
  GpuBundle parsed;
  std::string error;
  EXPECT_TRUE(parseGpuBundle(bytes.data(), bytes.size(), parsed, error))
      << error;
  bytes[8] = 4;
  EXPECT_EQ(parseError(bytes),
            "GPU module bundle: kernels[0].launches[0].args[" +
                std::to_string(firstLaunch(bundle).args.size() - 1) +
                "].kind = 4 is not a parameter kind of bundle version 4");
}

TEST(GpuBundleTest, BadTensorMaps) {
  auto map = [](GpuBundle &bundle) -> GpuTensorMapDesc & {
    return bundle.kernels[0].launches[1].args[2].tensorMap;
  };
  const std::string where =
      "GPU module bundle: kernels[0].launches[1].args[2].tensor_map";
  EXPECT_EQ(editError([&](GpuBundle &b) { map(b).rank = 0; }),
            where + ".rank = 0 (tensor maps have 1 to 5 dimensions)");
  EXPECT_EQ(editError([&](GpuBundle &b) { map(b).rank = 6; }),
            where + ".rank = 6 (tensor maps have 1 to 5 dimensions)");
  EXPECT_EQ(editError([&](GpuBundle &b) { map(b).globalDim[1] = 0; }),
            where + " has an empty dimension 1");
  EXPECT_EQ(editError([&](GpuBundle &b) { map(b).boxDim[0] = 257; }),
            where + ".box_dim[0] = 257 (1 to 256, at most the dimension)");
  EXPECT_EQ(editError([&](GpuBundle &b) { map(b).elementStrides[1] = 0; }),
            where + ".element_strides[1] = 0 (1 to 8)");
  EXPECT_EQ(editError([&](GpuBundle &b) {
              map(b).source = GpuArgKind::Scratch;
              map(b).sourceIndex = 2;
            }),
            where + " names scratch buffer 2 of 2");
  EXPECT_EQ(
      editError([&](GpuBundle &b) { map(b).source = GpuArgKind::Immediate; }),
      where + ".source = 2 is not a buffer or scratch buffer");
}

TEST(GpuBundleTest, EveryTruncationFails) {
  std::vector<uint8_t> bytes = serializeGpuBundle(makeBundle());
  for (size_t size = 0; size < bytes.size(); ++size) {
    // A copy of exactly `size` bytes, so that a sanitizer sees any read past
    // the end.
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + size);
    GpuBundle bundle;
    std::string error;
    EXPECT_FALSE(parseGpuBundle(prefix.data(), prefix.size(), bundle, error))
        << "prefix of " << size << " bytes";
    EXPECT_FALSE(error.empty()) << "prefix of " << size << " bytes";
  }
}

TEST(GpuBundleTest, TrailingBytes) {
  std::vector<uint8_t> bytes = serializeGpuBundle(makeBundle());
  bytes.push_back(0);
  EXPECT_EQ(parseError(bytes), "GPU module bundle: 1 bytes follow the last "
                               "kernel of the GPU module bundle");
}

TEST(GpuBundleTest, HugeCountIsRejectedBeforeAllocating) {
  std::vector<uint8_t> bytes = serializeGpuBundle(GpuBundle());
  // The module count follows the magic, the version and the empty chip.
  ASSERT_EQ(bytes.size(), 8u + 4 + 4 + 4 + 4);
  std::memset(bytes.data() + 16, 0xff, 4);
  EXPECT_NE(parseError(bytes).find("modules: count 4294967295 exceeds the "
                                   "remaining 4 payload bytes"),
            std::string::npos);
}

TEST(GpuBundleTest, ModuleWithoutCode) {
  EXPECT_EQ(editError([](GpuBundle &b) { b.modules[1].images.clear(); }),
            "GPU module bundle: modules[1] has no image");
  EXPECT_EQ(editError([](GpuBundle &b) { b.modules[1].images[0].kind = ""; }),
            "GPU module bundle: modules[1].images[0].kind is empty");
}

TEST(GpuBundleTest, ModuleOutOfRange) {
  EXPECT_EQ(editError([](GpuBundle &b) { firstLaunch(b).module = 2; }),
            "GPU module bundle: kernels[0].launches[0].module = 2 is out of "
            "range (2 modules)");
}

TEST(GpuBundleTest, EmptyFunctionName) {
  EXPECT_EQ(editError([](GpuBundle &b) { firstLaunch(b).function.clear(); }),
            "GPU module bundle: kernels[0].launches[0].function is empty");
}

TEST(GpuBundleTest, ZeroGridOrBlock) {
  EXPECT_EQ(editError([](GpuBundle &b) { firstLaunch(b).grid[2] = 0; }),
            "GPU module bundle: kernels[0].launches[0] has a zero grid or "
            "block size");
  EXPECT_EQ(editError([](GpuBundle &b) { firstLaunch(b).block[1] = 0; }),
            "GPU module bundle: kernels[0].launches[0] has a zero grid or "
            "block size");
}

TEST(GpuBundleTest, TooManyThreads) {
  EXPECT_EQ(
      editError([](GpuBundle &b) { b.kernels[0].launches[1].block[2] = 2; }),
      "GPU module bundle: kernels[0].launches[1] has 2048 threads per "
      "block (at most 1024)");
  // Exactly 1024 is fine.
  GpuBundle bundle = makeBundle();
  firstLaunch(bundle).block[0] = 1024;
  std::vector<uint8_t> bytes = serializeGpuBundle(bundle);
  GpuBundle parsed;
  std::string error;
  EXPECT_TRUE(parseGpuBundle(bytes.data(), bytes.size(), parsed, error))
      << error;
}

TEST(GpuBundleTest, BadScratchIndex) {
  EXPECT_EQ(
      editError([](GpuBundle &b) { firstLaunch(b).args[2] = scratch(2); }),
      "GPU module bundle: kernels[0].launches[0].args[2] names scratch "
      "buffer 2 of 2");
  EXPECT_EQ(editError([](GpuBundle &b) {
              b.kernels[1].launches = b.kernels[0].launches;
            }),
            "GPU module bundle: kernels[1].launches[0].args[2] names scratch "
            "buffer 1 of 0");
}

TEST(GpuBundleTest, BadParameterSize) {
  EXPECT_EQ(
      editError([](GpuBundle &b) { firstLaunch(b).args[3] = immediate(7, 2); }),
      "GPU module bundle: kernels[0].launches[0].args[3].size = 2 is "
      "not a valid parameter size");
  EXPECT_EQ(editError([](GpuBundle &b) { firstLaunch(b).args[0].size = 4; }),
            "GPU module bundle: kernels[0].launches[0].args[0].size = 4 is "
            "not a valid parameter size");
}

TEST(GpuBundleTest, BadParameterKind) {
  EXPECT_EQ(editError([](GpuBundle &b) {
              firstLaunch(b).args[0].kind = static_cast<GpuArgKind>(7);
            }),
            "GPU module bundle: kernels[0].launches[0].args[0].kind = 7 is "
            "not a parameter kind of bundle version 5");
}

} // namespace
