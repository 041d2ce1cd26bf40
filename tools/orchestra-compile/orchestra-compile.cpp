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

#include "orchestra/Compiler/Npy.h"
#include "orchestra/Compiler/Pipeline.h"
#include "orchestra/Compiler/ScheduleChart.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/Utils/DynamicDims.h"
#include "orchestra/Frontend/ONNX/ONNXImporter.h"
#include "orchestra/InitAll.h"
#include "orchestra/JIT/JIT.h"
#include "orchestra/Scheduling/Scheduler.h"
#include "orchestra/Support/CrashMessage.h"
#include "orchestra/Support/Limits.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;
using namespace mlir::orchestra;
namespace cl = llvm::cl;

static cl::OptionCategory category("orchestra-compile options");

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .mlir or .onnx>"),
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
    cl::desc("Strategy script: a file, 'default' (each arch's script from "
             "the strategies directory) or 'none' (plain loop lowering; "
             "CPU kernels only, GPU kernels need their strategy)"),
    cl::value_desc("default|none|file"), cl::init("default"),
    cl::cat(category));
static cl::opt<std::string> strategiesDir(
    "strategies-dir",
    cl::desc("Directory of the strategy scripts (default: "
             "$ORCHESTRA_STRATEGIES_DIR, else the source tree's strategies/)"),
    cl::value_desc("dir"), cl::init(""), cl::cat(category));
static cl::opt<std::string> tuningCache(
    "tuning-cache",
    cl::desc("Apply the strategy variants a tuning cache written by "
             "orchestra-tune measured fastest for the kernels' shapes "
             "(default: none; the strategies' defaults)"),
    cl::value_desc("file"), cl::init(""), cl::cat(category));
static cl::opt<std::string> scheduler(
    "scheduler",
    cl::desc("Scheduling algorithm: 'ils' (default: iterated local search "
             "from the better of HEFT and PEFT), 'heft', 'peft' or 'exact' "
             "(branch and bound; at most 24 tasks)"),
    cl::value_desc("ils|heft|peft|exact"), cl::init("ils"), cl::cat(category));
static cl::opt<bool> planAllArchs(
    "plan-all-archs",
    cl::desc("Also place tasks on devices whose arch this build cannot "
             "compile yet (to explore a topology with --emit=schedule; the "
             "artifact cannot be built)"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> speculate(
    "speculate",
    cl::desc("Speculate the branches (scf.if, ONNX If) whose two sides "
             "running without waiting for the condition shorten the "
             "schedule; --speculate=false runs each branch after its "
             "condition"),
    cl::init(true), cl::cat(category));
static cl::opt<bool> profileBranches(
    "profile-branches",
    cl::desc("Count, per branch left in a kernel (scf.if, loop conditions), "
             "how often each path is taken at run time: orchestra-run "
             "--profile-out writes the counts as DivergenceProfile records "
             "(CPU and GPU kernels; on GPUs also the warps whose lanes "
             "disagree); a branch the scheduler speculates is counted by its "
             "select step"),
    cl::init(false), cl::cat(category));
static cl::opt<std::string> profileUse(
    "profile-use",
    cl::desc("A branch profile (orchestra-run --profile-out) whose counts "
             "weigh the program's branches and loops for the scheduler, "
             "with --profile-artifact"),
    cl::value_desc("file"), cl::init(""), cl::cat(category));
static cl::opt<std::string> profileArtifact(
    "profile-artifact",
    cl::desc("The artifact (compiled with --profile-branches) that "
             "--profile-use's profile was measured with"),
    cl::value_desc("file"), cl::init(""), cl::cat(category));
static cl::opt<std::string> jitCache(
    "jit-cache",
    cl::desc("Also keep what the feedback service (orchestra-jit-server "
             "--cache-dir) needs to recompile this artifact with a branch "
             "profile: the artifact, the module the compile started from and "
             "the options, named by the artifact's hash, in this directory"),
    cl::value_desc("dir"), cl::init(""), cl::cat(category));
enum class EmitKind { Artifact, MLIR, Schedule };
static cl::opt<EmitKind> emit(
    "emit", cl::desc("What to write"), cl::init(EmitKind::Artifact),
    cl::values(clEnumValN(EmitKind::Artifact, "artifact",
                          "the runtime artifact (.orcx, default)"),
               clEnumValN(EmitKind::Schedule, "schedule",
                          "the scheduled orchestra IR (after stage 3)"),
               clEnumValN(EmitKind::MLIR, "mlir",
                          "the final IR (plan and compiled kernel modules)")),
    cl::cat(category));
static cl::opt<std::string> emitSchedule(
    "emit-schedule",
    cl::desc("Also draw the schedule as a Gantt chart (.svg or .html): one "
             "row per device and per link, predicted times"),
    cl::value_desc("file"), cl::init(""), cl::cat(category));
static cl::opt<std::string> dumpDeviceCode(
    "dump-device-code",
    cl::desc("Also write every GPU kernel's device code into this directory "
             "(<kernel module>.<device module>.ptx and .cubin)"),
    cl::value_desc("dir"), cl::init(""), cl::cat(category));
static cl::opt<bool> printPipeline(
    "print-pipeline",
    cl::desc("Print the pass pipeline (for orchestra-opt --pass-pipeline) "
             "and exit"),
    cl::init(false), cl::cat(category));
static cl::list<std::string> bindInputs(
    "bind-input",
    cl::desc("Bind an ONNX graph input that fixes a shape (Reshape's shape, "
             "Slice's starts, ...) to the value in a .npy file; it becomes "
             "a constant and leaves the artifact's inputs"),
    cl::value_desc("NAME=FILE.npy"), cl::cat(category));
static cl::list<std::string>
    dims("dim",
         cl::desc("Compile a dynamic dimension NAME (an ONNX model's "
                  "symbolic dimension, e.g. a dynamic batch) for the one "
                  "size SIZE, or once for every size in MIN..MAX (MLIR "
                  "input; costed at OPT, default MAX)"),
         cl::value_desc("NAME=SIZE|NAME=MIN..MAX[@OPT]"), cl::cat(category));
static cl::opt<bool> quiet("quiet", cl::desc("Do not print the summary"),
                           cl::init(false), cl::cat(category));
static cl::opt<bool>
    progress("progress",
             cl::desc("Print each phase of the compile as it starts, with "
                      "the time since the start, on stderr"),
             cl::init(false), cl::cat(category));

namespace {
/// --progress: one line per phase of the compile.
class Progress {
public:
  void phase(StringRef name) {
    if (!progress)
      return;
    static const llvm::StringMap<StringRef> descriptions = {
        {"import", "importing the ONNX model"},
        {"schedule", "stages 1-3: preparing and scheduling the program"},
        {"outline", "stage 4: outlining the tasks into kernels"},
        {"lower", "stages 4-8: the plan's memory, compiling the kernels"},
        {"artifact", "writing the artifact"},
        {"done", "done"}};
    std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - start;
    llvm::errs() << llvm::formatv(
        "orchestra-compile: {0,7:f2} s  {1}\n", elapsed.count(),
        descriptions.lookup(name).empty() ? name : descriptions.lookup(name));
  }

private:
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
};
} // namespace

/// Reads `.npy` files given with --bind-input into constant values.
static FailureOr<llvm::StringMap<DenseElementsAttr>>
readBindings(MLIRContext *context) {
  llvm::StringMap<DenseElementsAttr> bindings;
  for (const std::string &binding : bindInputs) {
    auto [name, path] = StringRef(binding).split('=');
    if (name.empty() || path.empty()) {
      llvm::errs() << "orchestra-compile: error: --bind-input expects "
                      "NAME=FILE.npy, got '"
                   << binding << "'\n";
      return failure();
    }
    std::string error;
    FailureOr<DenseElementsAttr> value =
        orchestra::readNpyAsAttr(context, path, error);
    if (failed(value)) {
      llvm::errs() << "orchestra-compile: error: --bind-input " << name << ": "
                   << error << "\n";
      return failure();
    }
    bindings[name] = *value;
  }
  return bindings;
}

/// Parses the --dim options: pins (one size) and ranges.
static FailureOr<SmallVector<mlir::orchestra::DynamicDim>> readDims() {
  SmallVector<mlir::orchestra::DynamicDim> parsed;
  for (const std::string &option : dims) {
    std::string error;
    FailureOr<mlir::orchestra::DynamicDim> dim =
        mlir::orchestra::parseDimOption(option, error);
    if (failed(dim)) {
      llvm::errs() << "orchestra-compile: error: " << error << "\n";
      return failure();
    }
    if (llvm::any_of(parsed, [&](const mlir::orchestra::DynamicDim &other) {
          return other.name == dim->name;
        })) {
      llvm::errs() << "orchestra-compile: error: --dim " << dim->name
                   << " is given twice\n";
      return failure();
    }
    parsed.push_back(*dim);
  }
  return parsed;
}

/// One line per memory space: peak bytes with and without reuse.
static void printSummary(const orx::Artifact &artifact, ModuleOp module,
                         size_t bytes) {
  unsigned launches = 0, copies = 0, selects = 0;
  for (const orx::StepDesc &step : artifact.steps)
    (step.kind == orx::StepKind::Launch   ? launches
     : step.kind == orx::StepKind::Select ? selects
                                          : copies)++;
  llvm::errs() << "orchestra-compile: wrote " << outputFilename << " (" << bytes
               << " bytes): entry '" << artifact.entryName << "', " << launches
               << " task launch(es), " << copies << " transfer(s)";
  if (selects)
    llvm::errs() << ", " << selects << " commit(s)";
  llvm::errs() << " on topology '" << artifact.topologyName << "' ("
               << artifact.devices.size() << " device(s))\n";
  for (auto func : module.getOps<func::FuncOp>())
    if (auto plan = func->getAttrOfType<DictionaryAttr>(attr::kPlan))
      for (NamedAttribute space : plan) {
        auto usage = dyn_cast<DictionaryAttr>(space.getValue());
        auto peak = usage ? usage.getAs<IntegerAttr>("peak") : nullptr;
        auto total = usage ? usage.getAs<IntegerAttr>("total") : nullptr;
        if (peak && total)
          llvm::errs() << "  memory " << space.getName().getValue() << ": peak "
                       << peak.getInt() << " bytes (without "
                       << "reuse " << total.getInt() << ")\n";
      }
  if (auto tuned = module->getAttrOfType<IntegerAttr>(attr::kTunedOps))
    llvm::errs() << "  tuning cache " << tuningCache << ": " << tuned.getInt()
                 << " kernel op(s) given a tuned variant\n";
}

int main(int argc, char **argv) {
  mlir::orchestra::setCrashMessage("orchestra-compile");
  llvm::InitLLVM y(argc, argv);
  // Passes first: --mlir-print-ir-{before,after}=<pass> parse pass names
  // against the registry as it is when the pass-manager options register.
  orchestra::registerAllPasses();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  // --help lists this tool's options and MLIR's (--mlir-print-ir-*, timing,
  // ...); LLVM's hundreds of backend flags stay under --help-hidden.
  cl::HideUnrelatedOptions(category);
  for (auto &option : cl::getRegisteredOptions())
    if (option.first.starts_with("mlir-"))
      option.second->setHiddenFlag(cl::NotHidden);
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "OrchestraOS version " << ORCHESTRA_VERSION << "\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "OrchestraOS compiler: MLIR program + topology -> runtime artifact\n\n"
      "  orchestra-compile model.mlir --topology host -o model.orcx\n"
      "  orchestra-run model.orcx --input x.npy --output-dir out\n");

  if (!scheduling::parseAlgorithm(scheduler)) {
    llvm::errs() << "orchestra-compile: error: unknown --scheduler '"
                 << scheduler << "'; expected one of "
                 << scheduling::getAlgorithmNames() << "\n";
    return 1;
  }
  CompileOptions options;
  options.topology = topology;
  options.entry = entry;
  // An MLIR program's dynamic dims are bounded by orchestra-bind-dims; an
  // ONNX model's are pinned by the importer (one size) or bounded there.
  if (failed(readDims()))
    return 1;
  if (!onnx_import::isONNXModelPath(inputFilename))
    options.dims.assign(dims.begin(), dims.end());
  options.scheduler = scheduler;
  options.planAllArchs = planAllArchs;
  options.speculate = speculate;
  options.profileBranches = profileBranches;
  options.profileUse = profileUse;
  options.profileArtifact = profileArtifact;
  options.strategy = strategy;
  options.strategiesDir = strategiesDir;
  options.deviceCodeDir = dumpDeviceCode;
  options.tuningCache = tuningCache;
  if (emit == EmitKind::Schedule)
    options.lastPhase = CompilePhase::Schedule;
  std::string pipelineError;
  FailureOr<std::string> pipeline =
      buildCompilePipeline(options, pipelineError);
  if (failed(pipeline)) {
    llvm::errs() << "orchestra-compile: error: " << pipelineError << "\n";
    return 1;
  }
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
  OwningOpRef<ModuleOp> module;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  Progress report;
  if (onnx_import::isONNXModelPath(inputFilename)) {
    // Stage 1 for ONNX: the importer builds func + linalg.
    report.phase("import");
    FailureOr<llvm::StringMap<DenseElementsAttr>> bindings =
        readBindings(&context);
    if (failed(bindings))
      return 1;
    FailureOr<SmallVector<mlir::orchestra::DynamicDim>> parsedDims = readDims();
    if (failed(parsedDims))
      return 1;
    onnx_import::ImportOptions importOptions;
    importOptions.bindableInputs = std::move(*bindings);
    // One size pins a dim at import (the static fast path); a range
    // bounds a dim the model keeps dynamic.
    for (const mlir::orchestra::DynamicDim &dim : *parsedDims) {
      if (dim.min == dim.max)
        importOptions.pinnedDims[dim.name] = dim.min;
      else
        importOptions.dimRanges[dim.name] = dim;
    }
    FailureOr<onnx_import::ImportResult> imported = onnx_import::importModel(
        &context, input->getBuffer(), inputFilename, importOptions);
    if (failed(imported))
      return 1;
    for (const std::string &name : bindInputs) {
      StringRef inputName = StringRef(name).split('=').first;
      if (!llvm::is_contained(imported->boundInputs, inputName) && !quiet)
        llvm::errs() << "orchestra-compile: warning: input '" << inputName
                     << "' was not needed as a constant and stays an "
                        "input\n";
    }
    for (const std::string &option : dims) {
      StringRef name = StringRef(option).split('=').first;
      bool ranged = StringRef(option).contains("..");
      if (ranged && llvm::is_contained(imported->dynamicDims, name))
        options.dims.push_back(option);
      else if (!llvm::is_contained(imported->usedDims, name) && !quiet)
        llvm::errs() << "orchestra-compile: warning: no graph input has a "
                        "dimension named '"
                     << name << "'\n";
    }
    module = std::move(imported->module);
  } else {
    if (!bindInputs.empty()) {
      llvm::errs() << "orchestra-compile: error: --bind-input applies to "
                      "ONNX models\n";
      return 1;
    }
    // Nesting deep enough to exhaust the parser's stack is refused first.
    StringRef text = input->getBuffer();
    std::optional<size_t> tooDeep = mlir::orchestra::findExcessiveNesting(
        std::string_view(text.data(), text.size()));
    unsigned buffer =
        sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
    if (std::optional<mlir::orchestra::KnownParserCrash> crash =
            mlir::orchestra::findKnownParserCrash(
                std::string_view(text.data(), text.size()))) {
      sourceMgr.PrintMessage(
          llvm::SMLoc::getFromPointer(
              sourceMgr.getMemoryBuffer(buffer)->getBufferStart() +
              crash->offset),
          llvm::SourceMgr::DK_Error, crash->expected);
      return 1;
    }
    if (tooDeep) {
      sourceMgr.PrintMessage(
          llvm::SMLoc::getFromPointer(
              sourceMgr.getMemoryBuffer(buffer)->getBufferStart() + *tooDeep),
          llvm::SourceMgr::DK_Error,
          "brackets nested more than " +
              llvm::Twine(mlir::orchestra::kMaxMlirNesting) +
              " deep (the deepest input OrchestraOS reads)");
      return 1;
    }
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      return 1;
  }

  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope timingScope = timing.getRootScope();
  CompileHooks hooks;
  hooks.onPhase = [&](StringRef phase) { report.phase(phase); };
  hooks.configurePassManager = [&](PassManager &pm) {
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    pm.enableTiming(timingScope);
    return success();
  };
  if (!emitSchedule.empty())
    hooks.afterSchedule = [&](ModuleOp scheduled) -> LogicalResult {
      FailureOr<gantt::Chart> chart = buildScheduleChart(scheduled);
      if (failed(chart))
        return failure();
      if (llvm::Error error = gantt::writeChartFile(*chart, emitSchedule)) {
        llvm::errs() << "orchestra-compile: error: "
                     << llvm::toString(std::move(error)) << "\n";
        return failure();
      }
      return success();
    };

  if (emit != EmitKind::Artifact) {
    if (failed(runCompilePipeline(*module, options, hooks)))
      return 1;
    // A temporary file renamed over the output ("-": standard output).
    if (llvm::Error error =
            llvm::writeToOutput(outputFilename, [&](llvm::raw_ostream &os) {
              module->print(os);
              return llvm::Error::success();
            })) {
      llvm::errs() << "orchestra-compile: error: "
                   << llvm::toString(std::move(error)) << "\n";
      return 1;
    }
    report.phase("done");
    return 0;
  }

  // The module as the compile starts, for the feedback service's cache.
  OwningOpRef<ModuleOp> source;
  if (!jitCache.empty())
    source = module->clone();
  FailureOr<orx::Artifact> artifact =
      compileToArtifact(*module, options, hooks);
  if (failed(artifact))
    return 1;
  if (source) {
    std::string cacheError;
    if (failed(mlir::orchestra::jit::writeCacheEntry(
            jitCache, *source, options, orx::serializeArtifact(*artifact),
            cacheError))) {
      llvm::errs() << "orchestra-compile: error: --jit-cache: " << cacheError
                   << "\n";
      return 1;
    }
  }
  std::string writeError;
  if (!orx::writeArtifactFile(outputFilename, *artifact, writeError)) {
    llvm::errs() << "orchestra-compile: error: " << writeError << "\n";
    return 1;
  }
  report.phase("done");
  if (!quiet) {
    uint64_t size = 0;
    llvm::sys::fs::file_size(outputFilename, size);
    printSummary(*artifact, *module, size);
  }
  return 0;
}
