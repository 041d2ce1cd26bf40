//===- InitAll.cpp - Register every dialect and pass ----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/InitAll.h"

#include "orchestra/Dialect/Orchestra/IR/OrchestraDialect.h"
#include "orchestra/Dialect/Orchestra/TransformOps/OrchestraTransformOps.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"

#ifdef ORCHESTRA_HAS_CPU_TARGET
#include "orchestra/Target/CPU/Passes.h"
#endif
#ifdef ORCHESTRA_HAS_NVIDIA_TARGET
#include "orchestra/Target/NVIDIA/Passes.h"
#endif

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

void mlir::orchestra::registerAllDialectsAndExtensions(
    DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<OrchestraDialect>();
  registerTransformDialectExtension(registry);
}

void mlir::orchestra::registerAllPasses() {
  mlir::registerAllPasses();
  registerOrchestraPasses();
#ifdef ORCHESTRA_HAS_CPU_TARGET
  cpu::registerOrchestraCPUPasses();
#endif
#ifdef ORCHESTRA_HAS_NVIDIA_TARGET
  nvidia::registerOrchestraNVIDIAPasses();
#endif
}
