//===- CompileNeff.cpp - Trainium kernels through neuronx-cc --------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/StableHLO/KernelFiles.h"
#include "orchestra/Support/ExternalTools.h"
#include "orchestra/Target/AWS/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace mlir::orchestra::aws {
#define GEN_PASS_DEF_AWSCOMPILENEFF
#include "orchestra/Target/AWS/Passes.h.inc"
} // namespace mlir::orchestra::aws

using namespace mlir;
using namespace mlir::orchestra;

/// The target keys this pass reads.
static constexpr StringLiteral kNeuronAotKey = "neuron_aot";
static constexpr StringLiteral kLogicalCoresKey = "logical_core_count";
static constexpr StringLiteral kBridgeName = "orchestra-stablehlo-bridge";
static constexpr StringLiteral kNeuronCompilerName = "neuronx-cc";
/// The ahead-of-time format of a NEFF in a PJRT bundle.
static constexpr StringLiteral kNeffFormat = "neff";

/// What a Trainium host needs to run the module's bundle.
static std::string getRequirements(int64_t logicalCores, bool withNeff) {
  std::string cores = std::to_string(logicalCores);
  std::string text =
      "an AWS Trainium2 host with the Neuron SDK: the Neuron PJRT plugin "
      "(libneuronpjrt.so, Python package libneuronxla) named by the "
      "device's pjrt_plugin key or $ORCHESTRA_PJRT_PLUGIN compiles each "
      "kernel's StableHLO with neuronx-cc; set NEURON_CC_FLAGS='--target "
      "trn2 --logical-nc-config " +
      cores + " --auto-cast none' and NEURON_LOGICAL_NC_CONFIG=" + cores +
      " so that it compiles as this artifact was checked";
  text += withNeff ? "; each kernel also carries the NEFF neuronx-cc "
                     "compiled here (for neuron-profile and the Neuron "
                     "runtime)"
                   : "; no NEFF inside (neuronx-cc was not used)";
  return text;
}

namespace {
class AWSCompileNeffPass
    : public aws::impl::AWSCompileNeffBase<AWSCompileNeffPass> {
public:
  using AWSCompileNeffBase::AWSCompileNeffBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string mode = "auto";
    int64_t logicalCores = 2;
    if (auto target = module->getAttrOfType<DictionaryAttr>(attr::kTarget)) {
      if (auto aot = target.getAs<StringAttr>(kNeuronAotKey))
        mode = aot.str();
      if (auto cores = target.getAs<IntegerAttr>(kLogicalCoresKey))
        logicalCores = cores.getInt();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(attr::kStableHLO))
        funcs.push_back(func);

    std::optional<std::string> compiler;
    if (mode != "off" && !funcs.empty()) {
      std::string error;
      compiler = findTool(kNeuronCompilerName, neuronCompilerOption,
                          "ORCHESTRA_NEURONX_CC", error);
      if (!error.empty()) {
        module.emitError() << error;
        return signalPassFailure();
      }
      if (!compiler && mode == "require") {
        module.emitError()
            << "cannot find " << kNeuronCompilerName
            << " (the device's neuron_aot = \"require\"; looked beside the "
               "compiler, on PATH and in $ORCHESTRA_NEURONX_CC): install the "
               "Neuron SDK's compiler, or set neuron_aot = \"auto\" to leave "
               "the compilation to the Trainium host";
        return signalPassFailure();
      }
      if (!compiler)
        module.emitRemark()
            << kNeuronCompilerName
            << " is not installed: the Trainium kernels are stored as "
               "portable StableHLO only, which the Neuron PJRT plugin "
               "compiles on the Trainium host";
    }
    if (compiler && failed(compileAll(module, funcs, *compiler, logicalCores)))
      return signalPassFailure();
    module->setAttr(
        attr::kHostRequirements,
        StringAttr::get(&getContext(),
                        getRequirements(logicalCores, compiler.has_value())));
  }

private:
  /// Every kernel of `funcs` to an HLO module (one bridge run), then each
  /// through neuronx-cc.
  LogicalResult compileAll(ModuleOp module, ArrayRef<func::FuncOp> funcs,
                           StringRef compiler, int64_t logicalCores) {
    std::string error;
    std::optional<std::string> bridgePath =
        findTool(kBridgeName, bridge, "ORCHESTRA_STABLEHLO_BRIDGE", error);
    if (!bridgePath)
      return module.emitError()
             << (error.empty() ? ("cannot find " + kBridgeName +
                                  ", which writes the HLO modules neuronx-cc "
                                  "compiles")
                                     .str()
                               : error);
    FailureOr<std::unique_ptr<stablehlo::KernelFiles>> files =
        stablehlo::KernelFiles::create(funcs, "orchestra-neuron");
    if (failed(files))
      return failure();
    auto pathOf = [&](func::FuncOp func, StringRef suffix) {
      return (*files)->getPath(func, suffix);
    };
    std::vector<std::string> batch = (*files)->getArguments(".hlo.pb");
    SmallVector<StringRef> args = {*bridgePath, "--hlo-only"};
    for (const std::string &entry : batch)
      args.push_back(entry);
    std::string message;
    LogicalResult ran = runTool(args, /*seconds=*/3600, message);

    FailureOr<std::string> dumpDir = stablehlo::getDeviceCodeDir(module);
    if (failed(dumpDir))
      return failure();
    std::string cores = std::to_string(logicalCores);
    for (func::FuncOp func : funcs) {
      std::string hlo = pathOf(func, ".hlo.pb");
      std::vector<uint8_t> hloBytes = readFile(hlo);
      if (hloBytes.empty())
        return func.emitError()
               << "cannot write kernel '" << func.getSymName()
               << "' as an HLO module for " << kNeuronCompilerName << ": "
               << (failed(ran) ? message : "the bridge wrote nothing");
      std::string neff = pathOf(func, ".neff");
      std::string log = pathOf(func, ".log");
      // Numerics as the other devices compute them: no automatic casts of
      // f32 matmuls to bf16 (neuronx-cc's default).
      SmallVector<StringRef> compile = {
          compiler, "compile",     hlo,    "--framework",
          "XLA",    "--target",    "trn2", "--logical-nc-config",
          cores,    "--auto-cast", "none", "--logfile",
          log,      "--output",    neff};
      std::string printed;
      if (failed(runTool(compile, /*seconds=*/3600, printed)))
        return func.emitError() << kNeuronCompilerName << " failed on kernel '"
                                << func.getSymName() << "': " << printed;
      std::vector<uint8_t> bytes = readFile(neff);
      if (bytes.empty())
        return func.emitError() << kNeuronCompilerName << " wrote no NEFF for '"
                                << func.getSymName() << "'";
      StringRef binary(reinterpret_cast<const char *>(bytes.data()),
                       bytes.size());
      func->setAttr(attr::kAotFormat,
                    StringAttr::get(&getContext(), kNeffFormat));
      func->setAttr(attr::kAotBinary, StringAttr::get(&getContext(), binary));
      if (dumpDir->empty())
        continue;
      SmallString<256> base(*dumpDir);
      llvm::sys::path::append(base, func.getSymName());
      if (failed(writeFile(
              func, (base + ".hlo.pb").str(),
              StringRef(reinterpret_cast<const char *>(hloBytes.data()),
                        hloBytes.size()))) ||
          failed(writeFile(func, (base + ".neff").str(), binary)))
        return failure();
    }
    return success();
  }
};
} // namespace
