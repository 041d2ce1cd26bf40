//===- StableHLOEmitBinary.cpp - StableHLO kernels as a PJRT bundle -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Artifact/DType.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/StableHLO/KernelFiles.h"
#include "orchestra/Support/ExternalTools.h"
#include "orchestra_rt/PjrtBundle.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_STABLEHLOEMITBINARY
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;
using namespace mlir::orchestra;

/// The target keys of StableHLO archs this pass reads.
static constexpr StringLiteral kPluginKey = "pjrt_plugin";
static constexpr StringLiteral kVersionKey = "stablehlo_version";
static constexpr StringLiteral kBridgeName = "orchestra-stablehlo-bridge";
static constexpr StringLiteral kPjrtCompileName = "orchestra-pjrt-compile";

static StringRef asString(const std::vector<uint8_t> &bytes) {
  return StringRef(reinterpret_cast<const char *>(bytes.data()), bytes.size());
}

namespace {
class StableHLOEmitBinaryPass
    : public orchestra::impl::StableHLOEmitBinaryBase<StableHLOEmitBinaryPass> {
public:
  using StableHLOEmitBinaryBase::StableHLOEmitBinaryBase;

  void runOnOperation() override;

private:
  /// Runs the bridge once on the StableHLO text of every kernel of `funcs`;
  /// returns their portable artifacts.
  FailureOr<std::vector<std::vector<uint8_t>>>
  serialize(ArrayRef<func::FuncOp> funcs, StringRef bridgePath,
            StringRef version);
  /// The newest StableHLO version the PJRT plugin `plugin` reads, asked of it
  /// with orchestra-pjrt-compile.
  FailureOr<std::string> askPluginVersion(ModuleOp module, StringRef plugin);
};
} // namespace

FailureOr<std::vector<std::vector<uint8_t>>>
StableHLOEmitBinaryPass::serialize(ArrayRef<func::FuncOp> funcs,
                                   StringRef bridgePath, StringRef version) {
  Operation *module = funcs.front()->getParentOp();
  FailureOr<std::unique_ptr<stablehlo::KernelFiles>> files =
      stablehlo::KernelFiles::create(funcs, "orchestra-stablehlo");
  if (failed(files))
    return failure();
  std::vector<std::string> batch = (*files)->getArguments(".mlirbc");
  SmallVector<StringRef> args = {bridgePath, "--target", version};
  for (const std::string &entry : batch)
    args.push_back(entry);
  std::string message;
  LogicalResult ran = runTool(args, /*seconds=*/3600, message);
  std::vector<std::vector<uint8_t>> artifacts;
  for (func::FuncOp func : funcs) {
    artifacts.push_back(readFile((*files)->getPath(func, ".mlirbc")));
    // The bridge stops at the first kernel it refuses.
    if (artifacts.back().empty()) {
      if (failed(ran))
        return func.emitError() << "the StableHLO bridge refused kernel '"
                                << func.getSymName() << "': " << message;
      return func.emitError() << "the StableHLO bridge wrote no artifact for '"
                              << func.getSymName() << "'";
    }
  }
  if (failed(ran))
    return module->emitError() << "the StableHLO bridge failed: " << message;
  return artifacts;
}

FailureOr<std::string>
StableHLOEmitBinaryPass::askPluginVersion(ModuleOp module, StringRef plugin) {
  std::string what = "stablehlo_version = \"plugin\"";
  // The plugin the run will load: $ORCHESTRA_PJRT_PLUGIN wins, as there.
  std::string path = plugin.str();
  if (std::optional<std::string> env =
          llvm::sys::Process::GetEnv("ORCHESTRA_PJRT_PLUGIN"))
    if (!env->empty())
      path = *env;
  if (path.empty())
    return module.emitError()
           << what << " needs the device's pjrt_plugin or "
           << "$ORCHESTRA_PJRT_PLUGIN to name the plugin to ask";
  std::string error;
  std::optional<std::string> tool = findTool(
      kPjrtCompileName, pjrtCompileOption, "ORCHESTRA_PJRT_COMPILE", error);
  if (!tool)
    return module.emitError()
           << what << ": "
           << (error.empty() ? "cannot find " + kPjrtCompileName.str() +
                                   " to ask the plugin"
                             : error);
  SmallString<128> out;
  if (llvm::sys::fs::createTemporaryFile("orchestra-version", "txt", out))
    return module.emitError() << "cannot create a temporary file";
  llvm::scope_exit removeOut([&] { llvm::sys::fs::remove(out); });
  // Its messages go to the compiler's stderr, above the error below.
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(out),
                                          std::nullopt};
  SmallVector<StringRef> args = {*tool, "--plugin", path,
                                 "--stablehlo-version"};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*tool, args, std::nullopt, redirects,
                                         /*SecondsToWait=*/120,
                                         /*MemoryLimit=*/0, &message);
  std::string version;
  if (auto buffer = llvm::MemoryBuffer::getFile(out))
    version = StringRef((*buffer)->getBuffer()).trim().str();
  if (status != 0 || version.empty())
    return module.emitError()
           << what << ": cannot ask the PJRT plugin '" << path
           << "' which StableHLO versions it reads ("
           << (message.empty() ? "see the message above" : message) << ")";
  return version;
}

void StableHLOEmitBinaryPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  auto target = module->getAttrOfType<DictionaryAttr>(attr::kTarget);
  orx::PjrtBundle bundle;
  if (auto arch = module->getAttrOfType<StringAttr>(attr::kArch))
    bundle.platform = arch.str();
  if (auto requirements =
          module->getAttrOfType<StringAttr>(attr::kHostRequirements))
    bundle.requirements = requirements.str();
  std::string version = stablehloVersion;
  if (target) {
    if (auto plugin = target.getAs<StringAttr>(kPluginKey))
      bundle.plugin = plugin.str();
    if (auto wanted = target.getAs<StringAttr>(kVersionKey))
      version = wanted.str();
  }
  FailureOr<std::string> dumpDir = stablehlo::getDeviceCodeDir(module);
  if (failed(dumpDir))
    return signalPassFailure();

  // Each kernel's description; its program comes from the bridge below.
  SmallVector<Attribute> kernels;
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    if (!func->getAttrOfType<StringAttr>(attr::kStableHLO)) {
      func.emitError() << "has no StableHLO module (run "
                          "orchestra-lower-to-stablehlo first)";
      return signalPassFailure();
    }
    orx::PjrtKernelDesc kernel;
    kernel.symbol = (orx::kKernelSymbolPrefix + func.getSymName()).str();
    kernel.programFormat = orx::kPjrtMlirProgramFormat;
    FunctionType type = func.getFunctionType();
    for (auto [types, out] :
         {std::make_pair(type.getInputs(), &kernel.args),
          std::make_pair(type.getResults(), &kernel.results)})
      for (Type t : types) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        std::optional<orx::DType> dtype =
            toDType(tensor ? tensor.getElementType() : t);
        if (!dtype || (tensor && !tensor.hasStaticShape())) {
          func.emitError() << "has an argument or result of type " << t
                           << ", which a PJRT program bundle cannot describe";
          return signalPassFailure();
        }
        orx::PjrtTensorDesc desc;
        desc.elementType = *dtype;
        if (tensor)
          desc.dims.assign(tensor.getShape().begin(), tensor.getShape().end());
        out->push_back(std::move(desc));
      }
    // What a backend's vendor compiler made of the kernel ahead of time.
    auto aotFormat = func->getAttrOfType<StringAttr>(attr::kAotFormat);
    auto aotBinary = func->getAttrOfType<StringAttr>(attr::kAotBinary);
    if (aotFormat && aotBinary) {
      kernel.aotFormat = aotFormat.str();
      kernel.aotBinary.assign(aotBinary.getValue().begin(),
                              aotBinary.getValue().end());
    }
    bundle.kernels.push_back(std::move(kernel));
    funcs.push_back(func);
    kernels.push_back(StringAttr::get(ctx, func.getSymName()));
  }

  if (!funcs.empty()) {
    if (version == "plugin") {
      FailureOr<std::string> reported = askPluginVersion(module, bundle.plugin);
      if (failed(reported))
        return signalPassFailure();
      version = *reported;
    }
    std::string error;
    std::optional<std::string> bridgePath =
        findTool(kBridgeName, bridge, "ORCHESTRA_STABLEHLO_BRIDGE", error);
    if (!bridgePath) {
      if (error.empty())
        error = ("cannot find " + kBridgeName +
                 " (beside the compiler, on PATH, or in "
                 "$ORCHESTRA_STABLEHLO_BRIDGE): it turns StableHLO kernels "
                 "into portable artifacts")
                    .str();
      module.emitError() << error;
      return signalPassFailure();
    }
    FailureOr<std::vector<std::vector<uint8_t>>> artifacts =
        serialize(funcs, *bridgePath, version);
    if (failed(artifacts))
      return signalPassFailure();
    for (auto [func, kernel, artifact] :
         llvm::zip(funcs, bundle.kernels, *artifacts)) {
      kernel.program = std::move(artifact);
      if (dumpDir->empty())
        continue;
      SmallString<256> base(*dumpDir);
      llvm::sys::path::append(base, func.getSymName());
      if (failed(writeFile(
              func, (base + ".stablehlo.mlir").str(),
              func->getAttrOfType<StringAttr>(attr::kStableHLO).getValue())) ||
          failed(writeFile(func, (base + ".mlirbc").str(),
                           asString(kernel.program))))
        return signalPassFailure();
    }
  }

  std::vector<uint8_t> bytes = orx::serializePjrtBundle(bundle);
  module.getBody()->clear();
  module->removeAttr(attr::kHostRequirements);
  module->setAttr(attr::kBinary, StringAttr::get(ctx, asString(bytes)));
  module->setAttr(attr::kBinaryFormat,
                  StringAttr::get(ctx, orx::kPjrtBundleFormat));
  module->setAttr(attr::kKernels, ArrayAttr::get(ctx, kernels));
}
