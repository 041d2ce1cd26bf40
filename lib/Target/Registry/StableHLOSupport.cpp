//===- StableHLOSupport.cpp - Ops the StableHLO hand-off path takes -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/StableHLO/Emitter.h"
#include "orchestra/Target/TargetRegistry.h"

#include "llvm/ADT/StringExtras.h"

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
        pluginHint + "); absent: $ORCHESTRA_PJRT_PLUGIN at run time")
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
                                           StringRef strategyScript,
                                           StringRef beforeLowering,
                                           StringRef beforeEmit) {
  info.executableFormat = ExecutableFormat::StableHLO;
  info.supportsOp = isStableHLOExpressible;
  info.runtimeDriver = "pjrt";
  // Stage 5: high-level fusions and clean-ups for the vendor compiler.
  info.strategyScript = strategyScript.str();
  info.strategyLibraries = {"stablehlo_common.mlir"};
  info.strategyEntryPoint = "__orchestra_" + info.arch + "_strategy";
  SmallVector<StringRef> passes;
  for (StringRef pass :
       {beforeLowering, StringRef("orchestra-lower-to-stablehlo"), beforeEmit,
        StringRef("orchestra-stablehlo-emit-binary")})
    if (!pass.empty())
      passes.push_back(pass);
  info.loweringPipeline = llvm::join(passes, ",");
}
