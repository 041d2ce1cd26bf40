//===- orchestra-compile.cpp - The OrchestraOS compiler driver ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Compiles an MLIR program for a topology through the eight stages and
// writes a runtime artifact (.orcx). Every stage is a registered pass or
// pipeline; `--print-pipeline` shows the pipeline so that `orchestra-opt
// --pass-pipeline=...` reproduces the compile.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Artifact/ArtifactBuilder.h"
#include "orchestra/InitAll.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::orchestra;
namespace cl = llvm::cl;

static cl::OptionCategory category("orchestra-compile options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir>"),
                                          cl::Required, cl::cat(category));
static cl::opt<std::string> outputFilename(
    "o", cl::desc("Output file (.orcx artifact, or .mlir with --emit=mlir)"),
    cl::value_desc("file"), cl::init("-"), cl::cat(category));
static cl::opt<std::string>
    topology("topology",
             cl::desc("Topology: 'host' (probed) or a topology JSON file"),
             cl::value_desc("host|file"), cl::init("host"), cl::cat(category));
static cl::opt<std::string>
    entry("entry",
          cl::desc("Entry function (default: 'main', else the only public "
                   "function)"),
          cl::value_desc("name"), cl::init(""), cl::cat(category));
static cl::opt<std::string> strategy(
    "strategy",
    cl::desc("Strategy script for x86_64 kernels: a file, 'default' (the "
             "registry's script from the strategies directory) or 'none' "
             "(plain loop lowering)"),
    cl::value_desc("default|none|file"), cl::init("default"),
    cl::cat(category));
static cl::opt<std::string> strategiesDir(
    "strategies-dir",
    cl::desc("Directory of the strategy scripts (default: "
             "$ORCHESTRA_STRATEGIES_DIR, else the source tree's strategies/)"),
    cl::value_desc("dir"), cl::init(""), cl::cat(category));
enum class EmitKind { Artifact, MLIR, Schedule };
static cl::opt<EmitKind> emit(
    "emit", cl::desc("What to write"), cl::init(EmitKind::Artifact),
    cl::values(clEnumValN(EmitKind::Artifact, "artifact",
                          "the runtime artifact (.orcx, default)"),
               clEnumValN(EmitKind::Schedule, "schedule",
                          "the placed orchestra.schedule (after stage 3)"),
               clEnumValN(EmitKind::MLIR, "mlir",
                          "the final IR (plan and compiled kernel modules)")),
    cl::cat(category));
static cl::opt<bool> printPipeline(
    "print-pipeline",
    cl::desc("Print the pass pipeline (for orchestra-opt --pass-pipeline) "
             "and exit"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> quiet("quiet", cl::desc("Do not print the summary"),
                           cl::init(false), cl::cat(category));

/// Returns the pass list (run on the top-level module) of stages 1-8, or 1-3
/// for --emit=schedule.
static FailureOr<std::string> buildPipeline(bool scheduleOnly) {
  std::string placeOptions = "topology=" + topology;
  if (!entry.empty())
    placeOptions += " entry=" + entry;
  // Stage 1 (MLIR input): elementwise arith/math on tensors to linalg.
  // Stage 2: placement. Stage 3: transfer clean-up, speculation.
  std::string pipeline = "func.func(convert-elementwise-to-linalg),"
                         "orchestra-place{" +
                         placeOptions +
                         "},canonicalize,divergence-to-speculation";
  if (scheduleOnly)
    return pipeline;

  // Stage 4: outlining and the plan's memory.
  pipeline += ",orchestra-outline-tasks,orchestra-plan-buffers";

  // Stages 5-8: per-arch strategy and lowering. The strategy scripts are
  // loaded by the upstream preload pass and applied by the upstream
  // transform interpreter inside orchestra-lower-kernels.
  bool applyStrategy = strategy != "none";
  if (applyStrategy) {
    SmallVector<std::string> scripts;
    if (strategy != "default") {
      scripts.push_back(strategy);
    } else {
      std::string dir = strategiesDir;
      if (dir.empty())
        if (std::optional<std::string> env =
                llvm::sys::Process::GetEnv("ORCHESTRA_STRATEGIES_DIR"))
          dir = *env;
      if (dir.empty())
        dir = ORCHESTRA_STRATEGIES_DIR;
      const TargetRegistry &registry = getTargetRegistry();
      for (StringRef arch : registry.getArchs()) {
        const TargetInfo *info = registry.lookup(arch);
        if (info->strategyScript.empty())
          continue;
        SmallString<256> path(dir);
        llvm::sys::path::append(path, info->strategyScript);
        if (!llvm::sys::fs::exists(path)) {
          llvm::errs() << "orchestra-compile: error: strategy script '" << path
                       << "' of arch '" << arch
                       << "' not found (set --strategies-dir)\n";
          return failure();
        }
        scripts.push_back(path.str().str());
      }
    }
    for (const std::string &script : scripts)
      if (!llvm::sys::fs::exists(script)) {
        llvm::errs() << "orchestra-compile: error: strategy script '" << script
                     << "' not found\n";
        return failure();
      }
    if (!scripts.empty())
      pipeline += ",transform-preload-library{transform-library-paths=" +
                  llvm::join(scripts, ",") + "}";
  }
  pipeline += ",orchestra-lower-kernels{apply-strategy=" +
              std::string(applyStrategy ? "true" : "false") + "}";
  return pipeline;
}

/// One line per memory space: peak bytes with and without reuse.
static void printSummary(const orx::Artifact &artifact, ModuleOp module,
                         size_t bytes) {
  unsigned launches = 0, copies = 0;
  for (const orx::StepDesc &step : artifact.steps)
    (step.kind == orx::StepKind::Launch ? launches : copies)++;
  llvm::errs() << "orchestra-compile: wrote " << outputFilename << " (" << bytes
               << " bytes): entry '" << artifact.entryName << "', " << launches
               << " task launch(es), " << copies << " transfer(s) on topology '"
               << artifact.topologyName << "' (" << artifact.devices.size()
               << " device(s))\n";
  for (auto func : module.getOps<func::FuncOp>())
    if (auto plan = func->getAttrOfType<DictionaryAttr>("orchestra.plan"))
      for (NamedAttribute space : plan) {
        auto usage = dyn_cast<DictionaryAttr>(space.getValue());
        auto peak = usage ? usage.getAs<IntegerAttr>("peak") : nullptr;
        auto total = usage ? usage.getAs<IntegerAttr>("total") : nullptr;
        if (peak && total)
          llvm::errs() << "  memory " << space.getName().getValue() << ": peak "
                       << peak.getInt() << " bytes (without "
                       << "reuse " << total.getInt() << ")\n";
      }
}

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  orchestra::registerAllPasses();
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "OrchestraOS version " << ORCHESTRA_VERSION << "\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "OrchestraOS compiler: MLIR program + topology -> runtime artifact\n\n"
      "  orchestra-compile model.mlir --topology host -o model.orcx\n"
      "  orchestra-run model.orcx --input x.npy --output-dir out\n");

  FailureOr<std::string> pipeline = buildPipeline(emit == EmitKind::Schedule);
  if (failed(pipeline))
    return 1;
  if (printPipeline) {
    llvm::outs() << "builtin.module(" << *pipeline << ")\n";
    return 0;
  }

  if (emit == EmitKind::Artifact && outputFilename == "-") {
    llvm::errs() << "orchestra-compile: error: an artifact needs an output "
                    "file (-o FILE.orcx)\n";
    return 1;
  }

  DialectRegistry registry;
  orchestra::registerAllDialectsAndExtensions(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Diagnostics name the op and its location; dumping whole kernel modules
  // with every error buries the message.
  context.printOpOnDiagnostic(false);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << "orchestra-compile: error: " << errorMessage << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  PassManager pm(&context, ModuleOp::getOperationName());
  if (failed(applyPassManagerCLOptions(pm)))
    return 1;
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope timingScope = timing.getRootScope();
  pm.enableTiming(timingScope);
  if (failed(parsePassPipeline(*pipeline, pm, llvm::errs())))
    return 1;
  if (failed(pm.run(*module)))
    return 1;

  if (emit != EmitKind::Artifact) {
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(outputFilename, &errorMessage);
    if (!output) {
      llvm::errs() << "orchestra-compile: error: " << errorMessage << "\n";
      return 1;
    }
    module->print(output->os());
    output->keep();
    return 0;
  }

  FailureOr<orx::Artifact> artifact = buildArtifact(*module, entry);
  if (failed(artifact))
    return 1;
  std::string writeError;
  if (!orx::writeArtifactFile(outputFilename, *artifact, writeError)) {
    llvm::errs() << "orchestra-compile: error: " << writeError << "\n";
    return 1;
  }
  if (!quiet) {
    uint64_t size = 0;
    llvm::sys::fs::file_size(outputFilename, size);
    printSummary(*artifact, *module, size);
  }
  return 0;
}
