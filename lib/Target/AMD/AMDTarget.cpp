//===- AMDTarget.cpp - AMD GPU target entries -----------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/Mappable.h"
#include "orchestra/Target/GPU/Pipelines.h"
#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Target/Targets.h"

using namespace mlir;
using namespace mlir::orchestra;

/// The stage 6-8 pipeline of amd_cdna3: bufferize, map the strategy's
/// foralls onto `gpu.launch` workgroups and threads (64-lane waves), outline
/// the kernels, lower them to ROCDL and compile them to HSACO code objects
/// (`orchestra-amd-emit-binary`).
static std::string getAMDLoweringPipeline(StringRef arch) {
  std::string entry = ("__orchestra_" + arch + "_").str();
  return gpucommon::getBufferizationPipeline() +
         "transform-interpreter{entry-point=" + entry +
         "map_to_gpu},"
         "orchestra-amd-vector-to-mfma,canonicalize,cse,"
         "transform-interpreter{entry-point=" +
         entry +
         "lower_vectors},"
         "convert-linalg-to-loops,"
         "orchestra-gpu-branch-counters,orchestra-gpu-sink-launch-operands,"
         "gpu-launch-sink-index-computations,gpu-kernel-outlining,"
         "gpu.module(orchestra-gpu-kernel-argument-alignment,"
         "orchestra-amd-lower-branch-probes,"
         // LDS is declared statically (no dynamic LDS needed below 64 KB).
         "orchestra-gpu-workgroup-allocations{static-limit=65536 "
         "limit=65536 limit-key=lds_size},"
         "convert-vector-to-scf{full-unroll=true},"
         "lower-affine,expand-strided-metadata,lower-affine,"
         "convert-scf-to-cf),"
         // Math functions become calls into the device libraries (ocml).
         "convert-math-to-rocdl{chipset=gfx942},"
         "gpu.module(convert-amdgpu-to-rocdl{chipset=gfx942},"
         "convert-gpu-to-rocdl{chipset=gfx942 "
         "use-bare-ptr-memref-call-conv=true index-bitwidth=64},"
         "canonicalize,cse,reconcile-unrealized-casts),"
         "orchestra-amd-emit-binary";
}

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
       "65536); a kernel that needs more is an error",
       /*minValue=*/1,
       {}},
      {"wavefront_size",
       TargetKeyType::Integer,
       /*required=*/false,
       "lanes per wavefront (default: 64, the only size CDNA3 runs)",
       /*minValue=*/1,
       {}},
  };
  cdna3.memorySpaces = {
      {"hbm", MemoryScope::Device, "device global memory (HBM)"},
      {"lds", MemoryScope::Kernel, "per-workgroup local data share (LDS)"},
  };
  cdna3.defaultMemorySpace = "hbm";
  cdna3.strategyScript = "amd_instinct_cdna3_strategy.mlir";
  cdna3.strategyEntryPoint = "__orchestra_amd_cdna3_strategy";
  cdna3.strategyLibraries = {"gpu_common.mlir"};
  cdna3.preparePipeline = "orchestra-gpu-lower-asm-kernels";
  cdna3.preStrategyPipeline =
      "orchestra-gpu-pads-to-linalg,orchestra-gpu-scalars-to-linalg,"
      "orchestra-gpu-parallel-loops-first,"
      "orchestra-amd-select-recipes";
  cdna3.loweringPipeline = getAMDLoweringPipeline(cdna3.arch);
  cdna3.loweringNeedsStrategy = true;
  cdna3.executableFormat = ExecutableFormat::HSACO;
  cdna3.runtimeDriver = "hip";
  cdna3.kernelAssembly = "GCN";
  cdna3.lowersBranchProbes = true;
  cdna3.simtLanes = 64;
  cdna3.supportsOp = gpucommon::isGpuMappable;
  llvm::cantFail(registry.registerTarget(std::move(cdna3)));
}
