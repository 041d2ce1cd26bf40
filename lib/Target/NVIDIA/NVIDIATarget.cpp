//===- NVIDIATarget.cpp - NVIDIA GPU target entries -----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Target/Targets.h"

using namespace mlir::orchestra;

/// Returns the keys Hopper and Blackwell share; `sms` lists the accepted
/// `sm` values, the first being the default.
static std::vector<TargetKeySpec> getNVIDIAKeys(std::vector<std::string> sms) {
  std::string smDefault = sms.front();
  return {
      {"sm", TargetKeyType::String, /*required=*/false,
       "SM version to compile for (default: \"" + smDefault + "\")",
       std::nullopt, std::move(sms)},
      {"tma",
       TargetKeyType::Bool,
       /*required=*/false,
       "use the Tensor Memory Accelerator for global<->shared copies "
       "(default: true)",
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

/// Registers NVIDIA Hopper (sm_90a) and Blackwell (sm_100a).
void mlir::orchestra::registerNVIDIATargets(TargetRegistry &registry) {
  TargetInfo hopper;
  hopper.arch = "nvidia_hopper";
  hopper.description = "NVIDIA Hopper GPU (sm_90a), e.g. H100/H200";
  hopper.keys = getNVIDIAKeys({"sm_90a", "sm_90"});
  hopper.memorySpaces = {
      {"hbm", MemoryScope::Device, "device global memory (HBM)"},
      {"shared", MemoryScope::Kernel, "per-block shared memory (SMEM)"},
  };
  hopper.defaultMemorySpace = "hbm";
  hopper.executableFormat = ExecutableFormat::Cubin;
  llvm::cantFail(registry.registerTarget(std::move(hopper)));

  TargetInfo blackwell;
  blackwell.arch = "nvidia_blackwell";
  blackwell.description = "NVIDIA Blackwell GPU (sm_100a), e.g. B200";
  blackwell.keys = getNVIDIAKeys({"sm_100a", "sm_100"});
  blackwell.keys.push_back(
      {"tcgen05",
       TargetKeyType::Bool,
       /*required=*/false,
       "use the fifth-generation tensor core instructions (default: true)",
       std::nullopt,
       {}});
  blackwell.memorySpaces = {
      {"hbm", MemoryScope::Device, "device global memory (HBM)"},
      {"shared", MemoryScope::Kernel, "per-block shared memory (SMEM)"},
      {"tmem", MemoryScope::Kernel, "tensor memory of the tcgen05 units"},
  };
  blackwell.defaultMemorySpace = "hbm";
  blackwell.executableFormat = ExecutableFormat::Cubin;
  llvm::cantFail(registry.registerTarget(std::move(blackwell)));
}
