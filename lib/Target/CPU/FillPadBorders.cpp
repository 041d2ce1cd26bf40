//===- FillPadBorders.cpp - Fill only the border of a padded tensor -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::orchestra::cpu {
#define GEN_PASS_DEF_CPUFILLPADBORDERS
#include "orchestra/Target/CPU/Passes.h.inc"
} // namespace mlir::orchestra::cpu

using namespace mlir;

namespace {

/// Rewrites `insert_slice %src into (fill %v into empty)`, the padding of
/// `%src`, so that only the border around `%src` is filled: for each
/// dimension, the slabs before and after `%src` along it (within `%src`'s
/// extent along the dimensions before, whole along those after) are filled
/// and inserted one by one, and `%src` last.
struct FillOnlyBorder : OpRewritePattern<tensor::InsertSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::InsertSliceOp insert,
                                PatternRewriter &rewriter) const override {
    auto fill = insert.getDest().getDefiningOp<linalg::FillOp>();
    if (!fill || !fill->hasOneUse() || !fill.hasPureTensorSemantics())
      return failure();
    auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
    RankedTensorType type = insert.getDestType();
    if (!empty || !type.hasStaticShape() ||
        insert.getSourceType().getRank() != type.getRank() ||
        !insert.hasUnitStride())
      return failure();
    ArrayRef<int64_t> offsets = insert.getStaticOffsets();
    ArrayRef<int64_t> sizes = insert.getStaticSizes();
    if (ShapedType::isDynamicShape(offsets) ||
        ShapedType::isDynamicShape(sizes))
      return failure();
    // Nothing to gain when the source fills nothing.
    if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
      return failure();

    Location loc = insert.getLoc();
    Value value = fill.getInputs()[0];
    Type elementType = type.getElementType();
    int64_t rank = type.getRank();
    Value result = empty;
    auto fillSlab = [&](ArrayRef<int64_t> slabOffsets,
                        ArrayRef<int64_t> slabSizes) {
      Value slab =
          tensor::EmptyOp::create(rewriter, loc, slabSizes, elementType);
      Value filled =
          linalg::FillOp::create(rewriter, loc, value, slab).getResult(0);
      SmallVector<int64_t> ones(rank, 1);
      result = tensor::InsertSliceOp::create(
          rewriter, loc, filled, result, ValueRange(), ValueRange(),
          ValueRange(), rewriter.getDenseI64ArrayAttr(slabOffsets),
          rewriter.getDenseI64ArrayAttr(slabSizes),
          rewriter.getDenseI64ArrayAttr(ones));
    };
    for (int64_t dim = 0; dim < rank; ++dim) {
      SmallVector<int64_t> slabOffsets(rank, 0), slabSizes(type.getShape());
      for (int64_t before = 0; before < dim; ++before) {
        slabOffsets[before] = offsets[before];
        slabSizes[before] = sizes[before];
      }
      int64_t low = offsets[dim];
      int64_t high = type.getDimSize(dim) - offsets[dim] - sizes[dim];
      if (low > 0) {
        slabOffsets[dim] = 0;
        slabSizes[dim] = low;
        fillSlab(slabOffsets, slabSizes);
      }
      if (high > 0) {
        slabOffsets[dim] = offsets[dim] + sizes[dim];
        slabSizes[dim] = high;
        fillSlab(slabOffsets, slabSizes);
      }
    }
    rewriter.modifyOpInPlace(insert,
                             [&] { insert.getDestMutable().assign(result); });
    rewriter.eraseOp(fill);
    return success();
  }
};

class CPUFillPadBordersPass
    : public orchestra::cpu::impl::CPUFillPadBordersBase<
          CPUFillPadBordersPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FillOnlyBorder>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
