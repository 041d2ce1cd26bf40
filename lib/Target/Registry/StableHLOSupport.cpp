//===- StableHLOSupport.cpp - Ops the StableHLO hand-off path takes -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/TargetRegistry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

/// Scalar ops of a structured op's body or of the function.
static bool isScalarComputation(Operation *op) {
  Dialect *dialect = op->getDialect();
  return dialect && isa<arith::ArithDialect, math::MathDialect>(dialect);
}

static bool hasStaticTensorTypes(Operation *op) {
  auto isStatic = [](Type type) {
    if (isa<MemRefType, UnrankedTensorType>(type))
      return false;
    auto shaped = dyn_cast<ShapedType>(type);
    return !shaped || shaped.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

bool mlir::orchestra::isStableHLOExpressible(Operation *op) {
  if (!hasStaticTensorTypes(op))
    return false;
  if (isScalarComputation(op))
    return true;
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    if (!linalgOp.hasPureTensorSemantics())
      return false;
    // Convolutions and pooling have non-permutation maps but direct StableHLO
    // equivalents (convolution, reduce_window).
    if (!isa<linalg::ConvolutionOpInterface>(op) &&
        !llvm::all_of(linalgOp.getIndexingMapsArray(), [](AffineMap map) {
          return map.isProjectedPermutation(/*allowZeroInResults=*/true);
        }))
      return false;
    if (Block *body = linalgOp.getBlock())
      for (Operation &inner : body->without_terminator())
        if (!isScalarComputation(&inner))
          return false;
    return true;
  }
  return isa<tensor::EmptyOp, tensor::ReshapeOp, tensor::CollapseShapeOp,
             tensor::ExpandShapeOp, tensor::ExtractSliceOp,
             tensor::InsertSliceOp, tensor::ConcatOp, tensor::CastOp,
             tensor::SplatOp, tensor::FromElementsOp>(op) ||
         (isa<tensor::PadOp>(op) &&
          cast<tensor::PadOp>(op).getConstantPaddingValue());
}
