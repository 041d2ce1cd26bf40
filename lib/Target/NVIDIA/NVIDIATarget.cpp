//===- NVIDIATarget.cpp - NVIDIA GPU target entries -----------------------===//
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

/// Returns the keys Hopper and Blackwell share; `sms` lists the accepted
/// `sm` values, the first being the default.
static std::vector<TargetKeySpec> getNVIDIAKeys(std::vector<std::string> sms,
                                                bool tmaByDefault) {
  std::string smDefault = sms.front();
  return {
      {"sm", TargetKeyType::String, /*required=*/false,
       "SM version to compile for (default: \"" + smDefault + "\")",
       std::nullopt, std::move(sms)},
      {"tma",
       TargetKeyType::Bool,
       /*required=*/false,
       std::string("use the Tensor Memory Accelerator (TMA loads and "
                   "mbarriers) to stage the operand tiles of tensor-core "
                   "matmuls in shared memory, instead of cp.async (default: ") +
           (tmaByDefault ? "true" : "false") + ")",
       std::nullopt,
       {}},
      {"shared_memory_bytes",
       TargetKeyType::Integer,
       /*required=*/false,
       "shared memory available to one thread block, in bytes (default: the "
       "architecture's maximum)",
       /*minValue=*/1,
       {}},
      {"num_sms",
       TargetKeyType::Integer,
       /*required=*/false,
       "streaming multiprocessors of the device (default: from the topology)",
       /*minValue=*/1,
       {}},
  };
}

/// The stage 6-8 pipeline of an NVIDIA arch: bufferize, map the strategy's
/// foralls onto `gpu.launch` blocks/warps/threads, tensor-core contractions
/// onto `nvgpu.mma.sync`, outline the kernels, lower them to NVVM and
/// compile them to PTX and cubins (`orchestra-nvidia-emit-binary`).
static std::string getNVIDIALoweringPipeline(StringRef arch, StringRef chip,
                                             StringRef ptxFeatures) {
  std::string entry = ("__orchestra_" + arch + "_").str();
  return gpucommon::getBufferizationPipeline() +
         "transform-interpreter{entry-point=" + entry +
         "map_to_gpu},"
         "orchestra-nvidia-vector-to-mma,canonicalize,cse,"
         "transform-interpreter{entry-point=" +
         entry +
         "lower_vectors},"
         "func.func(nvgpu-optimize-shared-memory),"
         "convert-linalg-to-loops,"
         "orchestra-gpu-branch-counters,orchestra-gpu-sink-launch-operands,"
         "gpu-launch-sink-index-computations,gpu-kernel-outlining,"
         "orchestra-nvidia-tensor-map-arguments,"
         "gpu.module(orchestra-gpu-kernel-argument-alignment,"
         "orchestra-nvidia-lower-branch-probes,"
         "orchestra-gpu-workgroup-allocations,"
         "convert-vector-to-scf{full-unroll=true},"
         "orchestra-nvidia-bf16-mma-to-nvvm,convert-nvgpu-to-nvvm,"
         "lower-affine,expand-strided-metadata,lower-affine,"
         "convert-scf-to-cf,"
         "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=true "
         "index-bitwidth=64},"
         "convert-nvvm-to-llvm,"
         "canonicalize,cse,reconcile-unrealized-casts),"
         "orchestra-nvidia-emit-binary{chip=" +
         chip.str() + " features=" + ptxFeatures.str() + "}";
}

/// Registers NVIDIA Hopper (sm_90a) and Blackwell (sm_100a).
void mlir::orchestra::registerNVIDIATargets(TargetRegistry &registry) {
  TargetInfo hopper;
  hopper.arch = "nvidia_hopper";
  hopper.description = "NVIDIA Hopper GPU (sm_90a), e.g. H100/H200";
  hopper.keys = getNVIDIAKeys({"sm_90a", "sm_90"}, /*tmaByDefault=*/false);
  hopper.keys.push_back(
      {"wgmma",
       TargetKeyType::Bool,
       /*required=*/false,
       "compute f16 and bf16 matmuls with f32 accumulators on the warpgroup "
       "MMA units (wgmma, operand tiles staged by swizzled TMA copies; "
       "128x128 or 128x256 blocks of two warpgroups, K steps of 64) where "
       "their shapes allow it, instead of mma.sync (default: true when sm is "
       "\"sm_90a\"; on an H100, 4096^3 f16 ran at 0.88 of cuBLAS against "
       "0.41 with mma.sync)",
       std::nullopt,
       {}});
  hopper.keys.push_back(
      {"wgmma_tile",
       TargetKeyType::String,
       /*required=*/false,
       "the block tile of the wgmma kernels: \"128x128\" (each warpgroup "
       "64x128; room for two blocks per SM) or \"128x256\" (each warpgroup "
       "64x256, for N a multiple of 256: more MMA per copied byte, one "
       "block per SM; 128x128 where N is not) (default: \"128x256\")",
       std::nullopt,
       {"128x128", "128x256"}});
  hopper.memorySpaces = {
      {"hbm", MemoryScope::Device, "device global memory (HBM)"},
      {"shared", MemoryScope::Kernel, "per-block shared memory (SMEM)"},
  };
  hopper.defaultMemorySpace = "hbm";
  hopper.strategyScript = "nvidia_hopper_strategy.mlir";
  hopper.strategyEntryPoint = "__orchestra_nvidia_hopper_strategy";
  hopper.strategyLibraries = {"gpu_common.mlir", "nvidia_gpu_common.mlir"};
  hopper.preparePipeline = "orchestra-gpu-lower-asm-kernels";
  hopper.preStrategyPipeline =
      "orchestra-gpu-pads-to-linalg,orchestra-gpu-scalars-to-linalg,"
      "orchestra-gpu-parallel-loops-first,"
      "orchestra-nvidia-select-recipes";
  hopper.loweringPipeline =
      getNVIDIALoweringPipeline(hopper.arch, "sm_90a", "+ptx83");
  hopper.loweringNeedsStrategy = true;
  hopper.executableFormat = ExecutableFormat::Cubin;
  hopper.runtimeDriver = "cuda";
  hopper.kernelAssembly = "PTX";
  hopper.lowersBranchProbes = true;
  hopper.simtLanes = 32;
  hopper.supportsOp = gpucommon::isGpuMappable;
  llvm::cantFail(registry.registerTarget(std::move(hopper)));

  TargetInfo blackwell;
  blackwell.arch = "nvidia_blackwell";
  blackwell.description = "NVIDIA Blackwell GPU (sm_100a), e.g. B200";
  blackwell.keys = getNVIDIAKeys({"sm_100a", "sm_100"}, /*tmaByDefault=*/true);
  blackwell.keys.push_back(
      {"tcgen05",
       TargetKeyType::Bool,
       /*required=*/false,
       "compute f16 and bf16 matmuls with f32 accumulators on the "
       "fifth-generation tensor cores (tcgen05.mma, the accumulator in "
       "tensor memory, operand tiles staged by swizzled TMA copies; 128-row "
       "blocks, K steps of 64) where their shapes allow it (default: false "
       "until it has run on a Blackwell GPU)",
       std::nullopt,
       {}});
  blackwell.keys.push_back(
      {"tcgen05_tile",
       TargetKeyType::String,
       /*required=*/false,
       "the block tile of the tcgen05 kernels: \"128x128\" (128 tensor "
       "memory columns; room for two blocks per SM) or \"128x256\" (256 "
       "columns, for N a multiple of 256: more MMA per copied byte, one "
       "block per SM) (default: \"128x128\")",
       std::nullopt,
       {"128x128", "128x256"}});
  blackwell.memorySpaces = {
      {"hbm", MemoryScope::Device, "device global memory (HBM)"},
      {"shared", MemoryScope::Kernel, "per-block shared memory (SMEM)"},
      {"tmem", MemoryScope::Kernel, "tensor memory of the tcgen05 units"},
  };
  blackwell.defaultMemorySpace = "hbm";
  blackwell.strategyScript = "nvidia_blackwell_strategy.mlir";
  blackwell.strategyEntryPoint = "__orchestra_nvidia_blackwell_strategy";
  blackwell.strategyLibraries = {"gpu_common.mlir", "nvidia_gpu_common.mlir"};
  blackwell.preparePipeline = "orchestra-gpu-lower-asm-kernels";
  blackwell.preStrategyPipeline =
      "orchestra-gpu-pads-to-linalg,orchestra-gpu-scalars-to-linalg,"
      "orchestra-gpu-parallel-loops-first,"
      "orchestra-nvidia-select-recipes";
  blackwell.loweringPipeline =
      getNVIDIALoweringPipeline(blackwell.arch, "sm_100a", "+ptx86");
  blackwell.loweringNeedsStrategy = true;
  blackwell.executableFormat = ExecutableFormat::Cubin;
  blackwell.runtimeDriver = "cuda";
  blackwell.kernelAssembly = "PTX";
  blackwell.lowersBranchProbes = true;
  blackwell.simtLanes = 32;
  blackwell.supportsOp = gpucommon::isGpuMappable;
  llvm::cantFail(registry.registerTarget(std::move(blackwell)));
}
