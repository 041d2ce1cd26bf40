//===- TargetRegistryTest.cpp - Tests of the target registry --------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/TargetRegistry.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::orchestra;

namespace {

/// A registry with one test arch, independent of the compiled-in backends.
class TargetRegistryTest : public ::testing::Test {
protected:
  TargetRegistryTest() : builder(&context) {
    TargetInfo info;
    info.arch = "test_accel";
    info.description = "test accelerator";
    info.keys = {
        {"cores", TargetKeyType::Integer, /*required=*/true, "cores", 1, {}},
        {"fast",
         TargetKeyType::Bool,
         /*required=*/false,
         "fast mode",
         std::nullopt,
         {}},
        {"mode",
         TargetKeyType::String,
         /*required=*/false,
         "mode",
         std::nullopt,
         {"a", "b"}},
        {"clock",
         TargetKeyType::Float,
         /*required=*/false,
         "clock",
         std::nullopt,
         {}},
    };
    info.memorySpaces = {{"dram", MemoryScope::Device, "memory"},
                         {"scratch", MemoryScope::Kernel, "scratchpad"}};
    info.defaultMemorySpace = "dram";
    info.runtimeDriver = "test";
    llvm::cantFail(registry.registerTarget(std::move(info)));
  }

  /// Verifies `entries` and returns the diagnostic text, or "" on success.
  std::string verify(ArrayRef<NamedAttribute> entries) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      message = diag.str();
      return success();
    });
    DictionaryAttr target = builder.getDictionaryAttr(entries);
    LogicalResult result = registry.verifyTarget(
        target, [&] { return emitError(builder.getUnknownLoc()); });
    EXPECT_EQ(failed(result), !message.empty());
    return message;
  }

  NamedAttribute arch(StringRef value) {
    return builder.getNamedAttr("arch", builder.getStringAttr(value));
  }
  NamedAttribute entry(StringRef name, Attribute value) {
    return builder.getNamedAttr(name, value);
  }

  MLIRContext context;
  Builder builder;
  TargetRegistry registry;
};

TEST_F(TargetRegistryTest, AcceptsAValidTarget) {
  EXPECT_EQ(verify({arch("test_accel"),
                    entry("device_id", builder.getI64IntegerAttr(3)),
                    entry("cores", builder.getI64IntegerAttr(4)),
                    entry("fast", builder.getBoolAttr(true)),
                    entry("mode", builder.getStringAttr("b")),
                    entry("clock", builder.getF64FloatAttr(1.5))}),
            "");
}

TEST_F(TargetRegistryTest, RejectsMissingOrMistypedArch) {
  EXPECT_NE(verify({entry("device_id", builder.getI64IntegerAttr(0))})
                .find("missing the mandatory key 'arch'"),
            std::string::npos);
  EXPECT_NE(verify({entry("arch", builder.getI64IntegerAttr(1))})
                .find("'arch' must be a string"),
            std::string::npos);
}

TEST_F(TargetRegistryTest, UnknownArchSuggestsAndListsKnownArchs) {
  std::string message = verify(
      {arch("test_acel"), entry("device_id", builder.getI64IntegerAttr(0))});
  EXPECT_NE(message.find("unknown arch \"test_acel\""), std::string::npos);
  EXPECT_NE(message.find("did you mean \"test_accel\"?"), std::string::npos);
  EXPECT_NE(message.find("known archs: test_accel"), std::string::npos);
  // A name far from every arch gets no suggestion, only the list.
  message = verify(
      {arch("zzzzzzzzzzzz"), entry("device_id", builder.getI64IntegerAttr(0))});
  EXPECT_EQ(message.find("did you mean"), std::string::npos);
  EXPECT_NE(message.find("known archs: test_accel"), std::string::npos);
}

TEST_F(TargetRegistryTest, DeviceIdIsMandatoryNonNegativeInteger) {
  NamedAttribute cores = entry("cores", builder.getI64IntegerAttr(1));
  EXPECT_NE(verify({arch("test_accel"), cores}).find("'device_id' (integer)"),
            std::string::npos);
  EXPECT_NE(verify({arch("test_accel"), cores,
                    entry("device_id", builder.getStringAttr("0"))})
                .find("'device_id' must be an integer"),
            std::string::npos);
  EXPECT_NE(verify({arch("test_accel"), cores,
                    entry("device_id", builder.getBoolAttr(false))})
                .find("'device_id' must be an integer"),
            std::string::npos);
  EXPECT_NE(verify({arch("test_accel"), cores,
                    entry("device_id", builder.getI64IntegerAttr(-1))})
                .find("must be non-negative"),
            std::string::npos);
}

TEST_F(TargetRegistryTest, ChecksArchSpecificKeys) {
  NamedAttribute device = entry("device_id", builder.getI64IntegerAttr(0));
  NamedAttribute cores = entry("cores", builder.getI64IntegerAttr(2));
  std::string message = verify({arch("test_accel"), device, cores,
                                entry("fats", builder.getBoolAttr(true))});
  EXPECT_NE(message.find("unknown target key 'fats' for arch \"test_accel\""),
            std::string::npos);
  EXPECT_NE(message.find("did you mean 'fast'?"), std::string::npos);
  EXPECT_NE(message.find("known keys: clock (float), cores (integer), fast "
                         "(bool), mode (string)"),
            std::string::npos);

  EXPECT_NE(verify({arch("test_accel"), device, cores,
                    entry("fast", builder.getI64IntegerAttr(1))})
                .find("'fast' of arch \"test_accel\" must be a bool"),
            std::string::npos);
  EXPECT_NE(verify({arch("test_accel"), device,
                    entry("cores", builder.getBoolAttr(true))})
                .find("'cores' of arch \"test_accel\" must be a integer"),
            std::string::npos);
  EXPECT_NE(verify({arch("test_accel"), device,
                    entry("cores", builder.getI64IntegerAttr(0))})
                .find("must be at least 1, got 0"),
            std::string::npos);
  EXPECT_NE(verify({arch("test_accel"), device, cores,
                    entry("mode", builder.getStringAttr("c"))})
                .find("must be one of \"a\", \"b\"; got \"c\""),
            std::string::npos);
  EXPECT_NE(verify({arch("test_accel"), device})
                .find("arch \"test_accel\" requires target key 'cores' "
                      "(integer)"),
            std::string::npos);
}

TEST_F(TargetRegistryTest, RejectsMalformedEntries) {
  auto registerInfo = [&](TargetInfo info) {
    llvm::Error error = registry.registerTarget(std::move(info));
    std::string message = llvm::toString(std::move(error));
    return message;
  };
  TargetInfo duplicate;
  duplicate.arch = "test_accel";
  duplicate.memorySpaces = {{"dram", MemoryScope::Device, ""}};
  duplicate.defaultMemorySpace = "dram";
  EXPECT_NE(registerInfo(duplicate).find("already registered"),
            std::string::npos);

  TargetInfo noDefault;
  noDefault.arch = "other";
  noDefault.memorySpaces = {{"smem", MemoryScope::Kernel, ""}};
  noDefault.defaultMemorySpace = "smem";
  EXPECT_NE(registerInfo(noDefault).find("not one of its device-scope"),
            std::string::npos);

  TargetInfo reserved;
  reserved.arch = "other";
  reserved.memorySpaces = {{"dram", MemoryScope::Device, ""}};
  reserved.defaultMemorySpace = "dram";
  reserved.keys = {{"device_id", TargetKeyType::Integer, false, "", {}, {}}};
  EXPECT_NE(registerInfo(reserved).find("common to every arch"),
            std::string::npos);

  TargetInfo noDriver;
  noDriver.arch = "other";
  noDriver.memorySpaces = {{"dram", MemoryScope::Device, ""}};
  noDriver.defaultMemorySpace = "dram";
  EXPECT_NE(registerInfo(noDriver).find("names no runtime driver"),
            std::string::npos);

  TargetInfo empty;
  EXPECT_NE(registerInfo(empty).find("the arch string is empty"),
            std::string::npos);
}

TEST(GlobalTargetRegistryTest, HasTheSpecArchs) {
  const TargetRegistry &registry = getTargetRegistry();
  SmallVector<StringRef> archs = registry.getArchs();
  for (StringRef arch : {"x86_64", "nvidia_hopper", "nvidia_blackwell",
                         "amd_cdna3", "google_tpu_v5e", "aws_trainium2"})
    EXPECT_TRUE(llvm::is_contained(archs, arch)) << arch.str();

  const TargetInfo *cdna3 = registry.lookup("amd_cdna3");
  ASSERT_NE(cdna3, nullptr);
  ASSERT_NE(cdna3->lookupKey("mfma"), nullptr);
  EXPECT_EQ(cdna3->lookupKey("mfma")->type, TargetKeyType::Bool);
  ASSERT_NE(cdna3->lookupKey("lds_size"), nullptr);
  EXPECT_EQ(cdna3->lookupKey("lds_size")->type, TargetKeyType::Integer);
  EXPECT_EQ(cdna3->executableFormat, ExecutableFormat::HSACO);
  for (StringRef arch : archs)
    EXPECT_FALSE(registry.lookup(arch)->runtimeDriver.empty()) << arch.str();
  EXPECT_EQ(registry.lookup("x86_64")->runtimeDriver, "cpu");
  ASSERT_NE(cdna3->lookupMemorySpace("lds"), nullptr);
  EXPECT_EQ(cdna3->lookupMemorySpace("lds")->scope, MemoryScope::Kernel);

  EXPECT_EQ(registry.lookup("nvidia_hopper")->executableFormat,
            ExecutableFormat::Cubin);
  EXPECT_EQ(registry.lookup("google_tpu_v5e")->executableFormat,
            ExecutableFormat::StableHLO);
  EXPECT_TRUE(registry.lookup("aws_trainium2")->acceptsNKISource);
  EXPECT_FALSE(registry.lookup("x86_64")->acceptsNKISource);
  // Every entry is reachable by its own arch string and has a default space.
  for (StringRef arch : archs) {
    const TargetInfo *info = registry.lookup(arch);
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->arch, arch.str());
    EXPECT_NE(info->lookupMemorySpace(info->defaultMemorySpace), nullptr);
  }
}

} // namespace
