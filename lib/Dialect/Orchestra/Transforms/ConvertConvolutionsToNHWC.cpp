//===- ConvertConvolutionsToNHWC.cpp - Channels-last convolutions ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_CONVERTCONVOLUTIONSTONHWC
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;

namespace {

/// `value` transposed with `permutation` (result dim i = source dim
/// permutation[i]).
Value transpose(PatternRewriter &rewriter, Location loc, Value value,
                ArrayRef<int64_t> permutation) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(type.getDimSize(dim));
  Value init =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, value, init, permutation)
      ->getResult(0);
}

constexpr int64_t kToNHWC[] = {0, 2, 3, 1};
constexpr int64_t kToNCHW[] = {0, 3, 1, 2};

bool isStaticTensorOp(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() &&
         llvm::all_of(op->getOperandTypes(), [](Type type) {
           auto tensor = dyn_cast<RankedTensorType>(type);
           return tensor && tensor.hasStaticShape();
         });
}

/// Rewrites the NCHW convolution `SourceOp` as the channels-last `TargetOp`:
/// input and output transposed to NHWC around it, the filter transposed by
/// `filterPermutation`.
template <typename SourceOp, typename TargetOp>
struct ConvertToNHWC : OpRewritePattern<SourceOp> {
  ConvertToNHWC(MLIRContext *ctx, ArrayRef<int64_t> filterPermutation)
      : OpRewritePattern<SourceOp>(ctx), filterPermutation(filterPermutation) {}

  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    if (!isStaticTensorOp(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors");
    Location loc = op.getLoc();
    Value input = transpose(rewriter, loc, op.getInputs()[0], kToNHWC);
    Value filter =
        transpose(rewriter, loc, op.getInputs()[1], filterPermutation);
    Value init = transpose(rewriter, loc, op.getOutputs()[0], kToNHWC);
    auto conv = TargetOp::create(rewriter, loc, TypeRange{init.getType()},
                                 ValueRange{input, filter}, ValueRange{init},
                                 op.getStrides(), op.getDilations());
    rewriter.replaceOp(op,
                       transpose(rewriter, loc, conv->getResult(0), kToNCHW));
    return success();
  }

  SmallVector<int64_t> filterPermutation;
};

class ConvertConvolutionsToNHWCPass
    : public orchestra::impl::ConvertConvolutionsToNHWCBase<
          ConvertConvolutionsToNHWCPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // FCHW -> HWCF.
    patterns
        .add<ConvertToNHWC<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcHwcfOp>>(
            &getContext(), ArrayRef<int64_t>{2, 3, 1, 0});
    // CHW -> HWC.
    patterns.add<ConvertToNHWC<linalg::DepthwiseConv2DNchwChwOp,
                               linalg::DepthwiseConv2DNhwcHwcOp>>(
        &getContext(), ArrayRef<int64_t>{1, 2, 0});
    // A fill transposed is a fill of the transposed shape, and transposes
    // of transposes compose.
    linalg::FillOp::getCanonicalizationPatterns(patterns, &getContext());
    linalg::TransposeOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
