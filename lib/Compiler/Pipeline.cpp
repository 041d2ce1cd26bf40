//===- Pipeline.cpp - The compile pipeline and its entry point ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Compiler/Pipeline.h"
#include "orchestra/Artifact/ArtifactBuilder.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

using namespace mlir;
using namespace mlir::orchestra;

std::string orchestra::getStrategiesDir(const CompileOptions &options) {
  if (!options.strategiesDir.empty())
    return options.strategiesDir;
  if (std::optional<std::string> env =
          llvm::sys::Process::GetEnv("ORCHESTRA_STRATEGIES_DIR"))
    if (!env->empty())
      return *env;
  return ORCHESTRA_STRATEGIES_DIR;
}

std::string orchestra::getPreparePipeline() {
  // Branches and loops written as blocks (cf) become scf ops first: the
  // scheduler and the kernels take one block (design/0019, decision 1).
  return "func.func(lift-cf-to-scf,"
         "convert-elementwise-to-linalg,"
         "orchestra-fold-empty-loops,"
         "orchestra-convert-convolutions-to-nhwc,"
         "orchestra-pretranspose-constant-operands,"
         "orchestra-fold-matmul-reshapes)";
}

/// The strategy scripts `options` selects, in load order.
static FailureOr<SmallVector<std::string>>
getStrategyScripts(const CompileOptions &options, std::string &error) {
  SmallVector<std::string> scripts;
  if (options.strategy != "default") {
    scripts.push_back(options.strategy);
  } else {
    std::string dir = getStrategiesDir(options);
    const TargetRegistry &registry = getTargetRegistry();
    for (StringRef arch : registry.getArchs()) {
      const TargetInfo *info = registry.lookup(arch);
      if (info->strategyScript.empty())
        continue;
      SmallVector<std::string> files(info->strategyLibraries.begin(),
                                     info->strategyLibraries.end());
      files.push_back(info->strategyScript);
      for (const std::string &file : files) {
        SmallString<256> path(dir);
        llvm::sys::path::append(path, file);
        if (!llvm::sys::fs::exists(path)) {
          error = "strategy script '" + path.str().str() + "' of arch '" +
                  arch.str() + "' not found (set --strategies-dir)";
          return failure();
        }
        if (!llvm::is_contained(scripts, path.str().str()))
          scripts.push_back(path.str().str());
      }
    }
  }
  for (const std::string &script : scripts)
    if (!llvm::sys::fs::exists(script)) {
      error = "strategy script '" + script + "' not found";
      return failure();
    }
  return scripts;
}

/// The passes of one phase, as text.
static FailureOr<std::string> getPhasePipeline(CompilePhase phase,
                                               const CompileOptions &options,
                                               std::string &error) {
  switch (phase) {
  case CompilePhase::Schedule: {
    // Stage 1 (getPreparePipeline), stage 2: scheduling, stage 3: the
    // speculation of the branches the scheduler marked (before
    // canonicalization, which may fold a branch into a select), transfer
    // clean-up.
    std::string scheduleOptions =
        "topology=" + options.topology + " algorithm=" + options.scheduler;
    if (!options.entry.empty())
      scheduleOptions += " entry=" + options.entry;
    if (options.planAllArchs)
      scheduleOptions += " plan-all-archs=true";
    if (!options.speculate)
      scheduleOptions += " speculate=false";
    if (options.replaySpeculation)
      scheduleOptions += " replay-speculation=true";
    // The entry's dynamic dims are named and bounded before anything else.
    std::string bindOptions;
    if (!options.entry.empty())
      bindOptions += "entry=" + options.entry;
    if (!options.dims.empty())
      bindOptions += (bindOptions.empty() ? "" : " ") + std::string("dims=") +
                     llvm::join(options.dims, ",");
    if (!bindOptions.empty())
      bindOptions = "{" + bindOptions + "}";
    // The measured branch weights, for the scheduler's costs.
    std::string profile;
    if (!options.profileUse.empty() || !options.profileArtifact.empty()) {
      if (options.profileUse.empty() || options.profileArtifact.empty()) {
        error = "a branch profile needs both --profile-use (the profile) and "
                "--profile-artifact (the artifact it was measured with)";
        return failure();
      }
      profile = ",orchestra-apply-branch-profile{profile=\"" +
                options.profileUse + "\" artifact=\"" +
                options.profileArtifact + "\"}";
    }
    return "orchestra-bind-dims" + bindOptions + "," + getPreparePipeline() +
           profile + ",orchestra-schedule{" + scheduleOptions +
           "},divergence-to-speculation,canonicalize";
  }
  case CompilePhase::Outline:
    return std::string("orchestra-outline-tasks");
  case CompilePhase::Lower:
    break;
  }

  // The rest of stage 4: shared kernels, the layouts of their constant
  // operands (for the strategies) and the plan's memory.
  bool applyStrategy = options.strategy != "none";
  std::string pipeline = "orchestra-deduplicate-kernels,";
  if (applyStrategy)
    pipeline += "orchestra-hoist-constant-layouts,";
  pipeline += "orchestra-plan-buffers";
  // Tuned variants (orchestra-tune) onto the kernel ops, for stage 5.
  if (!options.tuningCache.empty() && applyStrategy) {
    if (!llvm::sys::fs::exists(options.tuningCache)) {
      error = "tuning cache '" + options.tuningCache + "' not found";
      return failure();
    }
    pipeline +=
        ",orchestra-apply-tuning-cache{cache=\"" + options.tuningCache + "\"}";
  }
  // Stages 5-8: per-arch strategy and lowering. The strategy scripts are
  // loaded by the upstream preload pass and applied by the upstream
  // transform interpreter inside orchestra-lower-kernels.
  if (applyStrategy) {
    FailureOr<SmallVector<std::string>> scripts =
        getStrategyScripts(options, error);
    if (failed(scripts))
      return failure();
    if (!scripts->empty())
      pipeline += ",transform-preload-library{transform-library-paths=" +
                  llvm::join(*scripts, ",") + "}";
  }
  pipeline += ",orchestra-lower-kernels{apply-strategy=" +
              std::string(applyStrategy ? "true" : "false");
  // Quoted: the directory may contain spaces.
  if (!options.deviceCodeDir.empty())
    pipeline += " device-code-dir=\"" + options.deviceCodeDir + "\"";
  if (options.profileBranches)
    pipeline += " profile-branches=true";
  pipeline += "}";
  return pipeline;
}

static constexpr CompilePhase kPhases[] = {
    CompilePhase::Schedule, CompilePhase::Outline, CompilePhase::Lower};

static StringRef getPhaseName(CompilePhase phase) {
  switch (phase) {
  case CompilePhase::Schedule:
    return "schedule";
  case CompilePhase::Outline:
    return "outline";
  case CompilePhase::Lower:
    return "lower";
  }
  llvm_unreachable("unknown phase");
}

FailureOr<std::string>
orchestra::buildCompilePipeline(const CompileOptions &options,
                                std::string &error) {
  if (options.firstPhase > options.lastPhase) {
    error = "the first phase of the compile comes after its last";
    return failure();
  }
  std::string pipeline;
  for (CompilePhase phase : kPhases) {
    if (phase < options.firstPhase || phase > options.lastPhase)
      continue;
    FailureOr<std::string> passes = getPhasePipeline(phase, options, error);
    if (failed(passes))
      return failure();
    pipeline += (pipeline.empty() ? "" : ",") + *passes;
  }
  return pipeline;
}

/// The values of the phase options.
static llvm::cl::ValuesClass getPhaseValues() {
  return llvm::cl::values(
      clEnumValN(CompilePhase::Schedule, "schedule", "stages 1-3"),
      clEnumValN(CompilePhase::Outline, "outline", "kernel outlining"),
      clEnumValN(CompilePhase::Lower, "lower", "the plan, stages 4-8"));
}

namespace {
/// CompileOptions as the options of the named pipeline `orchestra-pipeline`.
struct CompilePipelineOptions
    : public PassPipelineOptions<CompilePipelineOptions> {
  Option<std::string> topology{*this, "topology",
                               llvm::cl::desc("'host' or a topology file"),
                               llvm::cl::init("host")};
  Option<std::string> scheduler{
      *this, "scheduler",
      llvm::cl::desc("Scheduling algorithm: heft, peft, ils or exact"),
      llvm::cl::init("ils")};
  Option<bool> planAllArchs{
      *this, "plan-all-archs",
      llvm::cl::desc("Also place tasks on devices whose arch this build "
                     "cannot compile yet"),
      llvm::cl::init(false)};
  Option<bool> speculate{
      *this, "speculate",
      llvm::cl::desc("Speculate the branches whose speculation the "
                     "scheduler finds faster"),
      llvm::cl::init(true)};
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("Entry function (default: main "
                                           "or the only public function)")};
  ListOption<std::string> dims{
      *this, "dims",
      llvm::cl::desc("Ranges of the entry's named dynamic dims: "
                     "NAME=MIN..MAX[@OPT] or NAME=SIZE")};
  Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("'default' (the registry's scripts), 'none', or a "
                     "script file"),
      llvm::cl::init("default")};
  Option<std::string> strategiesDir{
      *this, "strategies-dir",
      llvm::cl::desc("Directory of the default strategy scripts")};
  Option<std::string> tuningCache{
      *this, "tuning-cache",
      llvm::cl::desc("A tuning cache whose variants the strategies apply")};
  Option<std::string> deviceCodeDir{
      *this, "device-code-dir",
      llvm::cl::desc("Where GPU kernels' device code is also written")};
  Option<bool> profileBranches{
      *this, "profile-branches",
      llvm::cl::desc("Count the paths each branch left in a kernel takes "
                     "at run time"),
      llvm::cl::init(false)};
  Option<std::string> profileUse{
      *this, "profile-use",
      llvm::cl::desc("A branch profile whose counts weigh the branches")};
  Option<std::string> profileArtifact{
      *this, "profile-artifact",
      llvm::cl::desc("The artifact the branch profile was measured with")};
  Option<CompilePhase> firstPhase{
      *this, "first-phase", llvm::cl::desc("The first phase to run"),
      llvm::cl::init(CompilePhase::Schedule), getPhaseValues()};
  Option<CompilePhase> lastPhase{
      *this, "last-phase", llvm::cl::desc("The last phase to run"),
      llvm::cl::init(CompilePhase::Lower), getPhaseValues()};

  CompileOptions get() const {
    CompileOptions options;
    options.topology = topology;
    options.scheduler = scheduler;
    options.planAllArchs = planAllArchs;
    options.speculate = speculate;
    options.entry = entry;
    options.dims.assign(dims.begin(), dims.end());
    options.strategy = strategy;
    options.strategiesDir = strategiesDir;
    options.tuningCache = tuningCache;
    options.deviceCodeDir = deviceCodeDir;
    options.profileBranches = profileBranches;
    options.profileUse = profileUse;
    options.profileArtifact = profileArtifact;
    options.firstPhase = firstPhase;
    options.lastPhase = lastPhase;
    return options;
  }
};
} // namespace

void orchestra::registerCompilerPipelines() {
  PassPipelineRegistration<>(
      "orchestra-prepare",
      "Stage 1 of the compile pipeline, before scheduling: linalg on tensors "
      "in the layouts the kernels read (orchestra-compile --print-pipeline "
      "shows the whole pipeline)",
      [](OpPassManager &pm) {
        if (failed(parsePassPipeline(getPreparePipeline(), pm)))
          llvm::report_fatal_error("the orchestra-prepare pipeline is "
                                   "malformed");
      });
  // Registered by hand rather than with PassPipelineRegistration: building
  // the pipeline can fail (a missing strategy script), and the error must
  // reach the caller.
  registerPassPipeline(
      "orchestra-pipeline",
      "The whole compile pipeline of orchestra-compile (stages 1-8), or the "
      "phases first-phase..last-phase of it",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        CompilePipelineOptions options;
        if (failed(options.parseFromString(optionsText)))
          return failure();
        std::string error;
        FailureOr<std::string> pipeline =
            buildCompilePipeline(options.get(), error);
        if (failed(pipeline))
          return errorHandler("orchestra-pipeline: " + error);
        std::string parseError;
        llvm::raw_string_ostream parseErrorStream(parseError);
        if (failed(parsePassPipeline(*pipeline, pm, parseErrorStream)))
          return errorHandler("orchestra-pipeline: " + parseError);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optionsHandler) {
        optionsHandler(CompilePipelineOptions());
      });
}

LogicalResult orchestra::runCompilePipeline(ModuleOp module,
                                            const CompileOptions &options,
                                            const CompileHooks &hooks) {
  for (CompilePhase phase : kPhases) {
    if (phase < options.firstPhase || phase > options.lastPhase)
      continue;
    CompileOptions phaseOptions = options;
    phaseOptions.firstPhase = phaseOptions.lastPhase = phase;
    std::string error;
    FailureOr<std::string> pipeline = buildCompilePipeline(phaseOptions, error);
    if (failed(pipeline))
      return module.emitError() << error;
    if (hooks.onPhase)
      hooks.onPhase(getPhaseName(phase));
    PassManager pm(module.getContext(), ModuleOp::getOperationName());
    std::string parseError;
    llvm::raw_string_ostream parseErrorStream(parseError);
    if (failed(parsePassPipeline(*pipeline, pm, parseErrorStream)))
      return module.emitError()
             << "the compile pipeline does not parse: " << parseError;
    if (hooks.configurePassManager && failed(hooks.configurePassManager(pm)))
      return failure();
    if (failed(pm.run(module)))
      return failure();
    if (phase == CompilePhase::Schedule && hooks.afterSchedule &&
        failed(hooks.afterSchedule(module)))
      return failure();
  }
  return success();
}

FailureOr<orx::Artifact>
orchestra::compileToArtifact(ModuleOp module, const CompileOptions &options,
                             const CompileHooks &hooks) {
  if (options.firstPhase != CompilePhase::Schedule ||
      options.lastPhase != CompilePhase::Lower)
    return module.emitError() << "an artifact needs every phase of the compile";
  if (failed(runCompilePipeline(module, options, hooks)))
    return failure();
  if (hooks.onPhase)
    hooks.onPhase("artifact");
  return buildArtifact(module, options.entry);
}
