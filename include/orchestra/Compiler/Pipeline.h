//===- Pipeline.h - The compile pipeline and its entry point ----*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The pass pipeline of stages 1-8 and the library entry point that runs it,
// shared by every tool that compiles: orchestra-compile, orchestra-tune, the
// ONNX conformance runner and the scheduling benchmark. The pipelines are also
// registered by name (`orchestra-prepare`, `orchestra-pipeline{...}`), so
// orchestra-opt runs exactly what the tools run.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_COMPILER_PIPELINE_H
#define ORCHESTRA_COMPILER_PIPELINE_H

#include "orchestra_rt/Artifact.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <functional>
#include <string>
#include <vector>

namespace mlir {
class OpPassManager;
class PassManager;
} // namespace mlir

namespace mlir::orchestra {

/// The parts of the compile pipeline, in order; CompileOptions runs a range
/// of them.
enum class CompilePhase {
  /// Stages 1-3: prepare, schedule for the topology, transfer clean-up and
  /// speculation. Leaves the scheduled program.
  Schedule,
  /// Stage 4's outlining: each task a launch of a kernel function in a
  /// per-arch kernel module (what orchestra-tune collects candidates from).
  Outline,
  /// The rest: kernel deduplication, the plan's memory, the tuning cache,
  /// and stages 5-8, each arch's strategy and lowering to binaries.
  Lower,
};

struct CompileOptions {
  /// 'host' or a topology JSON file.
  std::string topology = "host";
  /// Scheduling algorithm: heft, peft, ils or exact.
  std::string scheduler = "ils";
  /// Also place tasks on devices whose arch this build cannot compile yet
  /// (exploring a topology; the Lower phase then refuses them).
  bool planAllArchs = false;
  /// Speculate the branches whose speculation the scheduler finds faster.
  bool speculate = true;
  /// Entry function; empty picks 'main' or the only public function.
  std::string entry;
  /// Ranges of the entry's named dynamic dims (`NAME=MIN..MAX[@OPT]` or
  /// `NAME=SIZE`, orchestra-bind-dims).
  std::vector<std::string> dims;
  /// 'default' (the registry's scripts), 'none', or a script file.
  std::string strategy = "default";
  /// Directory of the strategy scripts; empty uses
  /// $ORCHESTRA_STRATEGIES_DIR, else the source tree's strategies/.
  std::string strategiesDir;
  /// A tuning cache (orchestra-tune) whose variants the strategies apply;
  /// empty: none.
  std::string tuningCache;
  /// Where GPU kernels' device code (PTX, cubins) is also written; empty:
  /// nowhere.
  std::string deviceCodeDir;
  /// Count the paths each branch left in a kernel takes at run time
  /// (orchestra-branch-profiler; the runtime's branch profile).
  bool profileBranches = false;
  /// A branch profile (orchestra-run --profile-out) and the artifact it was
  /// measured with, whose counts weigh the branches for the scheduler
  /// (orchestra-apply-branch-profile); empty: none.
  std::string profileUse;
  std::string profileArtifact;
  /// With a profile: speculate exactly the branches the profiled plan
  /// speculated (the feedback service's prediction of the running plan).
  bool replaySpeculation = false;
  /// The phases to run, inclusive.
  CompilePhase firstPhase = CompilePhase::Schedule;
  CompilePhase lastPhase = CompilePhase::Lower;
};

/// The directory the default strategy scripts are read from: the option,
/// else $ORCHESTRA_STRATEGIES_DIR, else the source tree's strategies/.
std::string getStrategiesDir(const CompileOptions &options);

/// Stage 1 on MLIR input, before scheduling (textual, for `--pass-pipeline`):
/// elementwise arith/math on tensors to linalg, ops that run no iteration
/// replaced by their inits, convolutions channels-last, constant operands
/// stored in the layout the kernels read, matmul epilogues in the matmul's
/// shape. Registered as the named pipeline `orchestra-prepare`.
std::string getPreparePipeline();

/// The pass list (for a pass manager on the top-level module) of the phases
/// `options` selects, as text (orchestra-compile --print-pipeline). On
/// failure `error` says why (a missing strategy script or tuning cache).
FailureOr<std::string> buildCompilePipeline(const CompileOptions &options,
                                            std::string &error);

/// Registers the named pipelines with the global pass registry
/// (registerAllPasses calls it): `orchestra-prepare` (stage 1) and
/// `orchestra-pipeline{topology=... scheduler=... first-phase=... ...}`, the
/// pipeline of buildCompilePipeline with CompileOptions as pipeline options.
void registerCompilerPipelines();

/// What a caller of the compile entry points may hook into.
struct CompileHooks {
  /// Configures each pass manager before it runs: command-line pass-manager
  /// options, timing, instrumentation. Failure stops the compile.
  std::function<LogicalResult(PassManager &)> configurePassManager;
  /// Called with the scheduled program after the Schedule phase, before the
  /// rest runs (the schedule chart). Failure stops the compile.
  std::function<LogicalResult(ModuleOp)> afterSchedule;
  /// Called as each phase starts ("schedule", "outline", "lower",
  /// "artifact"): progress for long compiles.
  std::function<void(StringRef)> onPhase;
};

/// Runs the phases of `options` on `module`. Errors are emitted as
/// diagnostics on the module's context; a pipeline that cannot be built is
/// reported at the module's location.
LogicalResult runCompilePipeline(ModuleOp module, const CompileOptions &options,
                                 const CompileHooks &hooks = {});

/// Compiles `module` (func + linalg on tensors, as the ONNX importer or a
/// user writes it) for the topology of `options` through every phase and
/// builds the artifact of its entry function. `options.firstPhase` and
/// `options.lastPhase` must be the defaults.
FailureOr<orx::Artifact> compileToArtifact(ModuleOp module,
                                           const CompileOptions &options,
                                           const CompileHooks &hooks = {});

} // namespace mlir::orchestra

#endif // ORCHESTRA_COMPILER_PIPELINE_H
