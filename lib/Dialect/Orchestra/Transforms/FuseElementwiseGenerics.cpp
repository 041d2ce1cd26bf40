//===- FuseElementwiseGenerics.cpp - Elementwise fusion, nothing more -----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_FUSEELEMENTWISEGENERICS
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;

/// Fuse a producer into its consumer when the producer has no other user
/// (nothing is computed twice) and the consumer is not a contraction (whose
/// body must stay a multiply-accumulate to remain one).
static bool shouldFuse(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  return consumer && !linalg::isaContractionOpInterface(consumer);
}

namespace {
class FuseElementwiseGenericsPass
    : public orchestra::impl::FuseElementwiseGenericsBase<
          FuseElementwiseGenericsPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateElementwiseOpsFusionPatterns(patterns, shouldFuse);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
