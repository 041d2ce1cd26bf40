//===- CPUTarget.cpp - Host CPU target entries ----------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Target/Targets.h"

using namespace mlir::orchestra;

/// Registers the host CPU archs.
void mlir::orchestra::registerCPUTargets(TargetRegistry &registry) {
  TargetInfo x86;
  x86.arch = "x86_64";
  x86.description = "x86-64 host CPU";
  x86.keys = {
      {"num_threads",
       TargetKeyType::Integer,
       /*required=*/false,
       "worker threads the device's queue runs kernels on (default: the "
       "device's cores)",
       /*minValue=*/1,
       {}},
      {"cpu",
       TargetKeyType::String,
       /*required=*/false,
       "LLVM CPU name to generate code for, e.g. \"skylake-avx512\" "
       "(default: the compiling machine's CPU)",
       std::nullopt,
       {}},
      {"features",
       TargetKeyType::String,
       /*required=*/false,
       "LLVM target features, e.g. \"+avx512f,+fma\" (default: those of the "
       "compiling machine)",
       std::nullopt,
       {}},
  };
  x86.memorySpaces = {
      {"dram", MemoryScope::Device, "host main memory"},
  };
  x86.defaultMemorySpace = "dram";
  x86.executableFormat = ExecutableFormat::NativeObject;
  llvm::cantFail(registry.registerTarget(std::move(x86)));
}
