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
      {"tpu_aot",
       TargetKeyType::String,
       /*required=*/false,
       "Also compile each kernel ahead of time with libtpu for the "
       "`tpu_topology`, without a TPU (orchestra-pjrt-compile): \"off\" "
       "(default), \"auto\" (when libtpu is installed) or \"require\"",
       std::nullopt,
       {"off", "auto", "require"}},
      {"tpu_topology",
       TargetKeyType::String,
       /*required=*/false,
       "The TPU topology the kernels are compiled for ahead of time, in "
       "libtpu's words (default: \"v5e:1x1\"; \"v5e:2x2\", ...)",
       std::nullopt,
       {}},
  };
  for (TargetKeySpec &key : getPjrtTargetKeys(
           "libtpu.so for a TPU, from the libtpu package; XLA's CPU "
           "plugin xla_cpu_pjrt.so stands in for one"))
    tpu.keys.push_back(std::move(key));
  tpu.memorySpaces = {
      {"hbm", MemoryScope::Device, "TPU high-bandwidth memory"},
  };
  tpu.defaultMemorySpace = "hbm";
  setStableHLOLowering(tpu, "google_tpu_strategy.mlir",
                       /*beforeLowering=*/"",
                       /*beforeEmit=*/"orchestra-google-compile-tpu");
  llvm::cantFail(registry.registerTarget(std::move(tpu)));
}
