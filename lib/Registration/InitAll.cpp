//===- InitAll.cpp - Register every dialect and pass ----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/InitAll.h"

#include "orchestra/Dialect/Orchestra/IR/OrchestraDialect.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"

void mlir::orchestra::registerAllDialectsAndExtensions(
    DialectRegistry &registry) {
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<OrchestraDialect>();
}

void mlir::orchestra::registerAllPasses() {
  mlir::registerAllPasses();
  registerOrchestraPasses();
}
