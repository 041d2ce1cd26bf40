//===- StableHLOSupport.cpp - Ops the StableHLO hand-off path takes -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/StableHLO/Emitter.h"
#include "orchestra/Target/TargetRegistry.h"

using namespace mlir;

bool mlir::orchestra::isStableHLOExpressible(Operation *op) {
  // Exactly what the emitter converts (orchestra-lower-to-stablehlo).
  return stablehlo::canConvert(op);
}

std::vector<mlir::orchestra::TargetKeySpec>
mlir::orchestra::getPjrtTargetKeys(StringRef pluginHint) {
  return {
      {"pjrt_plugin",
       TargetKeyType::String,
       /*required=*/false,
       ("The PJRT plugin that runs the device's programs: a path or a file "
        "name (" +
        pluginHint +
        "; XLA's CPU plugin xla_cpu_pjrt.so stands in for one); absent: "
        "$ORCHESTRA_PJRT_PLUGIN at run time")
           .str(),
       std::nullopt,
       {}},
      {"stablehlo_version",
       TargetKeyType::String,
       /*required=*/false,
       "StableHLO version of the portable artifacts (at most the plugin's; "
       "\"plugin\": the newest the device's plugin reads, asked of it at "
       "compile time; default: 1.0.0)",
       std::nullopt,
       {}},
  };
}

void mlir::orchestra::setStableHLOLowering(TargetInfo &info,
                                           StringRef strategyScript) {
  info.executableFormat = ExecutableFormat::StableHLO;
  info.supportsOp = isStableHLOExpressible;
  info.runtimeDriver = "pjrt";
  // Stage 5: high-level fusions and clean-ups for the vendor compiler.
  info.strategyScript = strategyScript.str();
  info.strategyLibraries = {"stablehlo_common.mlir"};
  info.strategyEntryPoint = "__orchestra_" + info.arch + "_strategy";
  // Stage 7: StableHLO text; stage 8: portable artifacts through the bridge,
  // in a PJRT program bundle that the runtime's pjrt driver runs.
  info.loweringPipeline =
      "orchestra-lower-to-stablehlo,orchestra-stablehlo-emit-binary";
  // NKI kernels first (orchestra-lower-nki-tasks), where the arch takes them.
  if (info.acceptsNKISource)
    info.loweringPipeline =
        "orchestra-lower-nki-tasks," + info.loweringPipeline;
}
