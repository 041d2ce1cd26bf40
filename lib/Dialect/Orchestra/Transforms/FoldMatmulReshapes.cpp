//===- FoldMatmulReshapes.cpp - Matmul epilogues in the matmul's shape ----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Dialect/Orchestra/Utils/GroupedConvolution.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_FOLDMATMULRESHAPES
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;

namespace {

/// Whether the reshape feeding (or fed by) `operand` reshapes the result of a
/// structured op other than a convolution: a matmul, or an elementwise op
/// already folded into its shape. (A grouped convolution's activation runs
/// in the convolution's 5-D shape on purpose: see
/// orchestra-convert-convolutions-to-nhwc.)
bool reshapesStructuredResult(OpOperand *operand) {
  Operation *producer = operand->get().getDefiningOp();
  if (auto expand = dyn_cast_if_present<tensor::ExpandShapeOp>(producer))
    producer = expand.getSrc().getDefiningOp();
  return isa_and_present<linalg::LinalgOp>(producer) &&
         !orchestra::isConvolutionOp(producer) &&
         !orchestra::isGroupedConvolutionResult(producer->getResult(0));
}

class FoldMatmulReshapesPass
    : public orchestra::impl::FoldMatmulReshapesBase<FoldMatmulReshapesPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, reshapesStructuredResult);
    // Reshapes of empty tensors (the collapsed ops' initial values) are
    // empty tensors; reshapes that meet their inverse fold.
    tensor::populateFoldTensorEmptyPatterns(patterns);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns,
                                                         &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
