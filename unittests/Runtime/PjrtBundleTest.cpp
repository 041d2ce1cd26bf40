//===- PjrtBundleTest.cpp - Tests of the PJRT program bundle format -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra_rt/PjrtBundle.h"

#include "gtest/gtest.h"

#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace orx;

namespace {

std::vector<uint8_t> bytesOf(const std::string &text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

/// Two kernels: one with options, two arguments of different element types
/// and a scalar result; one with the default options and no argument.
PjrtBundle makeBundle() {
  PjrtBundle bundle;
  bundle.plugin = "pjrt_plugin.so";
  bundle.platform = "cpu";
  bundle.requirements = "a host with the plugin";
  PjrtKernelDesc matmul;
  matmul.symbol = "orx_kernel_matmul";
  matmul.programFormat = kPjrtMlirProgramFormat;
  matmul.program = bytesOf("func.func @main() { return }");
  matmul.compileOptions = {0x1a, 0x04, 0x20, 0x01, 0x28, 0x01};
  matmul.args = {{DType::BF16, {4, 8}}, {DType::I1, {0, 3}}};
  matmul.results = {{DType::F64, {}}};
  matmul.aotFormat = std::string(kPjrtExecutableFormatPrefix) + "cpu";
  matmul.aotBinary = {1, 2, 3};
  PjrtKernelDesc constant;
  constant.symbol = "orx_kernel_constant";
  constant.programFormat = kPjrtMlirProgramFormat;
  constant.program = {'M', 'L', 0xef, 'R', 0};
  constant.results = {{DType::U64, {2}}};
  bundle.kernels = {matmul, constant};
  return bundle;
}

/// Parses `bytes`, expecting failure; returns the error.
std::string parseError(const std::vector<uint8_t> &bytes) {
  PjrtBundle bundle;
  std::string error;
  EXPECT_FALSE(parsePjrtBundle(bytes.data(), bytes.size(), bundle, error));
  return error;
}

/// The error of parsing makeBundle() after `edit`.
std::string editError(const std::function<void(PjrtBundle &)> &edit) {
  PjrtBundle bundle = makeBundle();
  edit(bundle);
  return parseError(serializePjrtBundle(bundle));
}

TEST(PjrtBundleTest, RoundTrip) {
  PjrtBundle original = makeBundle();
  std::vector<uint8_t> bytes = serializePjrtBundle(original);
  ASSERT_GE(bytes.size(), 12u);
  EXPECT_EQ(std::memcmp(bytes.data(), "ORXPJRT\0", 8), 0);
  EXPECT_EQ(bytes[8], kPjrtBundleVersion);

  PjrtBundle parsed;
  std::string error;
  ASSERT_TRUE(parsePjrtBundle(bytes.data(), bytes.size(), parsed, error))
      << error;
  EXPECT_EQ(parsed.plugin, "pjrt_plugin.so");
  EXPECT_EQ(parsed.platform, "cpu");
  EXPECT_EQ(parsed.requirements, "a host with the plugin");
  ASSERT_EQ(parsed.kernels.size(), 2u);
  const PjrtKernelDesc &matmul = parsed.kernels[0];
  EXPECT_EQ(matmul.symbol, "orx_kernel_matmul");
  EXPECT_EQ(matmul.programFormat, "mlir");
  EXPECT_EQ(matmul.program, original.kernels[0].program);
  EXPECT_EQ(matmul.compileOptions, original.kernels[0].compileOptions);
  ASSERT_EQ(matmul.args.size(), 2u);
  EXPECT_EQ(matmul.args[0].elementType, DType::BF16);
  EXPECT_EQ(matmul.args[0].dims, (std::vector<int64_t>{4, 8}));
  EXPECT_EQ(matmul.args[0].byteSize(), 64u);
  EXPECT_EQ(matmul.args[1].elementType, DType::I1);
  EXPECT_EQ(matmul.args[1].byteSize(), 0u);
  ASSERT_EQ(matmul.results.size(), 1u);
  EXPECT_EQ(matmul.results[0].elementType, DType::F64);
  EXPECT_TRUE(matmul.results[0].dims.empty());
  EXPECT_EQ(matmul.results[0].byteSize(), 8u);
  EXPECT_EQ(matmul.aotFormat, "pjrt-executable:cpu");
  EXPECT_EQ(matmul.aotBinary, (std::vector<uint8_t>{1, 2, 3}));
  const PjrtKernelDesc &constant = parsed.kernels[1];
  EXPECT_TRUE(constant.aotFormat.empty());
  EXPECT_TRUE(constant.aotBinary.empty());
  EXPECT_EQ(constant.program, original.kernels[1].program);
  EXPECT_TRUE(constant.compileOptions.empty());
  EXPECT_TRUE(constant.args.empty());
  EXPECT_EQ(constant.results[0].byteSize(), 16u);
  EXPECT_EQ(parsed.lookupKernel("orx_kernel_constant"), &parsed.kernels[1]);
  EXPECT_EQ(parsed.lookupKernel("orx_kernel_none"), nullptr);
  // Serialising again gives the same bytes.
  EXPECT_EQ(serializePjrtBundle(parsed), bytes);
}

TEST(PjrtBundleTest, EmptyBundle) {
  std::vector<uint8_t> bytes = serializePjrtBundle(PjrtBundle());
  PjrtBundle parsed;
  std::string error;
  EXPECT_TRUE(parsePjrtBundle(bytes.data(), bytes.size(), parsed, error))
      << error;
  EXPECT_TRUE(parsed.plugin.empty());
  EXPECT_TRUE(parsed.kernels.empty());
}

TEST(PjrtBundleTest, BadMagic) {
  std::vector<uint8_t> bytes = serializePjrtBundle(makeBundle());
  bytes[3] = 'X';
  EXPECT_EQ(parseError(bytes), "not a PJRT program bundle");
  EXPECT_EQ(parseError({}), "not a PJRT program bundle");
  EXPECT_EQ(parseError({'O', 'R', 'X'}), "not a PJRT program bundle");
}

TEST(PjrtBundleTest, OtherVersion) {
  std::vector<uint8_t> bytes = serializePjrtBundle(makeBundle());
  // Version 1 had no requirements and no ahead-of-time binaries.
  for (uint8_t version : {0, 1, 3}) {
    bytes[8] = version;
    EXPECT_EQ(parseError(bytes),
              "PJRT program bundle: PJRT program bundle version " +
                  std::to_string(version) + ", this runtime reads 2");
  }
}

TEST(PjrtBundleTest, EveryTruncationFails) {
  std::vector<uint8_t> bytes = serializePjrtBundle(makeBundle());
  for (size_t size = 0; size < bytes.size(); ++size) {
    // A copy of exactly `size` bytes, so that a sanitizer sees any read past
    // the end.
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + size);
    PjrtBundle bundle;
    std::string error;
    EXPECT_FALSE(parsePjrtBundle(prefix.data(), prefix.size(), bundle, error))
        << "prefix of " << size << " bytes";
    EXPECT_FALSE(error.empty()) << "prefix of " << size << " bytes";
  }
}

TEST(PjrtBundleTest, TrailingBytes) {
  std::vector<uint8_t> bytes = serializePjrtBundle(makeBundle());
  bytes.push_back(0);
  EXPECT_EQ(parseError(bytes), "PJRT program bundle: 1 bytes follow the last "
                               "kernel of the PJRT program bundle");
}

TEST(PjrtBundleTest, HugeLengthsAreRejectedBeforeAllocating) {
  PjrtBundle bundle;
  std::vector<uint8_t> bytes = serializePjrtBundle(bundle);
  // The kernel count follows the magic, the version and three empty
  // strings.
  ASSERT_EQ(bytes.size(), 8u + 4 + 4 + 4 + 4 + 4);
  std::memset(bytes.data() + 24, 0xff, 4);
  EXPECT_NE(parseError(bytes).find("kernels: count 4294967295 exceeds the "
                                   "remaining 0 payload bytes"),
            std::string::npos);

  // A program longer than the bundle.
  bundle.kernels = {makeBundle().kernels[1]};
  bytes = serializePjrtBundle(bundle);
  size_t programLength = 28 + 4 + bundle.kernels[0].symbol.size() + 4 + 4;
  std::memset(bytes.data() + programLength, 0xff, 8);
  EXPECT_NE(parseError(bytes).find("kernels[0].program: 18446744073709551615 "
                                   "bytes exceed the remaining"),
            std::string::npos)
      << parseError(bytes);
}

TEST(PjrtBundleTest, BadKernels) {
  EXPECT_EQ(editError([](PjrtBundle &b) { b.kernels[1].symbol = ""; }),
            "PJRT program bundle: kernels[1].symbol is empty");
  EXPECT_EQ(editError([](PjrtBundle &b) {
              b.kernels[1].symbol = b.kernels[0].symbol;
            }),
            "PJRT program bundle: kernels[1] repeats the symbol "
            "'orx_kernel_matmul'");
  EXPECT_EQ(editError([](PjrtBundle &b) { b.kernels[0].programFormat = ""; }),
            "PJRT program bundle: kernels[0] ('orx_kernel_matmul') has no "
            "program format");
  EXPECT_EQ(editError([](PjrtBundle &b) { b.kernels[1].program.clear(); }),
            "PJRT program bundle: kernels[1] ('orx_kernel_constant') has an "
            "empty program");
  EXPECT_EQ(editError([](PjrtBundle &b) { b.kernels[0].aotBinary.clear(); }),
            "PJRT program bundle: kernels[0] ('orx_kernel_matmul') has an "
            "ahead-of-time format without a binary");
  EXPECT_EQ(editError([](PjrtBundle &b) { b.kernels[0].aotFormat.clear(); }),
            "PJRT program bundle: kernels[0] ('orx_kernel_matmul') has an "
            "ahead-of-time binary without a format");
}

TEST(PjrtBundleTest, BadTensors) {
  EXPECT_EQ(editError([](PjrtBundle &b) {
              b.kernels[0].args[1].elementType = static_cast<DType>(13);
            }),
            "PJRT program bundle: kernels[0].args[1].element_type = 13 is not "
            "an element type");
  EXPECT_EQ(
      editError([](PjrtBundle &b) {
        b.kernels[1].results[0].dims = {2, -1};
      }),
      "PJRT program bundle: kernels[1].results[0].dims[1] = -1 is negative");
  EXPECT_EQ(
      editError([](PjrtBundle &b) {
        b.kernels[1].results[0].dims = {int64_t(1) << 40, int64_t(1) << 30};
      }),
      "PJRT program bundle: kernels[1].results[0] is too large to "
      "address");
}

TEST(PjrtBundleTest, BinaryFormat) {
  BinaryDesc binary{
      "cpu_pjrt", kPjrtBundleFormat, serializePjrtBundle(makeBundle()), {}};
  EXPECT_TRUE(isPjrtBundle(binary));
  PjrtBundle parsed;
  std::string error;
  EXPECT_TRUE(parsePjrtBundleBinary(binary, 2, parsed, error)) << error;

  binary.data.push_back(1);
  EXPECT_FALSE(parsePjrtBundleBinary(binary, 2, parsed, error));
  EXPECT_EQ(error.rfind("kernel binary 2 (", 0), 0u) << error;
  EXPECT_NE(error.find(" bytes) is invalid: PJRT program bundle: 1 bytes "
                       "follow"),
            std::string::npos)
      << error;

  binary.format = "elf-shared-object";
  EXPECT_FALSE(isPjrtBundle(binary));
  EXPECT_FALSE(parsePjrtBundleBinary(binary, 2, parsed, error));
  EXPECT_EQ(error, "kernel binary 2 has format 'elf-shared-object', not "
                   "'pjrt-bundle'");
}

} // namespace
