//===- CompileTpu.cpp - TPU kernels compiled ahead of time by libtpu ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/StableHLO/KernelFiles.h"
#include "orchestra/Support/ExternalTools.h"
#include "orchestra/Target/Google/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace mlir::orchestra::google {
#define GEN_PASS_DEF_GOOGLECOMPILETPU
#include "orchestra/Target/Google/Passes.h.inc"
} // namespace mlir::orchestra::google

using namespace mlir;
using namespace mlir::orchestra;

/// The target keys this pass reads.
static constexpr StringLiteral kTpuAotKey = "tpu_aot";
static constexpr StringLiteral kTpuTopologyKey = "tpu_topology";
static constexpr StringLiteral kPjrtCompileName = "orchestra-pjrt-compile";
/// orchestra-pjrt-compile's exit status when it finds no plugin.
static constexpr int kNoPlugin = 3;
/// The ahead-of-time format of a serialized PJRT executable of the `tpu`
/// platform (orx::kPjrtExecutableFormatPrefix + the client's platform).
static constexpr StringLiteral kTpuExecutableFormat = "pjrt-executable:tpu";

/// What a TPU host needs to run the module's bundle.
static std::string getRequirements(StringRef topology, bool compiled) {
  std::string text = "a Cloud TPU host with libtpu (Python package libtpu) "
                     "as the PJRT plugin, named by the device's pjrt_plugin "
                     "key or $ORCHESTRA_PJRT_PLUGIN";
  if (compiled)
    text += "; each kernel also carries the executable libtpu compiled "
            "ahead of time for topology " +
            topology.str() +
            ", which the pjrt driver loads on a TPU without compiling "
            "(another plugin compiles the portable StableHLO)";
  return text;
}

namespace {
class GoogleCompileTpuPass
    : public google::impl::GoogleCompileTpuBase<GoogleCompileTpuPass> {
public:
  using GoogleCompileTpuBase::GoogleCompileTpuBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string mode = "off", topology = "v5e:1x1";
    if (auto target = module->getAttrOfType<DictionaryAttr>(attr::kTarget)) {
      if (auto aot = target.getAs<StringAttr>(kTpuAotKey))
        mode = aot.str();
      if (auto name = target.getAs<StringAttr>(kTpuTopologyKey))
        topology = name.str();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(attr::kStableHLO))
        funcs.push_back(func);
    bool compiled = false;
    if (mode != "off" && !funcs.empty()) {
      FailureOr<bool> result =
          compileAll(module, funcs, topology, mode == "require");
      if (failed(result))
        return signalPassFailure();
      compiled = *result;
    }
    module->setAttr(
        attr::kHostRequirements,
        StringAttr::get(&getContext(), getRequirements(topology, compiled)));
  }

private:
  /// Compiles every kernel of `funcs` in one orchestra-pjrt-compile run;
  /// returns whether it did (false: no tool or libtpu, with a remark, when
  /// not `required`).
  FailureOr<bool> compileAll(ModuleOp module, ArrayRef<func::FuncOp> funcs,
                             StringRef topology, bool required) {
    std::string error;
    std::optional<std::string> tool = findTool(
        kPjrtCompileName, pjrtCompileOption, "ORCHESTRA_PJRT_COMPILE", error);
    if (!error.empty())
      return module.emitError() << error;
    if (!tool) {
      std::string why = ("cannot find " + kPjrtCompileName +
                         " (beside the compiler, on PATH, or in "
                         "$ORCHESTRA_PJRT_COMPILE; it is built with the "
                         "runtime's pjrt driver)")
                            .str();
      if (required)
        return module.emitError()
               << why << "; the device's tpu_aot = \"require\"";
      module.emitRemark() << why
                          << ": the TPU kernels are stored as portable "
                             "StableHLO only";
      return false;
    }

    // libtpu compiles the StableHLO text as it would the portable artifact
    // the bundle carries.
    FailureOr<std::unique_ptr<stablehlo::KernelFiles>> files =
        stablehlo::KernelFiles::create(funcs, "orchestra-tpu");
    if (failed(files))
      return failure();
    std::vector<std::string> pairs = (*files)->getArguments(".tpu");
    SmallVector<StringRef> args = {*tool, "--topology", topology};
    for (const std::string &pair : pairs)
      args.push_back(pair);
    std::string message;
    int status = 0;
    if (failed(runTool(args, /*seconds=*/3600, message, &status))) {
      // The tool's own error, without what libtpu logged before it.
      std::string prefix = (kPjrtCompileName + ": error: ").str();
      if (size_t at = message.rfind(prefix); at != std::string::npos)
        message = message.substr(at);
      if (status == kNoPlugin && !required) {
        module.emitRemark() << message
                            << ": the TPU kernels are stored as portable "
                               "StableHLO only";
        return false;
      }
      return module.emitError()
             << "cannot compile the TPU kernels ahead of time for topology '"
             << topology << "': " << message;
    }

    FailureOr<std::string> dumpDir = stablehlo::getDeviceCodeDir(module);
    if (failed(dumpDir))
      return failure();
    for (func::FuncOp func : funcs) {
      std::vector<uint8_t> bytes = readFile((*files)->getPath(func, ".tpu"));
      if (bytes.empty())
        return func.emitError() << kPjrtCompileName << " wrote no executable "
                                << "for kernel '" << func.getSymName() << "'";
      StringRef binary(reinterpret_cast<const char *>(bytes.data()),
                       bytes.size());
      func->setAttr(attr::kAotFormat,
                    StringAttr::get(&getContext(), kTpuExecutableFormat));
      func->setAttr(attr::kAotBinary, StringAttr::get(&getContext(), binary));
      if (dumpDir->empty())
        continue;
      SmallString<256> path(*dumpDir);
      llvm::sys::path::append(path, func.getSymName() + ".tpu-executable");
      if (failed(writeFile(func, path, binary)))
        return failure();
    }
    return true;
  }
};
} // namespace
