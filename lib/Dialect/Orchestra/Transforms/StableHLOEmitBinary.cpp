//===- StableHLOEmitBinary.cpp - StableHLO kernels as a PJRT bundle -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "ExternalTools.h"
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
static constexpr StringLiteral kNeuronAotKey = "neuron_aot";
static constexpr StringLiteral kTpuAotKey = "tpu_aot";
static constexpr StringLiteral kTpuTopologyKey = "tpu_topology";
static constexpr StringLiteral kLogicalCoresKey = "logical_core_count";
static constexpr StringLiteral kBridgeName = "orchestra-stablehlo-bridge";
static constexpr StringLiteral kNeuronCompilerName = "neuronx-cc";
static constexpr StringLiteral kPjrtCompileName = "orchestra-pjrt-compile";
/// orchestra-pjrt-compile's exit status when it finds no plugin.
static constexpr int kPjrtCompileNoPlugin = 3;
/// The arch whose kernels libtpu also compiles.
static constexpr StringLiteral kTpuArch = "google_tpu_v5e";
/// The arch whose kernels neuronx-cc also compiles.
static constexpr StringLiteral kTrainiumArch = "aws_trainium2";

namespace {
class StableHLOEmitBinaryPass
    : public orchestra::impl::StableHLOEmitBinaryBase<StableHLOEmitBinaryPass> {
public:
  using StableHLOEmitBinaryBase::StableHLOEmitBinaryBase;

  void runOnOperation() override;

private:
  /// A kernel's programs: the portable artifact, and the HloModuleProto when
  /// asked for.
  struct Programs {
    std::vector<uint8_t> portable;
    std::vector<uint8_t> hloProto;
  };
  /// Runs the bridge once on the StableHLO text of every kernel of `funcs`;
  /// `hloProto`: also write their HLO modules.
  FailureOr<std::vector<Programs>> serialize(ArrayRef<func::FuncOp> funcs,
                                             StringRef bridgePath,
                                             StringRef version, bool hloProto);
  /// Compiles every kernel of `bundle` ahead of time for the TPU topology
  /// `topology` with orchestra-pjrt-compile (libtpu); `mode` "auto" or
  /// "require" (see the pass description).
  LogicalResult compileForTpu(ModuleOp module, orx::PjrtBundle &bundle,
                              StringRef topology, StringRef mode,
                              StringRef dumpDir);
  /// The newest StableHLO version the PJRT plugin `plugin` reads, asked of it
  /// with orchestra-pjrt-compile.
  FailureOr<std::string> askPluginVersion(ModuleOp module, StringRef plugin);
  /// Compiles `hloProto` with neuronx-cc into a NEFF.
  FailureOr<std::vector<uint8_t>> compileNeff(func::FuncOp func,
                                              ArrayRef<uint8_t> hloProto,
                                              StringRef compilerPath,
                                              int64_t logicalCores);
};
} // namespace

FailureOr<std::vector<StableHLOEmitBinaryPass::Programs>>
StableHLOEmitBinaryPass::serialize(ArrayRef<func::FuncOp> funcs,
                                   StringRef bridgePath, StringRef version,
                                   bool hloProto) {
  if (funcs.empty())
    return std::vector<Programs>();
  Operation *module = funcs.front()->getParentOp();
  // One file per kernel, named after it (the bridge's messages name it).
  SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("orchestra-stablehlo", dir))
    return module->emitError()
           << "cannot create a temporary directory for the bridge";
  llvm::scope_exit cleanUp([&] { llvm::sys::fs::remove_directories(dir); });
  auto pathOf = [&](func::FuncOp func, StringRef suffix) {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, func.getSymName() + suffix);
    return path.str().str();
  };
  std::vector<std::string> batch;
  for (func::FuncOp func : funcs) {
    auto text = func->getAttrOfType<StringAttr>(attr::kStableHLO);
    if (failed(
            writeFile(func, pathOf(func, ".stablehlo.mlir"), text.getValue())))
      return failure();
    std::string entry =
        pathOf(func, ".stablehlo.mlir") + "=" + pathOf(func, ".mlirbc");
    if (hloProto)
      entry += "=" + pathOf(func, ".hlo.pb");
    batch.push_back(std::move(entry));
  }
  SmallVector<StringRef> args = {bridgePath, "--target", version};
  for (const std::string &entry : batch)
    args.push_back(entry);
  std::string message;
  LogicalResult ran = runTool(args, /*seconds=*/3600, message);
  std::vector<Programs> programs;
  for (func::FuncOp func : funcs) {
    Programs &kernel = programs.emplace_back();
    kernel.portable = readFile(pathOf(func, ".mlirbc"));
    if (hloProto)
      kernel.hloProto = readFile(pathOf(func, ".hlo.pb"));
    // The bridge stops at the first kernel it refuses.
    if (kernel.portable.empty() || (hloProto && kernel.hloProto.empty())) {
      if (failed(ran))
        return func.emitError() << "the StableHLO bridge refused kernel '"
                                << func.getSymName() << "': " << message;
      return func.emitError() << "the StableHLO bridge wrote no artifact for '"
                              << func.getSymName() << "'";
    }
  }
  if (failed(ran))
    return module->emitError() << "the StableHLO bridge failed: " << message;
  return programs;
}

FailureOr<std::vector<uint8_t>> StableHLOEmitBinaryPass::compileNeff(
    func::FuncOp func, ArrayRef<uint8_t> hloProto, StringRef compilerPath,
    int64_t logicalCores) {
  SmallString<128> input, output, log;
  llvm::scope_exit cleanUp([&] {
    for (const SmallString<128> &path : {input, output, log})
      if (!path.empty())
        llvm::sys::fs::remove(path);
  });
  if (llvm::sys::fs::createTemporaryFile("orchestra-neuron", "hlo.pb", input) ||
      llvm::sys::fs::createTemporaryFile("orchestra-neuron", "neff", output) ||
      llvm::sys::fs::createTemporaryFile("orchestra-neuron", "log", log))
    return func.emitError()
           << "cannot create temporary files for " << kNeuronCompilerName;
  if (failed(
          writeFile(func, input,
                    StringRef(reinterpret_cast<const char *>(hloProto.data()),
                              hloProto.size()))))
    return failure();
  std::string cores = std::to_string(logicalCores);
  // Numerics as the other devices compute them: no automatic casts of f32
  // matmuls to bf16 (neuronx-cc's default).
  SmallVector<StringRef> args = {
      compilerPath, "compile",     input,  "--framework",
      "XLA",        "--target",    "trn2", "--logical-nc-config",
      cores,        "--auto-cast", "none", "--logfile",
      log,          "--output",    output};
  std::string message;
  if (failed(runTool(args, /*seconds=*/3600, message)))
    return func.emitError() << kNeuronCompilerName << " failed on kernel '"
                            << func.getSymName() << "': " << message;
  std::vector<uint8_t> neff = readFile(output);
  if (neff.empty())
    return func.emitError() << kNeuronCompilerName << " wrote no NEFF for '"
                            << func.getSymName() << "'";
  return neff;
}

LogicalResult StableHLOEmitBinaryPass::compileForTpu(ModuleOp module,
                                                     orx::PjrtBundle &bundle,
                                                     StringRef topology,
                                                     StringRef mode,
                                                     StringRef dumpDir) {
  bool required = mode == "require";
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
    return success();
  }

  // One run for every kernel: the plugin is loaded once.
  SmallVector<SmallString<128>> files;
  llvm::scope_exit cleanUp([&] {
    for (const SmallString<128> &path : files)
      llvm::sys::fs::remove(path);
  });
  SmallVector<std::string> pairs;
  for (const orx::PjrtKernelDesc &kernel : bundle.kernels) {
    SmallString<128> &program = files.emplace_back();
    SmallString<128> &executable = files.emplace_back();
    if (llvm::sys::fs::createTemporaryFile("orchestra-tpu", "mlirbc",
                                           program) ||
        llvm::sys::fs::createTemporaryFile("orchestra-tpu", "tpu", executable))
      return module.emitError()
             << "cannot create temporary files for " << kPjrtCompileName;
    if (failed(writeFile(
            module, program,
            StringRef(reinterpret_cast<const char *>(kernel.program.data()),
                      kernel.program.size()))))
      return failure();
    pairs.push_back((program + "=" + executable).str());
  }
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
    if (status == kPjrtCompileNoPlugin && !required) {
      module.emitRemark() << message
                          << ": the TPU kernels are stored as portable "
                             "StableHLO only";
      return success();
    }
    return module.emitError()
           << "cannot compile the TPU kernels ahead of time for topology '"
           << topology << "': " << message;
  }
  for (auto [i, kernel] : llvm::enumerate(bundle.kernels)) {
    kernel.aotBinary = readFile(files[2 * i + 1]);
    if (kernel.aotBinary.empty())
      return module.emitError() << kPjrtCompileName << " wrote no executable "
                                << "for kernel '" << kernel.symbol << "'";
    kernel.aotFormat = orx::kPjrtTpuExecutableFormat;
    if (!dumpDir.empty()) {
      SmallString<256> path(dumpDir);
      llvm::sys::path::append(
          path,
          StringRef(kernel.symbol)
                  .drop_front(StringRef(orx::kKernelSymbolPrefix).size()) +
              "." + orx::kPjrtTpuExecutableFormat);
      if (failed(writeFile(
              module, path,
              StringRef(reinterpret_cast<const char *>(kernel.aotBinary.data()),
                        kernel.aotBinary.size()))))
        return failure();
    }
  }
  return success();
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

/// What a TPU host needs to run a bundle, recorded in it.
static std::string getTpuRequirements(StringRef topology, bool compiled) {
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

/// What a Trainium host needs to run a bundle, recorded in it.
static std::string getTrainiumRequirements(int64_t logicalCores,
                                           bool withNeff) {
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

void StableHLOEmitBinaryPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  auto target = module->getAttrOfType<DictionaryAttr>(attr::kTarget);
  orx::PjrtBundle bundle;
  if (auto arch = module->getAttrOfType<StringAttr>(attr::kArch))
    bundle.platform = arch.str();
  std::string version = stablehloVersion;
  // Trainium: the NEFF of each kernel, by neuronx-cc ("auto": when it is
  // installed; "require": it must be; "off").
  bool trainium = bundle.platform == kTrainiumArch;
  std::string neuronAot = trainium ? "auto" : "off";
  int64_t logicalCores = 2;
  // TPU: executables compiled ahead of time by libtpu ("off" by default).
  std::string tpuAot = "off";
  std::string tpuTopology = "v5e:1x1";
  if (target) {
    if (auto plugin = target.getAs<StringAttr>(kPluginKey))
      bundle.plugin = plugin.str();
    if (auto wanted = target.getAs<StringAttr>(kVersionKey))
      version = wanted.str();
    if (auto aot = target.getAs<StringAttr>(kNeuronAotKey))
      neuronAot = aot.str();
    if (auto cores = target.getAs<IntegerAttr>(kLogicalCoresKey))
      logicalCores = cores.getInt();
    if (auto aot = target.getAs<StringAttr>(kTpuAotKey))
      tpuAot = aot.str();
    if (auto topology = target.getAs<StringAttr>(kTpuTopologyKey))
      tpuTopology = topology.str();
  }
  std::string dumpDir;
  if (auto dir = module->getAttrOfType<StringAttr>(attr::kDeviceCodeDir)) {
    SmallString<256> path(dir.getValue());
    llvm::sys::path::append(path, module.getSymName().value_or("kernels"));
    dumpDir = path.str().str();
  }

  if (version == "plugin") {
    FailureOr<std::string> reported = askPluginVersion(module, bundle.plugin);
    if (failed(reported))
      return signalPassFailure();
    version = *reported;
  }

  std::string error;
  std::optional<std::string> neuronCompiler;
  if (neuronAot != "off") {
    neuronCompiler = findTool(kNeuronCompilerName, neuronCompilerOption,
                              "ORCHESTRA_NEURONX_CC", error);
    if (!error.empty()) {
      module.emitError() << error;
      return signalPassFailure();
    }
    if (!neuronCompiler && neuronAot == "require") {
      module.emitError()
          << "cannot find " << kNeuronCompilerName
          << " (the device's neuron_aot = \"require\"; looked beside the "
             "compiler, on PATH and in $ORCHESTRA_NEURONX_CC): install the "
             "Neuron SDK's compiler, or set neuron_aot = \"auto\" to leave "
             "the compilation to the Trainium host";
      return signalPassFailure();
    }
    if (!neuronCompiler)
      module.emitRemark()
          << kNeuronCompilerName
          << " is not installed: the Trainium kernels are stored as "
             "portable StableHLO only, which the Neuron PJRT plugin "
             "compiles on the Trainium host";
  }
  if (trainium)
    bundle.requirements =
        getTrainiumRequirements(logicalCores, neuronCompiler.has_value());

  SmallVector<Attribute> kernels;
  SmallVector<func::FuncOp> funcs;
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
    bundle.kernels.push_back(std::move(kernel));
    funcs.push_back(func);
    kernels.push_back(StringAttr::get(ctx, func.getSymName()));
  }

  if (!funcs.empty()) {
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
    FailureOr<std::vector<Programs>> programs =
        serialize(funcs, *bridgePath, version,
                  /*hloProto=*/neuronCompiler.has_value());
    if (failed(programs))
      return signalPassFailure();
    for (auto [func, kernel, program] :
         llvm::zip(funcs, bundle.kernels, *programs)) {
      kernel.program = std::move(program.portable);
      if (neuronCompiler) {
        FailureOr<std::vector<uint8_t>> neff =
            compileNeff(func, program.hloProto, *neuronCompiler, logicalCores);
        if (failed(neff))
          return signalPassFailure();
        kernel.aotFormat = orx::kPjrtNeffFormat;
        kernel.aotBinary = std::move(*neff);
      }
      if (dumpDir.empty())
        continue;
      if (std::error_code ec = llvm::sys::fs::create_directories(dumpDir)) {
        func.emitError() << "cannot create '" << dumpDir
                         << "': " << ec.message();
        return signalPassFailure();
      }
      auto bytes = [](const std::vector<uint8_t> &data) {
        return StringRef(reinterpret_cast<const char *>(data.data()),
                         data.size());
      };
      SmallString<256> base(dumpDir);
      llvm::sys::path::append(base, func.getSymName());
      SmallVector<std::pair<std::string, StringRef>> files = {
          {".stablehlo.mlir",
           func->getAttrOfType<StringAttr>(attr::kStableHLO).getValue()},
          {".mlirbc", bytes(kernel.program)}};
      if (!program.hloProto.empty())
        files.push_back({".hlo.pb", bytes(program.hloProto)});
      if (!kernel.aotBinary.empty())
        files.push_back({"." + kernel.aotFormat, bytes(kernel.aotBinary)});
      for (const auto &[suffix, content] : files)
        if (failed(writeFile(func, (base + suffix).str(), content)))
          return signalPassFailure();
    }
  }

  if (bundle.platform == kTpuArch) {
    if (tpuAot != "off" &&
        failed(compileForTpu(module, bundle, tpuTopology, tpuAot, dumpDir)))
      return signalPassFailure();
    bool compiled =
        !bundle.kernels.empty() && !bundle.kernels.front().aotBinary.empty();
    bundle.requirements = getTpuRequirements(tpuTopology, compiled);
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
