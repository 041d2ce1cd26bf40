//===- PretransposeConstantOperands.cpp - Constant B in kernel layout -----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Dialect/Orchestra/Utils/ConstantData.h"

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
using mlir::orchestra::getRawElements;

namespace {

/// The bytes of each element of `type`, or 0 for types whose elements are
/// not whole bytes.
size_t getElementBytes(RankedTensorType type) {
  Type elementType = type ? type.getElementType() : Type();
  if (!type || !type.hasStaticShape() || !elementType.isIntOrFloat() ||
      elementType.getIntOrFloatBitWidth() % 8 != 0)
    return 0;
  return elementType.getIntOrFloatBitWidth() / 8;
}

/// The row-major bytes of `value` when it is a constant seen through views:
/// reshapes (the same bytes) and static unit-stride slices (a recurrent
/// layer's per-gate block of its weights), or nothing.
std::optional<std::vector<char>> getConstantViewBytes(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  size_t width = getElementBytes(type);
  if (!width)
    return std::nullopt;
  Operation *def = value.getDefiningOp();
  if (auto constant = dyn_cast_or_null<arith::ConstantOp>(def)) {
    auto elements = dyn_cast<ElementsAttr>(constant.getValue());
    std::optional<ArrayRef<char>> raw =
        elements ? getRawElements(elements) : std::nullopt;
    if (!raw)
      return std::nullopt;
    return std::vector<char>(raw->begin(), raw->end());
  }
  if (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
    return getConstantViewBytes(def->getOperand(0));
  auto slice = dyn_cast_or_null<tensor::ExtractSliceOp>(def);
  if (!slice || !slice.hasUnitStride() ||
      ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
      ShapedType::isDynamicShape(slice.getStaticSizes()))
    return std::nullopt;
  std::optional<std::vector<char>> source =
      getConstantViewBytes(slice.getSource());
  if (!source)
    return std::nullopt;
  // Copy the slice row by row (rows of its innermost dimension).
  ArrayRef<int64_t> shape = slice.getSourceType().getShape();
  ArrayRef<int64_t> offsets = slice.getStaticOffsets();
  ArrayRef<int64_t> sizes = slice.getStaticSizes();
  int64_t rank = shape.size();
  SmallVector<int64_t> strides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  std::vector<char> result;
  result.reserve(type.getNumElements() * width);
  SmallVector<int64_t> index(rank, 0);
  int64_t rows = 1;
  for (int64_t d = 0; d + 1 < rank; ++d)
    rows *= sizes[d];
  for (int64_t row = 0; row < rows; ++row) {
    int64_t start = 0;
    for (int64_t d = 0; d < rank; ++d)
      start += (offsets[d] + index[d]) * strides[d];
    const char *from = source->data() + start * width;
    result.insert(result.end(), from, from + sizes[rank - 1] * width);
    for (int64_t d = rank - 2; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
  return result;
}

/// `raw`, the row-major elements of a tensor of `type`, permuted like
/// `linalg.transpose` with `permutation` (result dimension i is source
/// dimension permutation[i]), or null when they do not fit the type.
DenseElementsAttr transposeElements(ArrayRef<char> raw, RankedTensorType type,
                                    ArrayRef<int64_t> permutation) {
  size_t width = getElementBytes(type);
  if (!width)
    return {};
  Type elementType = type.getElementType();
  int64_t count = type.getNumElements();
  if (raw.size() != static_cast<size_t>(count) * width)
    return {};
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  SmallVector<int64_t> resultShape(rank), sourceStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    sourceStrides[d] = sourceStrides[d + 1] * shape[d + 1];
  for (int64_t d = 0; d < rank; ++d)
    resultShape[d] = shape[permutation[d]];
  std::vector<char> result(raw.size());
  SmallVector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t source = 0;
    for (int64_t d = 0; d < rank; ++d)
      source += index[d] * sourceStrides[permutation[d]];
    std::memcpy(&result[linear * width], &raw[source * width], width);
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
  std::optional<ArrayRef<char>> raw = getRawElements(attr);
  if (!raw)
    return {};
  return transposeElements(*raw, dyn_cast<RankedTensorType>(attr.getType()),
                           permutation);
}

/// linalg.transpose of a constant seen through views (the [G, M/G, ...]
/// view of a grouped convolution's filter, a recurrent layer's per-gate
/// block of R) -> the transposed constant.
struct FoldTransposeOfConstant : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    std::optional<std::vector<char>> input =
        getConstantViewBytes(op.getInput());
    if (!input)
      return rewriter.notifyMatchFailure(op, "input is not a constant");
    DenseElementsAttr transposed = transposeElements(
        *input, cast<RankedTensorType>(op.getInput().getType()),
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
