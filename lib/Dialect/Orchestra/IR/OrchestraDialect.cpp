//===- OrchestraDialect.cpp - Orchestra dialect ---------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/OrchestraDialect.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"

using namespace mlir;
using namespace mlir::orchestra;

#include "orchestra/Dialect/Orchestra/IR/OrchestraOpsDialect.cpp.inc"

void OrchestraDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.cpp.inc"
      >();
}
