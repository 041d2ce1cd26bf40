//===- GoogleTarget.cpp - Google TPU target entries -----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Target/Targets.h"

using namespace mlir::orchestra;

/// Registers Google Cloud TPU v5e, reached through StableHLO and XLA.
void mlir::orchestra::registerGoogleTargets(TargetRegistry &registry) {
  TargetInfo tpu;
  tpu.arch = "google_tpu_v5e";
  tpu.description = "Google Cloud TPU v5e (StableHLO handed to XLA)";
  tpu.keys = {
      {"logical_core_count",
       TargetKeyType::Integer,
       /*required=*/false,
       "TPU cores the task's program is partitioned over (default: 1)",
       /*minValue=*/1,
       {}},
      {"pjrt_plugin",
       TargetKeyType::String,
       /*required=*/false,
       "The PJRT plugin that runs the device's programs: a path or a file "
       "name (libtpu.so for a TPU; XLA's CPU plugin xla_cpu_pjrt.so stands "
       "in for one); absent: $ORCHESTRA_PJRT_PLUGIN at run time",
       std::nullopt,
       {}},
      {"stablehlo_version",
       TargetKeyType::String,
       /*required=*/false,
       "StableHLO version of the portable artifacts (at most the plugin's; "
       "default: 1.0.0)",
       std::nullopt,
       {}},
  };
  tpu.memorySpaces = {
      {"hbm", MemoryScope::Device, "TPU high-bandwidth memory"},
  };
  tpu.defaultMemorySpace = "hbm";
  tpu.executableFormat = ExecutableFormat::StableHLO;
  // Stage 7: StableHLO text; stage 8: portable artifacts through the bridge,
  // in a PJRT program bundle that the runtime's pjrt driver runs.
  tpu.loweringPipeline =
      "orchestra-lower-to-stablehlo,orchestra-stablehlo-emit-binary";
  tpu.runtimeDriver = "pjrt";
  tpu.supportsOp = isStableHLOExpressible;
  llvm::cantFail(registry.registerTarget(std::move(tpu)));
}
