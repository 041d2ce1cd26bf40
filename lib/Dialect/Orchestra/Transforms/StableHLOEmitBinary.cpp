//===- StableHLOEmitBinary.cpp - StableHLO kernels as a PJRT bundle -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Artifact/DType.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
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
#include "llvm/Support/raw_ostream.h"

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

namespace {
class StableHLOEmitBinaryPass
    : public orchestra::impl::StableHLOEmitBinaryBase<StableHLOEmitBinaryPass> {
public:
  using StableHLOEmitBinaryBase::StableHLOEmitBinaryBase;

  void runOnOperation() override;

private:
  /// The bridge to run, or failure with an error on `module`.
  FailureOr<std::string> findBridge(ModuleOp module);
  /// Runs the bridge on `text`; returns the portable artifact.
  FailureOr<std::vector<uint8_t>> serialize(func::FuncOp func, StringRef text,
                                            StringRef bridgePath,
                                            StringRef version,
                                            StringRef dumpDir);
};
} // namespace

FailureOr<std::string> StableHLOEmitBinaryPass::findBridge(ModuleOp module) {
  auto named = [&](StringRef path, StringRef by) -> FailureOr<std::string> {
    if (!llvm::sys::fs::can_execute(path))
      return module.emitError() << by << " names '" << path << "', which is "
                                << "not an executable " << kBridgeName;
    return path.str();
  };
  if (!bridge.empty())
    return named(bridge, "the bridge option");
  if (std::optional<std::string> env =
          llvm::sys::Process::GetEnv("ORCHESTRA_STABLEHLO_BRIDGE"))
    if (!env->empty())
      return named(*env, "$ORCHESTRA_STABLEHLO_BRIDGE");
  // Beside the running tool (build/bin, an install's bin).
  static int anchor;
  std::string self = llvm::sys::fs::getMainExecutable(nullptr, &anchor);
  if (!self.empty()) {
    SmallString<256> beside(llvm::sys::path::parent_path(self));
    llvm::sys::path::append(beside, kBridgeName);
    if (llvm::sys::fs::can_execute(beside))
      return beside.str().str();
  }
  if (llvm::ErrorOr<std::string> onPath =
          llvm::sys::findProgramByName(kBridgeName))
    return *onPath;
  return module.emitError()
         << "cannot find " << kBridgeName
         << " (beside the compiler, on PATH, or in "
            "$ORCHESTRA_STABLEHLO_BRIDGE): it turns StableHLO kernels into "
            "portable artifacts";
}

FailureOr<std::vector<uint8_t>>
StableHLOEmitBinaryPass::serialize(func::FuncOp func, StringRef text,
                                   StringRef bridgePath, StringRef version,
                                   StringRef dumpDir) {
  SmallString<128> input, output, errors;
  // Removed on every path, whichever were created.
  llvm::scope_exit cleanUp([&] {
    for (const SmallString<128> &path : {input, output, errors})
      if (!path.empty())
        llvm::sys::fs::remove(path);
  });
  if (llvm::sys::fs::createTemporaryFile("orchestra-stablehlo", "mlir",
                                         input) ||
      llvm::sys::fs::createTemporaryFile("orchestra-stablehlo", "mlirbc",
                                         output) ||
      llvm::sys::fs::createTemporaryFile("orchestra-stablehlo", "err", errors))
    return func.emitError() << "cannot create temporary files for the bridge";
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input, ec);
    if (ec)
      return func.emitError()
             << "cannot write '" << input << "': " << ec.message();
    os << text;
    os.close();
    if (os.has_error()) {
      os.clear_error();
      return func.emitError() << "cannot write '" << input << "'";
    }
  }
  SmallVector<StringRef> args = {bridgePath, input,      "-o",
                                 output,     "--target", version};
  // Its output and errors both go to `errors` (the tool's stdout may be the
  // IR it prints).
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(errors),
                                          StringRef(errors)};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(bridgePath, args, std::nullopt,
                                         redirects, /*SecondsToWait=*/600,
                                         /*MemoryLimit=*/0, &message);
  if (status != 0) {
    std::string stderrText;
    if (auto buffer = llvm::MemoryBuffer::getFile(errors))
      stderrText = StringRef((*buffer)->getBuffer()).trim().str();
    InFlightDiagnostic diag = func.emitError()
                              << "the StableHLO bridge refused kernel '"
                              << func.getSymName() << "'";
    if (!stderrText.empty())
      diag << ": " << stderrText;
    else if (!message.empty())
      diag << ": " << message;
    return diag;
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> artifact =
      llvm::MemoryBuffer::getFile(output, /*IsText=*/false);
  if (!artifact || (*artifact)->getBufferSize() == 0)
    return func.emitError() << "the StableHLO bridge wrote no artifact for '"
                            << func.getSymName() << "'";
  StringRef bytes = (*artifact)->getBuffer();
  if (!dumpDir.empty()) {
    SmallString<256> base(dumpDir);
    llvm::sys::path::append(base, func.getSymName());
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpDir))
      return func.emitError()
             << "cannot create '" << dumpDir << "': " << ec.message();
    for (const std::pair<StringRef, StringRef> &file :
         {std::pair<StringRef, StringRef>(".stablehlo.mlir", text),
          std::pair<StringRef, StringRef>(".mlirbc", bytes)}) {
      std::string path = (base + file.first).str();
      StringRef content = file.second;
      if (llvm::Error error =
              llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
                os << content;
                return llvm::Error::success();
              }))
        return func.emitError() << "cannot write '" << path
                                << "': " << llvm::toString(std::move(error));
    }
  }
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

void StableHLOEmitBinaryPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  auto target = module->getAttrOfType<DictionaryAttr>(attr::kTarget);
  orx::PjrtBundle bundle;
  if (auto arch = module->getAttrOfType<StringAttr>(attr::kArch))
    bundle.platform = arch.str();
  std::string version = stablehloVersion;
  if (target) {
    if (auto plugin = target.getAs<StringAttr>(kPluginKey))
      bundle.plugin = plugin.str();
    if (auto wanted = target.getAs<StringAttr>(kVersionKey))
      version = wanted.str();
  }
  std::string dumpDir;
  if (auto dir = module->getAttrOfType<StringAttr>(attr::kDeviceCodeDir)) {
    SmallString<256> path(dir.getValue());
    llvm::sys::path::append(path, module.getSymName().value_or("kernels"));
    dumpDir = path.str().str();
  }

  FailureOr<std::string> bridgePath = failure();
  SmallVector<Attribute> kernels;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    auto text = func->getAttrOfType<StringAttr>(attr::kStableHLO);
    if (!text) {
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
    if (failed(bridgePath)) {
      bridgePath = findBridge(module);
      if (failed(bridgePath))
        return signalPassFailure();
    }
    FailureOr<std::vector<uint8_t>> program =
        serialize(func, text.getValue(), *bridgePath, version, dumpDir);
    if (failed(program))
      return signalPassFailure();
    kernel.program = std::move(*program);
    bundle.kernels.push_back(std::move(kernel));
    kernels.push_back(StringAttr::get(ctx, func.getSymName()));
  }

  std::vector<uint8_t> bytes = orx::serializePjrtBundle(bundle);
  module.getBody()->clear();
  module->setAttr(attr::kBinary,
                  StringAttr::get(ctx, StringRef(reinterpret_cast<const char *>(
                                                     bytes.data()),
                                                 bytes.size())));
  module->setAttr(attr::kBinaryFormat,
                  StringAttr::get(ctx, orx::kPjrtBundleFormat));
  module->setAttr(attr::kKernels, ArrayAttr::get(ctx, kernels));
}
