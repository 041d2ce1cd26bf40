//===- AMDTarget.cpp - AMD GPU target entries -----------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Target/Targets.h"

using namespace mlir::orchestra;

/// Registers AMD Instinct CDNA3 (gfx942).
void mlir::orchestra::registerAMDTargets(TargetRegistry &registry) {
  TargetInfo cdna3;
  cdna3.arch = "amd_cdna3";
  cdna3.description = "AMD Instinct CDNA3 GPU (gfx942), e.g. MI300X";
  cdna3.keys = {
      {"chip",
       TargetKeyType::String,
       /*required=*/false,
       "GFX version to compile for (default: \"gfx942\")",
       std::nullopt,
       {"gfx942", "gfx941", "gfx940"}},
      {"mfma",
       TargetKeyType::Bool,
       /*required=*/false,
       "use Matrix Fused Multiply-Add instructions (default: true)",
       std::nullopt,
       {}},
      {"lds_size",
       TargetKeyType::Integer,
       /*required=*/false,
       "local data share available to one workgroup, in bytes (default: "
       "65536)",
       /*minValue=*/1,
       {}},
      {"wavefront_size",
       TargetKeyType::Integer,
       /*required=*/false,
       "lanes per wavefront (default: 64)",
       /*minValue=*/1,
       {}},
  };
  cdna3.memorySpaces = {
      {"hbm", MemoryScope::Device, "device global memory (HBM)"},
      {"lds", MemoryScope::Kernel, "per-workgroup local data share (LDS)"},
  };
  cdna3.defaultMemorySpace = "hbm";
  cdna3.executableFormat = ExecutableFormat::HSACO;
  cdna3.runtimeDriver = "hip";
  llvm::cantFail(registry.registerTarget(std::move(cdna3)));
}
