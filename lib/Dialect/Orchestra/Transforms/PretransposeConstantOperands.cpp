//===- PretransposeConstantOperands.cpp - Constant B in kernel layout -----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
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
    if (!elements || !type || !type.hasStaticShape() || type.getRank() != 2)
      return rewriter.notifyMatchFailure(op, "B is not a 2-D constant");
    Type elementType = type.getElementType();
    if (!elementType.isIntOrFloat() ||
        elementType.getIntOrFloatBitWidth() % 8 != 0)
      return rewriter.notifyMatchFailure(op, "unsupported element type");
    std::optional<ArrayRef<char>> raw = getRawElements(elements);
    int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
    size_t width = elementType.getIntOrFloatBitWidth() / 8;
    if (!raw || raw->size() != static_cast<size_t>(rows * cols) * width)
      return rewriter.notifyMatchFailure(op, "B's data is not available");

    // B^T: element (j, i) of the result is element (i, j) of B.
    std::vector<char> transposed(raw->size());
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        std::memcpy(&transposed[(j * rows + i) * width],
                    &(*raw)[(i * cols + j) * width], width);
    auto transposedType = RankedTensorType::get({cols, rows}, elementType);
    auto attr = DenseElementsAttr::getFromRawBuffer(transposedType, transposed);
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
    patterns.add<PretransposeMatmulRhs>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
