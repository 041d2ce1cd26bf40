//===- FoldEmptyLoops.cpp - Structured ops that run no iteration ----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_FOLDEMPTYLOOPS
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;

namespace {
class FoldEmptyLoopsPass
    : public orchestra::impl::FoldEmptyLoopsBase<FoldEmptyLoopsPass> {
public:
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> empty;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() &&
          llvm::is_contained(op.getStaticLoopRanges(), 0))
        empty.push_back(op);
    });
    // The body never runs: each result is its init.
    for (linalg::LinalgOp op : empty)
      op->replaceAllUsesWith(op.getDpsInits());
    for (linalg::LinalgOp op : empty)
      op->erase();
  }
};
} // namespace
