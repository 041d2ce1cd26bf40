//===- AWSTarget.cpp - AWS Trainium target entries ------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Target/Targets.h"

using namespace mlir::orchestra;

/// Registers AWS Trainium2, reached through StableHLO and the Neuron compiler,
/// with NKI kernels as the expert escape hatch.
void mlir::orchestra::registerAWSTargets(TargetRegistry &registry) {
  TargetInfo trn2;
  trn2.arch = "aws_trainium2";
  trn2.description =
      "AWS Trainium2 (StableHLO handed to neuronx-cc; NKI kernels accepted)";
  trn2.keys = {
      {"logical_core_count",
       TargetKeyType::Integer,
       /*required=*/false,
       "NeuronCores per logical core (the LNC setting; default: 2)",
       /*minValue=*/1,
       {}},
  };
  trn2.memorySpaces = {
      {"hbm", MemoryScope::Device, "device high-bandwidth memory"},
      {"sbuf", MemoryScope::Kernel, "NeuronCore state buffer (SBUF)"},
      {"psum", MemoryScope::Kernel, "NeuronCore partial-sum buffer (PSUM)"},
  };
  trn2.defaultMemorySpace = "hbm";
  trn2.executableFormat = ExecutableFormat::StableHLO;
  trn2.runtimeDriver = "pjrt";
  trn2.supportsOp = isStableHLOExpressible;
  trn2.acceptsNKISource = true;
  llvm::cantFail(registry.registerTarget(std::move(trn2)));
}
