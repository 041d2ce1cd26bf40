//===- Builders.cpp - Builders shared by the ONNX converters --------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

Value NodeContext::createEmpty(ArrayRef<int64_t> shape, Type elementType) {
  return tensor::EmptyOp::create(builder, loc, shape, elementType);
}

Value NodeContext::createScalar(Type elementType, double value) {
  if (auto floatType = dyn_cast<FloatType>(elementType))
    return arith::ConstantOp::create(builder, loc,
                                     builder.getFloatAttr(floatType, value));
  auto intType = cast<IntegerType>(elementType);
  return arith::ConstantOp::create(
      builder, loc,
      builder.getIntegerAttr(intType, APInt(intType.getWidth(),
                                            static_cast<int64_t>(value),
                                            /*isSigned=*/true,
                                            /*implicitTrunc=*/true)));
}

Value NodeContext::createFilled(ArrayRef<int64_t> shape, Value scalar) {
  Value empty = createEmpty(shape, scalar.getType());
  return linalg::FillOp::create(builder, loc, scalar, empty).getResult(0);
}

FailureOr<SmallVector<int64_t>>
onnx_import::getBroadcastShape(NodeContext &ctx,
                               ArrayRef<ArrayRef<int64_t>> shapes) {
  size_t rank = 0;
  for (ArrayRef<int64_t> shape : shapes)
    rank = std::max(rank, shape.size());
  SmallVector<int64_t> result(rank, 1);
  for (ArrayRef<int64_t> shape : shapes) {
    size_t offset = rank - shape.size();
    for (auto [i, dim] : llvm::enumerate(shape)) {
      int64_t &out = result[offset + i];
      if (dim == out || dim == 1)
        continue;
      if (out == 1) {
        out = dim;
        continue;
      }
      auto diag = ctx.emitError() << "operand shapes";
      for (ArrayRef<int64_t> s : shapes)
        diag << " [" << llvm::make_range(s.begin(), s.end()) << "]";
      diag << " do not broadcast";
      return failure();
    }
  }
  return result;
}

FailureOr<Value> onnx_import::buildElementwise(NodeContext &ctx,
                                               ValueRange inputs,
                                               Type resultElementType,
                                               ScalarBodyFn body) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value input : inputs)
    shapes.push_back(cast<RankedTensorType>(input.getType()).getShape());
  FailureOr<SmallVector<int64_t>> shape = getBroadcastShape(ctx, shapes);
  if (failed(shape))
    return failure();
  OpBuilder &b = ctx.getBuilder();
  MLIRContext *context = b.getContext();
  int64_t rank = shape->size();

  SmallVector<AffineMap> maps;
  for (ArrayRef<int64_t> inputShape : shapes) {
    int64_t offset = rank - inputShape.size();
    SmallVector<AffineExpr> exprs;
    for (auto [i, dim] : llvm::enumerate(inputShape))
      exprs.push_back(dim == 1 && (*shape)[offset + i] != 1
                          ? getAffineConstantExpr(0, context)
                          : getAffineDimExpr(offset + i, context));
    maps.push_back(AffineMap::get(rank, 0, exprs, context));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, context));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value init = ctx.createEmpty(*shape, resultElementType);
  auto generic = linalg::GenericOp::create(
      b, ctx.getLoc(), init.getType(), inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nested, Location loc, ValueRange args) {
        Value result = body(nested, loc, args.drop_back());
        linalg::YieldOp::create(nested, loc, result);
      });
  return generic.getResult(0);
}

Value onnx_import::castScalar(OpBuilder &b, Location loc, Value scalar,
                              OnnxDType from, OnnxDType to) {
  Type target = getElementType(b.getContext(), to);
  Type source = scalar.getType();
  if (from == to || (source == target && !isBoolDType(to) &&
                     isUnsignedDType(from) == isUnsignedDType(to)))
    return scalar;
  if (isBoolDType(to)) {
    if (isa<FloatType>(source)) {
      Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(source, 0));
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, scalar,
                                   zero);
    }
    if (source.isInteger(1))
      return scalar;
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(source, 0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, scalar,
                                 zero);
  }
  bool sourceSigned = isSignedDType(from);
  if (auto targetFloat = dyn_cast<FloatType>(target)) {
    if (auto sourceFloat = dyn_cast<FloatType>(source)) {
      if (sourceFloat.getWidth() < targetFloat.getWidth())
        return arith::ExtFOp::create(b, loc, target, scalar);
      if (sourceFloat.getWidth() > targetFloat.getWidth())
        return arith::TruncFOp::create(b, loc, target, scalar);
      // f16 <-> bf16: through f32.
      Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), scalar);
      return arith::TruncFOp::create(b, loc, target, wide);
    }
    if (sourceSigned)
      return arith::SIToFPOp::create(b, loc, target, scalar);
    return arith::UIToFPOp::create(b, loc, target, scalar);
  }
  unsigned targetWidth = target.getIntOrFloatBitWidth();
  if (isa<FloatType>(source)) {
    if (isUnsignedDType(to))
      return arith::FPToUIOp::create(b, loc, target, scalar);
    return arith::FPToSIOp::create(b, loc, target, scalar);
  }
  unsigned sourceWidth = source.getIntOrFloatBitWidth();
  if (sourceWidth < targetWidth) {
    if (sourceSigned)
      return arith::ExtSIOp::create(b, loc, target, scalar);
    return arith::ExtUIOp::create(b, loc, target, scalar);
  }
  if (sourceWidth > targetWidth)
    return arith::TruncIOp::create(b, loc, target, scalar);
  return scalar;
}

Value onnx_import::castTensor(NodeContext &ctx, Value tensor, OnnxDType from,
                              OnnxDType to) {
  if (from == to)
    return tensor;
  Type target = getElementType(ctx.getContext(), to);
  FailureOr<Value> result = buildElementwise(
      ctx, tensor, target, [&](OpBuilder &b, Location loc, ValueRange args) {
        return castScalar(b, loc, args[0], from, to);
      });
  assert(succeeded(result) && "a single operand always broadcasts");
  return *result;
}

SmallVector<int64_t> onnx_import::getIntValues(DenseElementsAttr attr) {
  SmallVector<int64_t> values;
  for (const APInt &value : attr.getValues<APInt>())
    values.push_back(value.getBitWidth() == 1 ? int64_t(value.getZExtValue())
                                              : value.getSExtValue());
  return values;
}

FailureOr<int64_t> onnx_import::normalizeAxis(NodeContext &ctx, int64_t axis,
                                              int64_t rank) {
  if (axis < -rank || axis >= rank) {
    ctx.emitError() << "axis " << axis << " is out of range for rank " << rank;
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}
