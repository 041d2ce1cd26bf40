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
       "NeuronCores per logical core (the LNC setting, neuronx-cc's "
       "--logical-nc-config; default: 2)",
       /*minValue=*/1,
       {}},
      {"neuron_aot",
       TargetKeyType::String,
       /*required=*/false,
       "Also compile each kernel into a NEFF with neuronx-cc: \"auto\" "
       "(default: when neuronx-cc is installed), \"require\" (an error "
       "when it is not) or \"off\"",
       std::nullopt,
       {"auto", "require", "off"}},
  };
  for (TargetKeySpec &key : getPjrtTargetKeys(
           "libneuronpjrt.so for Trainium, from the Neuron SDK's libneuronxla "
           "package; another plugin may stand in for it"))
    trn2.keys.push_back(std::move(key));
  trn2.memorySpaces = {
      {"hbm", MemoryScope::Device, "device high-bandwidth memory"},
      {"sbuf", MemoryScope::Kernel, "NeuronCore state buffer (SBUF)"},
      {"psum", MemoryScope::Kernel, "NeuronCore partial-sum buffer (PSUM)"},
  };
  trn2.defaultMemorySpace = "hbm";
  trn2.acceptsNKISource = true;
  setStableHLOLowering(trn2, "aws_trainium_strategy.mlir",
                       /*beforeLowering=*/"orchestra-lower-nki-tasks",
                       /*beforeEmit=*/"orchestra-aws-compile-neff");
  llvm::cantFail(registry.registerTarget(std::move(trn2)));
}
