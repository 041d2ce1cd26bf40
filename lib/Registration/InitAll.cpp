//===- InitAll.cpp - Register every dialect and pass ----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/InitAll.h"

#include "orchestra/Compiler/Pipeline.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraDialect.h"
#include "orchestra/Dialect/Orchestra/TransformOps/OrchestraTransformOps.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Target/Backend.h"

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
  for (const TargetBackend &backend : getTargetBackends())
    if (backend.registerDialects)
      backend.registerDialects(registry);
}

void mlir::orchestra::registerAllPasses() {
  mlir::registerAllPasses();
  registerOrchestraPasses();
  for (const TargetBackend &backend : getTargetBackends())
    if (backend.registerPasses)
      backend.registerPasses();
  registerCompilerPipelines();
}
