//===- PretransposeConstantOperands.cpp - Constant B in kernel layout -----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_PRETRANSPOSECONSTANTOPERANDS
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;

namespace {

/// The raw bytes of a constant's elements, row-major, or nothing (splats,
/// sub-byte types, unavailable resources).
std::optional<ArrayRef<char>> getRawElements(ElementsAttr attr) {
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    if (dense.isSplat())
      return std::nullopt;
    return dense.getRawData();
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    return blob->getData();
  }
  return std::nullopt;
}

/// `attr`'s elements, read as a row-major tensor of `type` (its own type,
/// or a reshape of it), permuted like `linalg.transpose` with `permutation`
/// (result dimension i is source dimension permutation[i]), or null when the
/// data is not available as raw bytes.
DenseElementsAttr transposeElements(ElementsAttr attr, RankedTensorType type,
                                    ArrayRef<int64_t> permutation) {
  if (!type || !type.hasStaticShape())
    return {};
  Type elementType = type.getElementType();
  if (!elementType.isIntOrFloat() ||
      elementType.getIntOrFloatBitWidth() % 8 != 0)
    return {};
  std::optional<ArrayRef<char>> raw = getRawElements(attr);
  size_t width = elementType.getIntOrFloatBitWidth() / 8;
  int64_t count = type.getNumElements();
  if (!raw || raw->size() != static_cast<size_t>(count) * width)
    return {};
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> resultShape(rank), sourceStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    sourceStrides[d] = sourceStrides[d + 1] * shape[d + 1];
  for (int64_t d = 0; d < rank; ++d)
    resultShape[d] = shape[permutation[d]];
  std::vector<char> result(raw->size());
  SmallVector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t source = 0;
    for (int64_t d = 0; d < rank; ++d)
      source += index[d] * sourceStrides[permutation[d]];
    std::memcpy(&result[linear * width], &(*raw)[source * width], width);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < resultShape[d])
        break;
      index[d] = 0;
    }
  }
  return DenseElementsAttr::getFromRawBuffer(
      RankedTensorType::get(resultShape, elementType), result);
}

DenseElementsAttr transposeElements(ElementsAttr attr,
                                    ArrayRef<int64_t> permutation) {
  return transposeElements(attr, dyn_cast<RankedTensorType>(attr.getType()),
                           permutation);
}

/// linalg.transpose of a constant, or of a reshape of one (the [G, M/G, ...]
/// view of a grouped convolution's filter) -> the transposed constant.
struct FoldTransposeOfConstant : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    Value input = op.getInput();
    if (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
            input.getDefiningOp()))
      input = input.getDefiningOp()->getOperand(0);
    auto constant = input.getDefiningOp<arith::ConstantOp>();
    auto elements =
        constant ? dyn_cast<ElementsAttr>(constant.getValue()) : nullptr;
    if (!elements)
      return rewriter.notifyMatchFailure(op, "input is not a constant");
    // A reshape is a view: the same row-major elements in another shape.
    DenseElementsAttr transposed = transposeElements(
        elements, cast<RankedTensorType>(op.getInput().getType()),
        op.getPermutation());
    if (!transposed)
      return rewriter.notifyMatchFailure(op, "input data is not available");
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, transposed);
    return success();
  }
};

/// matmul(A, constant B read as (n, k)) -> matmul(A, constant B^T).
struct PretransposeMatmulRhs : OpRewritePattern<linalg::MatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    MLIRContext *ctx = op.getContext();
    AffineExpr m, n, k;
    bindDims(ctx, m, n, k);
    auto map = [&](ArrayRef<AffineExpr> results) {
      return AffineMap::get(3, 0, results, ctx);
    };
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    if (maps != SmallVector<AffineMap>{map({m, k}), map({n, k}), map({m, n})})
      return rewriter.notifyMatchFailure(op, "B is not read transposed");

    Value rhs = op.getInputs()[1];
    auto constant = rhs.getDefiningOp<arith::ConstantOp>();
    auto elements =
        constant ? dyn_cast<ElementsAttr>(constant.getValue()) : ElementsAttr();
    auto type = dyn_cast<RankedTensorType>(rhs.getType());
    if (!elements || !type || type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "B is not a 2-D constant");
    DenseElementsAttr attr = transposeElements(elements, {1, 0});
    if (!attr)
      return rewriter.notifyMatchFailure(op, "B's data is not available");
    rewriter.setInsertionPoint(constant);
    Value newRhs = arith::ConstantOp::create(rewriter, constant.getLoc(), attr);
    rewriter.setInsertionPoint(op);
    auto matmul = linalg::MatmulOp::create(
        rewriter, op.getLoc(), op.getResultTypes(),
        ValueRange{op.getInputs()[0], newRhs}, op.getOutputs());
    rewriter.replaceOp(op, matmul.getResults());
    return success();
  }
};

class PretransposeConstantOperandsPass
    : public orchestra::impl::PretransposeConstantOperandsBase<
          PretransposeConstantOperandsPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<PretransposeMatmulRhs, FoldTransposeOfConstant>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
