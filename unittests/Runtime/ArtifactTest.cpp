//===- ArtifactTest.cpp - Tests of the artifact format --------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "TestArtifacts.h"

#include "orchestra_rt/Artifact.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstring>
#include <functional>
#include <random>

using namespace orx;
using namespace orx::test;

namespace {

/// Parses `bytes`, expecting failure; returns the error.
std::string parseError(const std::vector<uint8_t> &bytes) {
  Artifact artifact;
  std::string error;
  EXPECT_FALSE(parseArtifact(bytes.data(), bytes.size(), artifact, error));
  return error;
}

/// Recomputes the header's payload size and checksum after a payload edit.
void resealHeader(std::vector<uint8_t> &bytes) {
  uint64_t size = bytes.size() - kArtifactHeaderSize;
  uint64_t checksum = fnv1a64(bytes.data() + kArtifactHeaderSize, size);
  for (int i = 0; i < 8; ++i) {
    bytes[16 + i] = static_cast<uint8_t>(size >> (8 * i));
    bytes[24 + i] = static_cast<uint8_t>(checksum >> (8 * i));
  }
}

TEST(ArtifactTest, DTypes) {
  EXPECT_EQ(dtypeSize(DType::F32), 4u);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::I1), 1u);
  EXPECT_EQ(dtypeSize(DType::I64), 8u);
  EXPECT_STREQ(dtypeName(DType::F16), "f16");
  EXPECT_STREQ(dtypeName(DType::U8), "u8");
  EXPECT_STREQ(dtypeName(DType::U64), "u64");
  EXPECT_EQ(dtypeSize(DType::U32), 4u);
  EXPECT_TRUE(isValidDType(12));
  EXPECT_FALSE(isValidDType(13));
  TensorDesc desc{"x", DType::F64, {2, 3, 4}};
  EXPECT_EQ(desc.numElements(), 24u);
  EXPECT_EQ(desc.byteSize(), 192u);
  EXPECT_EQ(TensorDesc({"s", DType::I32, {}}).byteSize(), 4u);
}

TEST(ArtifactTest, HeaderLayout) {
  std::vector<uint8_t> bytes = serializeArtifact(makeCopyArtifact());
  ASSERT_GE(bytes.size(), kArtifactHeaderSize);
  EXPECT_EQ(std::memcmp(bytes.data(), "ORCXART\0", 8), 0);
  EXPECT_EQ(bytes[8], kArtifactVersionMajor);
  EXPECT_EQ(bytes[12], kArtifactVersionMinor);
  uint64_t payloadSize = 0, checksum = 0, reserved = 0;
  for (int i = 0; i < 8; ++i) {
    payloadSize |= static_cast<uint64_t>(bytes[16 + i]) << (8 * i);
    checksum |= static_cast<uint64_t>(bytes[24 + i]) << (8 * i);
    reserved |= static_cast<uint64_t>(bytes[32 + i]) << (8 * i);
  }
  EXPECT_EQ(payloadSize, bytes.size() - kArtifactHeaderSize);
  EXPECT_EQ(checksum, fnv1a64(bytes.data() + kArtifactHeaderSize, payloadSize));
  EXPECT_EQ(reserved, 0u);
  // The payload opens with the producer string.
  std::string producer = "runtime unit tests";
  EXPECT_EQ(bytes[40], producer.size());
  EXPECT_EQ(std::memcmp(bytes.data() + 44, producer.data(), producer.size()),
            0);
}

TEST(ArtifactTest, RoundTrip) {
  Artifact original = makeTwoDeviceArtifact();
  original.steps[2].predictedStart = 1.5e-6;
  original.steps[2].predictedFinish = 2.25e-6;
  original.binaries[0].requiredFeatures = {"sse2"};
  original.inputs.push_back({"scalar", DType::BF16, {}});
  original.inputValues.push_back(0);
  std::vector<uint8_t> bytes = serializeArtifact(original);

  Artifact parsed;
  std::string error;
  ASSERT_TRUE(parseArtifact(bytes.data(), bytes.size(), parsed, error))
      << error;
  EXPECT_EQ(parsed.versionMajor, kArtifactVersionMajor);
  EXPECT_EQ(parsed.versionMinor, kArtifactVersionMinor);
  EXPECT_EQ(parsed.producer, original.producer);
  EXPECT_EQ(parsed.topologyName, "two-cpu");
  ASSERT_EQ(parsed.devices.size(), 2u);
  EXPECT_EQ(parsed.devices[1].name, "cpu1");
  EXPECT_EQ(parsed.devices[1].deviceId, 1u);
  ASSERT_EQ(parsed.memorySpaces.size(), 2u);
  EXPECT_EQ(parsed.memorySpaces[1].device, 1u);
  EXPECT_EQ(parsed.memorySpaces[0].arenaBytes, 3 * kVectorBytes);
  EXPECT_EQ(parsed.entryName, "two_device");
  ASSERT_EQ(parsed.inputs.size(), 2u);
  EXPECT_EQ(parsed.inputs[1].dtype, DType::BF16);
  EXPECT_TRUE(parsed.inputs[1].shape.empty());
  EXPECT_EQ(parsed.inputs[0].shape, std::vector<int64_t>{16});
  EXPECT_EQ(parsed.outputValues, std::vector<uint32_t>{4});
  ASSERT_EQ(parsed.values.size(), 5u);
  EXPECT_EQ(parsed.values[4].space, 1u);
  EXPECT_EQ(parsed.values[4].offset, kVectorBytes);
  ASSERT_EQ(parsed.constants.size(), 1u);
  EXPECT_EQ(parsed.constants[0].data, original.constants[0].data);
  ASSERT_EQ(parsed.binaries.size(), 1u);
  EXPECT_EQ(parsed.binaries[0].data, original.binaries[0].data);
  EXPECT_EQ(parsed.binaries[0].format, "elf-shared-object");
  EXPECT_EQ(parsed.binaries[0].requiredFeatures,
            std::vector<std::string>{"sse2"});
  ASSERT_EQ(parsed.kernels.size(), 2u);
  EXPECT_EQ(parsed.kernels[1].symbol, "scale2");
  ASSERT_EQ(parsed.steps.size(), 3u);
  EXPECT_EQ(parsed.steps[1].kind, StepKind::Copy);
  EXPECT_EQ(parsed.steps[1].args, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(parsed.steps[2].device, 1u);
  EXPECT_EQ(parsed.steps[2].numInputs, 1u);
  EXPECT_EQ(parsed.steps[2].deps, std::vector<uint32_t>{1});
  EXPECT_EQ(parsed.steps[2].predictedStart, 1.5e-6);
  EXPECT_EQ(parsed.steps[2].predictedFinish, 2.25e-6);
  EXPECT_EQ(parsed.steps[0].predictedStart, -1);
  // Serialising again gives the same bytes.
  EXPECT_EQ(serializeArtifact(parsed), bytes);
}

TEST(ArtifactTest, FileRoundTrip) {
  std::string path = ::testing::TempDir() + "orx-artifact-test.orcx";
  std::string error;
  ASSERT_TRUE(writeArtifactFile(path, makeCopyArtifact(), error)) << error;
  Artifact parsed;
  ASSERT_TRUE(readArtifactFile(path, parsed, error)) << error;
  EXPECT_EQ(parsed.entryName, "copy");
  std::remove(path.c_str());

  EXPECT_FALSE(readArtifactFile(path, parsed, error));
  EXPECT_NE(error.find("cannot open"), std::string::npos) << error;
  EXPECT_FALSE(
      writeArtifactFile("/nonexistent-dir/x.orcx", makeCopyArtifact(), error));
  EXPECT_NE(
      error.find(
          "cannot write '/nonexistent-dir/x.orcx': No such file or directory"),
      std::string::npos)
      << error;
}

/// makeTwoDeviceArtifact with a tiny binary: every kind of field, few bytes.
Artifact makeSmallArtifact() {
  Artifact artifact = makeTwoDeviceArtifact();
  artifact.binaries[0].data = {1, 2, 3};
  artifact.binaries[0].requiredFeatures = {"avx2", "fma"};
  return artifact;
}

TEST(ArtifactTest, TruncatedAtEveryLength) {
  // Each prefix is its own allocation so that the sanitizers catch any read
  // past it.
  std::vector<uint8_t> bytes = serializeArtifact(makeSmallArtifact());
  for (size_t size = 0; size < bytes.size(); ++size) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + size);
    std::string error = parseError(prefix);
    ASSERT_NE(error.find("truncated"), std::string::npos)
        << "size " << size << ": " << error;
  }
}

TEST(ArtifactTest, FlippedPayloadByteIsCorruption) {
  std::vector<uint8_t> bytes = serializeArtifact(makeSmallArtifact());
  for (size_t i = kArtifactHeaderSize; i < bytes.size(); ++i) {
    std::vector<uint8_t> corrupted = bytes;
    corrupted[i] ^= 0x20;
    EXPECT_EQ(parseError(corrupted),
              "artifact is corrupted (payload checksum mismatch)")
        << "byte " << i;
  }
}

TEST(ArtifactTest, BadMagic) {
  std::vector<uint8_t> bytes = serializeArtifact(makeCopyArtifact());
  bytes[3] = 'Y';
  EXPECT_EQ(parseError(bytes), "not an OrchestraOS artifact (bad magic)");
  std::string text = "{\"not\": \"an artifact\"}";
  EXPECT_EQ(parseError(std::vector<uint8_t>(text.begin(), text.end())),
            "not an OrchestraOS artifact (bad magic)");
}

TEST(ArtifactTest, UnsupportedMajorVersion) {
  std::vector<uint8_t> bytes = serializeArtifact(makeCopyArtifact());
  bytes[8] = 4;
  bytes[12] = 3;
  EXPECT_EQ(parseError(bytes),
            "artifact format version 4.3, this runtime reads 3.x");
  bytes[8] = 2;
  bytes[12] = 0;
  EXPECT_EQ(parseError(bytes),
            "artifact format version 2.0, this runtime reads 3.x (compile the "
            "model again with this release's orchestra-compile)");
}

TEST(ArtifactTest, DeviceWithoutDriver) {
  Artifact artifact = makeCopyArtifact();
  artifact.devices[1].driver.clear();
  std::string error;
  EXPECT_FALSE(verifyArtifact(artifact, error));
  EXPECT_EQ(error, "invalid artifact: devices[1] ('cpu1') names no runtime "
                   "driver");
}

TEST(ArtifactTest, NewerMinorVersionIsRead) {
  std::vector<uint8_t> bytes = serializeArtifact(makeCopyArtifact());
  bytes[12] = 7;
  Artifact parsed;
  std::string error;
  ASSERT_TRUE(parseArtifact(bytes.data(), bytes.size(), parsed, error))
      << error;
  EXPECT_EQ(parsed.versionMinor, 7u);
}

TEST(ArtifactTest, TrailingBytes) {
  std::vector<uint8_t> bytes = serializeArtifact(makeCopyArtifact());
  bytes.push_back(0);
  EXPECT_EQ(parseError(bytes),
            "artifact has 1 unexpected bytes after its payload");
  // Inside the payload, with a matching checksum.
  resealHeader(bytes);
  EXPECT_EQ(parseError(bytes),
            "malformed artifact: 1 unexpected bytes after the last section");
}

TEST(ArtifactTest, DynamicDimsRoundTrip) {
  Artifact original = makeDynamicArtifact();
  // (n * 2 + 3) floordiv 2
  original.steps[0].sizes.push_back(
      {{int64_t(SizeOp::Dim), 0, int64_t(SizeOp::Const), 2,
        int64_t(SizeOp::Mul), int64_t(SizeOp::Const), 3, int64_t(SizeOp::Add),
        int64_t(SizeOp::Const), 2, int64_t(SizeOp::FloorDiv)}});
  std::vector<uint8_t> bytes = serializeArtifact(original);
  Artifact parsed;
  std::string error;
  ASSERT_TRUE(parseArtifact(bytes.data(), bytes.size(), parsed, error))
      << error;
  ASSERT_EQ(parsed.dims.size(), 1u);
  EXPECT_EQ(parsed.dims[0].name, "n");
  EXPECT_EQ(parsed.dims[0].max, 16);
  EXPECT_EQ(parsed.inputs[0].shape, std::vector<int64_t>{-1});
  ASSERT_EQ(parsed.inputs[0].dynamicSizes.size(), 1u);
  EXPECT_EQ(parsed.inputs[0].dynamicSizes[0].code, dimSize(0).code);
  ASSERT_EQ(parsed.steps[0].sizes.size(), 2u);
  int64_t value;
  ASSERT_TRUE(evaluateSize(parsed.steps[0].sizes[1], {5}, value, error))
      << error;
  EXPECT_EQ(value, 6);
  EXPECT_EQ(serializeArtifact(parsed), bytes);
}

TEST(ArtifactTest, SizePrograms) {
  auto evaluate = [](std::vector<int64_t> code, std::vector<int64_t> dims,
                     int64_t &value) {
    std::string error;
    bool ok = evaluateSize({std::move(code)}, dims, value, error);
    return ok ? std::string() : error;
  };
  int64_t value = 0;
  constexpr int64_t kConst = int64_t(SizeOp::Const),
                    kDim = int64_t(SizeOp::Dim);
  EXPECT_EQ(
      evaluate({kDim, 1, kConst, 4, int64_t(SizeOp::CeilDiv)}, {0, 9}, value),
      "");
  EXPECT_EQ(value, 3);
  EXPECT_EQ(evaluate({kConst, -7, kConst, 4, int64_t(SizeOp::Mod), kConst, 1,
                      int64_t(SizeOp::Add)},
                     {}, value),
            "");
  EXPECT_EQ(value, 2);
  EXPECT_EQ(evaluate({kDim, 2}, {1, 2}, value),
            "size program reads dim 2 of 2");
  EXPECT_EQ(evaluate({kDim}, {1}, value),
            "size program ends inside an operation");
  EXPECT_EQ(evaluate({kDim, 0, int64_t(SizeOp::Add)}, {1}, value),
            "malformed size program");
  EXPECT_EQ(evaluate({kDim, 0, kDim, 0}, {1}, value), "malformed size program");
  EXPECT_EQ(
      evaluate({kConst, 1, kConst, 0, int64_t(SizeOp::FloorDiv)}, {}, value),
      "size program divides by 0");
  EXPECT_EQ(
      evaluate({kConst, int64_t(1) << 62, kConst, 4, int64_t(SizeOp::Mul)}, {},
               value),
      "size program overflows");
  EXPECT_EQ(evaluate({kConst, -3}, {}, value), "negative size -3");
  EXPECT_EQ(evaluate({kConst, 1, kConst, 2, 99}, {}, value),
            "malformed size program");
}

TEST(ArtifactTest, MalformedDynamicDimsAreRejected) {
  auto rejected = [](const std::function<void(Artifact &)> &breakIt,
                     const std::string &expected) {
    Artifact artifact = makeDynamicArtifact();
    breakIt(artifact);
    std::string error = parseError(serializeArtifact(artifact));
    EXPECT_NE(error.find(expected), std::string::npos)
        << "error: " << error << "\nexpected: " << expected;
  };
  rejected([](Artifact &a) { a.dims[0].min = 17; },
           "dims[0] ('n'): the range 17..16 is empty or negative");
  rejected([](Artifact &a) { a.inputs[0].dynamicSizes.clear(); },
           "inputs[0]: 1 dynamic dimensions but 0 sizes");
  rejected([](Artifact &a) { a.steps[0].sizes = {dimSize(3)}; },
           "steps[0].sizes[0]: size program reads dim 3 of 1");
  rejected([](Artifact &a) { a.outputs[0].dynamicSizes = {{{}}}; },
           "outputs[0].dynamicSizes[0]: malformed size program");
}

TEST(ArtifactTest, HugeCountIsRejectedBeforeAllocating) {
  Artifact artifact = makeCopyArtifact();
  std::vector<uint8_t> bytes = serializeArtifact(artifact);
  // The device count follows the producer and topology name strings.
  size_t offset = kArtifactHeaderSize + 4 + artifact.producer.size() + 4 +
                  artifact.topologyName.size();
  for (int i = 0; i < 4; ++i)
    bytes[offset + i] = 0xff;
  resealHeader(bytes);
  std::string error = parseError(bytes);
  EXPECT_NE(error.find("devices: count 4294967295 exceeds the remaining"),
            std::string::npos)
      << error;

  // A huge string length.
  bytes = serializeArtifact(artifact);
  for (int i = 0; i < 4; ++i)
    bytes[kArtifactHeaderSize + i] = 0xff;
  resealHeader(bytes);
  error = parseError(bytes);
  EXPECT_NE(error.find("producer: count"), std::string::npos) << error;
}

/// Random payload edits with a valid checksum must fail cleanly or parse;
/// never crash (the sanitizer build checks reads out of bounds).
TEST(ArtifactTest, RandomPayloadEditsNeverCrash) {
  std::vector<uint8_t> bytes = serializeArtifact(makeSmallArtifact());
  std::mt19937 random(1234);
  for (int iteration = 0; iteration < 3000; ++iteration) {
    std::vector<uint8_t> mutated = bytes;
    int edits = 1 + iteration % 4;
    for (int e = 0; e < edits; ++e) {
      size_t position = kArtifactHeaderSize +
                        random() % (mutated.size() - kArtifactHeaderSize);
      mutated[position] = static_cast<uint8_t>(random());
    }
    if (iteration % 5 == 0)
      mutated.resize(kArtifactHeaderSize +
                     random() % (mutated.size() - kArtifactHeaderSize));
    resealHeader(mutated);
    Artifact parsed;
    std::string error;
    if (!parseArtifact(mutated.data(), mutated.size(), parsed, error))
      EXPECT_FALSE(error.empty());
  }
}

/// Serialises a broken artifact and expects the reader to reject it with a
/// message containing `expected`.
void expectRejected(const std::function<void(Artifact &)> &breakIt,
                    const std::string &expected) {
  Artifact artifact = makeTwoDeviceArtifact();
  breakIt(artifact);
  std::string error = parseError(serializeArtifact(artifact));
  EXPECT_NE(error.find(expected), std::string::npos)
      << "error: " << error << "\nexpected: " << expected;
  std::string verifyError;
  EXPECT_FALSE(verifyArtifact(artifact, verifyError));
}

TEST(ArtifactTest, OutOfRangeReferencesAreRejected) {
  expectRejected([](Artifact &a) { a.memorySpaces[1].device = 2; },
                 "memorySpaces[1].device = 2 is not a device");
  expectRejected([](Artifact &a) { a.values[3].space = 5; },
                 "values[3].space = 5 is not a memory space");
  expectRejected([](Artifact &a) { a.values[2].offset = 3 * kVectorBytes; },
                 "values[2]: offset 192 + 64 bytes exceed the 192-byte arena "
                 "of memory space 'cpu0_dram'");
  expectRejected([](Artifact &a) { a.values[2].offset = ~0ull - 8; },
                 "values[2]: offset");
  expectRejected([](Artifact &a) { a.inputValues = {}; },
                 "1 inputs but 0 input values");
  expectRejected([](Artifact &a) { a.outputValues = {9}; },
                 "outputs[0] value = 9 is not a value");
  expectRejected([](Artifact &a) { a.inputs[0].shape = {17}; },
                 "inputs[0]: 68 bytes do not fit value 0 of 64 bytes");
  expectRejected([](Artifact &a) { a.inputs[0].shape = {-4}; },
                 "inputs[0]: negative dimension -4");
  expectRejected(
      [](Artifact &a) {
        a.outputs[0].shape = {1 << 30, 1 << 30, 1 << 30};
      },
      "outputs[0]: size overflows");
  expectRejected([](Artifact &a) { a.inputs[0].dtype = DType(42); },
                 "inputs[0].dtype: unknown element type 42");
  expectRejected([](Artifact &a) { a.constants[0].value = 7; },
                 "constants[0].value = 7 is not a value");
  expectRejected([](Artifact &a) { a.constants[0].data.pop_back(); },
                 "constants[0]: 63 bytes of data for value 1 of 64 bytes");
  expectRejected([](Artifact &a) { a.kernels[1].binary = 1; },
                 "kernels[1].binary = 1 is not a binary");
  expectRejected([](Artifact &a) { a.steps[2].device = 2; },
                 "steps[2].device = 2 is not a device");
  expectRejected([](Artifact &a) { a.steps[0].kernel = 2; },
                 "steps[0].kernel = 2 is not a kernel");
  expectRejected([](Artifact &a) { a.steps[0].args[1] = 5; },
                 "steps[0].args[1] = 5 is not a value");
  expectRejected([](Artifact &a) { a.steps[0].numInputs = 4; },
                 "steps[0].numInputs = 4 exceeds its 3 args");
  expectRejected([](Artifact &a) { a.steps[1].deps = {1}; },
                 "steps[1].deps[0] = 1 is not an earlier step");
  expectRejected([](Artifact &a) { a.steps[0].deps = {2}; },
                 "steps[0].deps[0] = 2 is not an earlier step");
  expectRejected([](Artifact &a) { a.steps[1].args = {2}; },
                 "steps[1]: a copy has 2 args (source, destination), not 1");
  expectRejected(
      [](Artifact &a) {
        a.values[3].bytes = 8;
        a.steps[1].args = {2, 3};
      },
      "steps[1]: copies 64 bytes into a value of 8 bytes");
  expectRejected([](Artifact &a) { a.steps[1].kind = StepKind(7); },
                 "steps[1].kind: unknown step kind 7");
}

TEST(ArtifactTest, BranchTableRoundTrip) {
  Artifact original = makeTwoDeviceArtifact();
  original.kernels[1].branches = {"loc(\"a.mlir\":3:4)", "loc(unknown)"};
  std::vector<uint8_t> bytes = serializeArtifact(original);
  Artifact parsed;
  std::string error;
  ASSERT_TRUE(parseArtifact(bytes.data(), bytes.size(), parsed, error))
      << error;
  EXPECT_TRUE(parsed.kernels[0].branches.empty());
  EXPECT_EQ(parsed.kernels[1].branches, original.kernels[1].branches);
  // Cut inside the tables: refused as truncated, never read past the end.
  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 5);
  uint64_t payload = cut.size() - kArtifactHeaderSize;
  for (int i = 0; i < 8; ++i) {
    cut[16 + i] = static_cast<uint8_t>(payload >> (8 * i));
    cut[24 + i] = static_cast<uint8_t>(
        fnv1a64(cut.data() + kArtifactHeaderSize, payload) >> (8 * i));
  }
  EXPECT_FALSE(parseArtifact(cut.data(), cut.size(), parsed, error));
  EXPECT_NE(error.find("extends past the end of the payload"),
            std::string::npos)
      << error;
}

TEST(ArtifactTest, SelectRoundTrip) {
  std::vector<uint8_t> bytes = serializeArtifact(makeSelectArtifact());
  Artifact parsed;
  std::string error;
  ASSERT_TRUE(parseArtifact(bytes.data(), bytes.size(), parsed, error))
      << error;
  EXPECT_EQ(parsed.versionMinor, kArtifactVersionMinor);
  ASSERT_EQ(parsed.steps.size(), 2u);
  EXPECT_EQ(parsed.steps[1].kind, StepKind::Select);
  EXPECT_EQ(parsed.steps[1].args, (std::vector<uint32_t>{0, 1, 5, 3, 6, 4, 7}));
  EXPECT_EQ(parsed.steps[1].numInputs, 5u);
}

TEST(ArtifactTest, MalformedSelectsAreRejected) {
  auto expectSelectRejected = [](const std::function<void(StepDesc &)> &edit,
                                 const std::string &expected) {
    Artifact artifact = makeSelectArtifact();
    edit(artifact.steps[1]);
    std::vector<uint8_t> bytes = serializeArtifact(artifact);
    std::string error = parseError(bytes);
    EXPECT_NE(error.find(expected), std::string::npos)
        << "expected '" << expected << "' in: " << error;
  };
  std::string shape = "steps[1]: a select has a condition, then n true "
                      "values, n false values and n results (n >= 1); ";
  expectSelectRejected([](StepDesc &s) { s.args = {0}; },
                       shape + "it has 1 args, 5 inputs");
  expectSelectRejected([](StepDesc &s) { s.args.pop_back(); },
                       shape + "it has 6 args, 5 inputs");
  expectSelectRejected([](StepDesc &s) { s.numInputs = 4; },
                       shape + "it has 7 args, 4 inputs");
  expectSelectRejected([](StepDesc &s) { s.args[0] = 1; },
                       "steps[1]: its condition is a value of 16 bytes, not "
                       "one i1");
  expectSelectRejected([](StepDesc &s) { s.args[2] = 0; },
                       "steps[1]: selects value 0 of 1 bytes into a result "
                       "of 16 bytes");
  expectSelectRejected(
      [](StepDesc &s) {
        s.sizes = {SizeExpr{{0, 4}}};
      },
      "steps[1]: a select has no sizes");
  expectSelectRejected([](StepDesc &s) { s.args[6] = 9; },
                       "steps[1].args[6] = 9 is not a value");
}

} // namespace
