//===- FoldEmptyLoops.cpp - Structured ops that run no iteration ----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

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

    // Concatenations leave out their operands without elements; slices
    // without elements insert nothing.
    auto hasNoElements = [](Value value) {
      auto type = dyn_cast<RankedTensorType>(value.getType());
      return type && type.hasStaticShape() && type.getNumElements() == 0;
    };
    SmallVector<Operation *> dataMovement;
    getOperation().walk([&](Operation *op) {
      if (isa<tensor::ConcatOp, tensor::InsertSliceOp>(op))
        dataMovement.push_back(op);
    });
    for (Operation *op : dataMovement) {
      OpBuilder builder(op);
      if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
        if (hasNoElements(insert.getSource()) &&
            insert.getDest().getType() == insert.getType()) {
          insert.replaceAllUsesWith(insert.getDest());
          insert.erase();
        }
        continue;
      }
      auto concat = cast<tensor::ConcatOp>(op);
      SmallVector<Value> kept;
      for (Value input : concat.getInputs())
        if (!hasNoElements(input))
          kept.push_back(input);
      if (kept.size() == concat.getInputs().size())
        continue;
      Value replacement;
      if (kept.empty())
        replacement = tensor::EmptyOp::create(
            builder, concat.getLoc(), concat.getResultType().getShape(),
            concat.getResultType().getElementType());
      else if (kept.size() == 1 && kept.front().getType() == concat.getType())
        replacement = kept.front();
      else
        replacement = tensor::ConcatOp::create(builder, concat.getLoc(),
                                               concat.getDim(), kept);
      concat.replaceAllUsesWith(replacement);
      concat.erase();
    }
  }
};
} // namespace
