//===- Reduction.cpp - ONNX reduction converters --------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Reduce*, ArgMax/ArgMin, Softmax/LogSoftmax/Hardmax and the losses built on
// them (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss).
//
// Every reduction is one `linalg.generic` (buildReduction) whose reduced loops
// accumulate into a `linalg.fill` of the operation's identity, so that the
// reduction of an empty set is that identity: 0 for sums, 1 for products,
// -inf/+inf (or the integer type's extremes) for max/min. keepdims re-inserts
// the reduced axes as unit dimensions with `tensor.expand_shape`. Reductions
// of small integer constants (shape computations) fold.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

/// The largest (`max`) or smallest value of an element type: +-inf for
/// floats, the integer extremes (by signedness) otherwise.
Value createExtreme(NodeContext &ctx, Type type, OnnxDType dtype, bool max) {
  if (isa<FloatType>(type))
    return ctx.createScalar(type, max ? INFINITY : -INFINITY);
  unsigned width = type.getIntOrFloatBitWidth();
  APInt value;
  if (isUnsignedDType(dtype))
    value = max ? APInt::getMaxValue(width) : APInt::getMinValue(width);
  else
    value =
        max ? APInt::getSignedMaxValue(width) : APInt::getSignedMinValue(width);
  OpBuilder &b = ctx.getBuilder();
  return arith::ConstantOp::create(b, ctx.getLoc(),
                                   b.getIntegerAttr(type, value));
}

Value createAdd(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::AddFOp::create(b, loc, lhs, rhs);
  return arith::AddIOp::create(b, loc, lhs, rhs);
}

Value createMul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::MulFOp::create(b, loc, lhs, rhs);
  return arith::MulIOp::create(b, loc, lhs, rhs);
}

/// max/min; NaN-propagating for floats (numpy's maximum/minimum).
Value createMaxOrMin(OpBuilder &b, Location loc, Value lhs, Value rhs,
                     OnnxDType dtype, bool max) {
  if (isa<FloatType>(lhs.getType())) {
    if (max)
      return arith::MaximumFOp::create(b, loc, lhs, rhs);
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  }
  if (isUnsignedDType(dtype)) {
    if (max)
      return arith::MaxUIOp::create(b, loc, lhs, rhs);
    return arith::MinUIOp::create(b, loc, lhs, rhs);
  }
  if (max)
    return arith::MaxSIOp::create(b, loc, lhs, rhs);
  return arith::MinSIOp::create(b, loc, lhs, rhs);
}

/// The shift that makes exp(x - shift) safe: the maximum, or 0 when the
/// maximum is infinite (all -inf or empty: exp(-inf - 0) = 0 instead of the
/// NaN of -inf - -inf; +inf: the sum is +inf either way).
Value createStableShift(OpBuilder &b, Location loc, Value max) {
  Type type = max.getType();
  Value inf = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, INFINITY));
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0));
  Value magnitude = math::AbsFOp::create(b, loc, max);
  Value infinite =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, magnitude, inf);
  return arith::SelectOp::create(b, loc, infinite, zero, max);
}

/// The row-major linear index of the current iteration over `axes` of
/// `shape` (an index value).
Value createLinearIndex(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                        ArrayRef<int64_t> axes) {
  Value linear;
  for (int64_t axis : axes) {
    Value index = linalg::IndexOp::create(b, loc, axis);
    if (!linear) {
      linear = index;
      continue;
    }
    Value size = arith::ConstantIndexOp::create(b, loc, shape[axis]);
    linear = arith::MulIOp::create(b, loc, linear, size);
    linear = arith::AddIOp::create(b, loc, linear, index);
  }
  if (!linear)
    linear = arith::ConstantIndexOp::create(b, loc, 0);
  return linear;
}

/// An elementwise op over tensors of one shape.
Value mapSameShape(NodeContext &ctx, ValueRange inputs, Type resultElementType,
                   ScalarBodyFn body) {
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(inputs.front().getType()).getShape();
  SmallVector<AffineMap> maps(
      inputs.size(),
      AffineMap::getMultiDimIdentityMap(shape.size(), ctx.getContext()));
  return buildParallel(ctx, shape, inputs, maps, resultElementType, body);
}

//===----------------------------------------------------------------------===//
// Reduce*
//===----------------------------------------------------------------------===//

enum class ReduceKind {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  LogSum,
  LogSumExp,
  SumSquare
};

/// Reduces `input` (of ONNX type `dtype`, float or integer) over `axes` to
/// the shape without them.
Value buildReduce(NodeContext &ctx, ReduceKind kind, Value input,
                  OnnxDType dtype, ArrayRef<int64_t> axes) {
  // Integer L2/LogSum/LogSumExp: computed in double and truncated back, as
  // numpy's float result cast to the input type.
  if (isIntegerDType(dtype) &&
      (kind == ReduceKind::L2 || kind == ReduceKind::LogSum ||
       kind == ReduceKind::LogSumExp)) {
    Value wide = castTensor(ctx, input, dtype, onnx::TensorProto::DOUBLE);
    Value result =
        buildReduce(ctx, kind, wide, onnx::TensorProto::DOUBLE, axes);
    return castTensor(ctx, result, onnx::TensorProto::DOUBLE, dtype);
  }
  auto type = cast<RankedTensorType>(input.getType());
  Type element = type.getElementType();
  bool isFloat = isa<FloatType>(element);
  Value zero = ctx.createScalar(element, 0);

  switch (kind) {
  case ReduceKind::Max:
  case ReduceKind::Min: {
    bool max = kind == ReduceKind::Max;
    return reduceOverAxes(
        ctx, input, axes, createExtreme(ctx, element, dtype, !max), {},
        [&](OpBuilder &b, Location loc, Value x, ValueRange, Value acc) {
          return createMaxOrMin(b, loc, acc, x, dtype, max);
        });
  }
  case ReduceKind::Prod:
    return reduceOverAxes(ctx, input, axes, ctx.createScalar(element, 1), {},
                          [&](OpBuilder &b, Location loc, Value x, ValueRange,
                              Value acc) { return createMul(b, loc, acc, x); });
  case ReduceKind::LogSumExp: {
    // log(sum(exp(x - m))) + m with m the maximum, so that exp never
    // overflows.
    Value max = buildReduce(ctx, ReduceKind::Max, input, dtype, axes);
    Value sum =
        reduceOverAxes(ctx, input, axes, zero, max,
                       [&](OpBuilder &b, Location loc, Value x,
                           ValueRange reduced, Value acc) -> Value {
                         Value shift = createStableShift(b, loc, reduced[0]);
                         Value shifted =
                             arith::SubFOp::create(b, loc, x, shift);
                         Value exp = math::ExpOp::create(b, loc, shifted);
                         return arith::AddFOp::create(b, loc, acc, exp);
                       });
    return mapSameShape(ctx, {sum, max}, element,
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          Value log = math::LogOp::create(b, loc, args[0]);
                          Value shift = createStableShift(b, loc, args[1]);
                          return arith::AddFOp::create(b, loc, log, shift);
                        });
  }
  default:
    break;
  }

  // Sums of a function of x.
  Value sum = reduceOverAxes(
      ctx, input, axes, zero, {},
      [&](OpBuilder &b, Location loc, Value x, ValueRange, Value acc) {
        if (kind == ReduceKind::L1) {
          if (isFloat)
            x = math::AbsFOp::create(b, loc, x);
          else if (!isUnsignedDType(dtype))
            x = math::AbsIOp::create(b, loc, x);
        } else if (kind == ReduceKind::L2 || kind == ReduceKind::SumSquare) {
          x = createMul(b, loc, x, x);
        }
        return createAdd(b, loc, acc, x);
      });
  switch (kind) {
  case ReduceKind::Mean: {
    int64_t count = 1;
    for (int64_t axis : axes)
      count *= type.getDimSize(axis);
    // An empty integer mean stays 0 rather than dividing by zero (a float
    // one is 0/0 = NaN).
    if (!isFloat && count == 0)
      return sum;
    return mapSameShape(
        ctx, sum, element,
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          if (isFloat) {
            Value divisor = arith::ConstantOp::create(
                b, loc, b.getFloatAttr(element, double(count)));
            return arith::DivFOp::create(b, loc, args[0], divisor);
          }
          Value divisor = arith::ConstantOp::create(
              b, loc, b.getIntegerAttr(element, count));
          if (isUnsignedDType(dtype))
            return arith::DivUIOp::create(b, loc, args[0], divisor);
          return arith::DivSIOp::create(b, loc, args[0], divisor);
        });
  }
  case ReduceKind::L2:
    return mapSameShape(ctx, sum, element,
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          return math::SqrtOp::create(b, loc, args[0]);
                        });
  case ReduceKind::LogSum:
    return mapSameShape(ctx, sum, element,
                        [&](OpBuilder &b, Location loc, ValueRange args) {
                          return math::LogOp::create(b, loc, args[0]);
                        });
  default:
    return sum;
  }
}

/// Folds Sum/Prod/Max/Min of an integer constant (shape computations):
/// the result in the reduced shape (`resultType`), wrapping like the
/// generated code.
DenseElementsAttr foldIntegerReduce(ReduceKind kind, DenseElementsAttr input,
                                    OnnxDType dtype, ArrayRef<int64_t> axes,
                                    RankedTensorType resultType) {
  auto inputType = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> shape = inputType.getShape();
  unsigned width = inputType.getElementTypeBitWidth();
  bool isUnsigned = isUnsignedDType(dtype);
  APInt init;
  switch (kind) {
  case ReduceKind::Sum:
    init = APInt(width, 0);
    break;
  case ReduceKind::Prod:
    init = APInt(width, 1);
    break;
  case ReduceKind::Max:
    init = isUnsigned ? APInt::getMinValue(width)
                      : APInt::getSignedMinValue(width);
    break;
  case ReduceKind::Min:
    init = isUnsigned ? APInt::getMaxValue(width)
                      : APInt::getSignedMaxValue(width);
    break;
  default:
    return nullptr;
  }
  SmallVector<APInt> result(resultType.getNumElements(), init);
  SmallVector<int64_t> index(shape.size(), 0);
  for (const APInt &value : input.getValues<APInt>()) {
    // The output position: the row-major index over the kept dimensions.
    int64_t position = 0;
    for (auto [dim, size] : llvm::enumerate(shape))
      if (!llvm::is_contained(axes, int64_t(dim)))
        position = position * size + index[dim];
    APInt &acc = result[position];
    switch (kind) {
    case ReduceKind::Sum:
      acc += value;
      break;
    case ReduceKind::Prod:
      acc *= value;
      break;
    case ReduceKind::Max:
      if (isUnsigned ? value.ugt(acc) : value.sgt(acc))
        acc = value;
      break;
    default:
      if (isUnsigned ? value.ult(acc) : value.slt(acc))
        acc = value;
      break;
    }
    // Next row-major index.
    for (int64_t dim = int64_t(shape.size()) - 1; dim >= 0; --dim) {
      if (++index[dim] < shape[dim])
        break;
      index[dim] = 0;
    }
  }
  return DenseElementsAttr::get(resultType, result);
}

LogicalResult convertReduce(NodeContext &ctx, ReduceKind kind) {
  OnnxDType dtype = ctx.getInputDType(0);
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported(Twine("element type ") + getOnnxDTypeName(dtype));
  int64_t rank = ctx.getInputRank(0);
  SmallVector<int64_t> axes;
  if (kind == ReduceKind::Sum && ctx.getSinceVersion() >= 13) {
    // ReduceSum-13: the axes are an optional input; none (or an empty list)
    // means all axes, or no reduction at all with noop_with_empty_axes.
    if (ctx.hasInput(1)) {
      FailureOr<SmallVector<int64_t>> values =
          ctx.requireConstantInts(1, "the reduction axes");
      if (failed(values))
        return failure();
      axes = *values;
    }
    if (axes.empty() && ctx.getAttrInt("noop_with_empty_axes", 0) != 0) {
      ctx.setOutput(0, ctx.getImportedInput(0));
      return success();
    }
  } else {
    axes = ctx.getAttrInts("axes");
  }
  // No axes: all of them.
  if (axes.empty())
    for (int64_t dim = 0; dim < rank; ++dim)
      axes.push_back(dim);
  FailureOr<SmallVector<int64_t>> normalized = normalizeAxes(ctx, axes, rank);
  if (failed(normalized))
    return failure();
  bool keepDims = ctx.getAttrInt("keepdims", 1) != 0;
  ArrayRef<int64_t> shape = ctx.getInputShape(0);

  if (DenseElementsAttr constant = ctx.getConstantInput(0);
      constant && isIntegerDType(dtype)) {
    auto resultType =
        RankedTensorType::get(getReducedShape(shape, *normalized, keepDims),
                              ctx.getInputType(0).getElementType());
    if (DenseElementsAttr folded =
            foldIntegerReduce(kind, constant, dtype, *normalized, resultType)) {
      ctx.setConstantOutput(0, folded, dtype);
      return success();
    }
  }

  Value result = buildReduce(ctx, kind, ctx.getInput(0), dtype, *normalized);
  if (keepDims)
    result = expandReducedDims(ctx, result, shape, *normalized);
  ctx.setOutput(0, result, dtype);
  return success();
}

//===----------------------------------------------------------------------===//
// ArgMax, ArgMin
//===----------------------------------------------------------------------===//

/// The int64 index of the maximum (`isMax`) or minimum of `input` over
/// `axes`, row-major over those axes, in the shape without them. Ties go to
/// the first index, or the last with `selectLast`; NaN counts as the extreme
/// (numpy's argmax/argmin return the first NaN). The comparison breaks ties
/// on the index itself, so the result does not depend on the order in which
/// the reduction visits the elements.
Value buildArgReduction(NodeContext &ctx, Value input, OnnxDType dtype,
                        ArrayRef<int64_t> axes, bool isMax, bool selectLast) {
  auto type = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> shape = type.getShape();
  Type element = type.getElementType();
  bool isFloat = isa<FloatType>(element);
  bool isUnsigned = isUnsignedDType(dtype);
  OpBuilder &builder = ctx.getBuilder();
  Type i64 = builder.getI64Type();
  SmallVector<Value> inits{createExtreme(ctx, element, dtype, !isMax),
                           ctx.createScalar(i64, 0)};
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(shape.size(), ctx.getContext());
  SmallVector<Value> results = buildReduction(
      ctx, shape, axes, input, identity, inits,
      [&](OpBuilder &b, Location loc, ValueRange args,
          ValueRange accs) -> SmallVector<Value> {
        Value x = args[0], best = accs[0], bestIndex = accs[1];
        Value index = arith::IndexCastOp::create(
            b, loc, i64, createLinearIndex(b, loc, shape, axes));
        Value tieWins = arith::CmpIOp::create(
            b, loc,
            selectLast ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::slt,
            index, bestIndex);
        Value better;
        if (isFloat) {
          auto cmp = [&](arith::CmpFPredicate predicate, Value lhs,
                         Value rhs) -> Value {
            return arith::CmpFOp::create(b, loc, predicate, lhs, rhs);
          };
          Value xNaN = cmp(arith::CmpFPredicate::UNO, x, x);
          Value bestNaN = cmp(arith::CmpFPredicate::UNO, best, best);
          // Ordered comparisons are false against NaN.
          Value strictly =
              cmp(isMax ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
                  x, best);
          Value equal = cmp(arith::CmpFPredicate::OEQ, x, best);
          Value bothNaN = arith::AndIOp::create(b, loc, xNaN, bestNaN);
          equal = arith::OrIOp::create(b, loc, equal, bothNaN);
          Value bestNotNaN = arith::XOrIOp::create(
              b, loc, bestNaN,
              arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
          Value newNaN = arith::AndIOp::create(b, loc, xNaN, bestNotNaN);
          better = arith::OrIOp::create(b, loc, strictly, newNaN);
          better = arith::OrIOp::create(
              b, loc, better, arith::AndIOp::create(b, loc, equal, tieWins));
        } else {
          arith::CmpIPredicate predicate =
              isMax ? (isUnsigned ? arith::CmpIPredicate::ugt
                                  : arith::CmpIPredicate::sgt)
                    : (isUnsigned ? arith::CmpIPredicate::ult
                                  : arith::CmpIPredicate::slt);
          Value strictly = arith::CmpIOp::create(b, loc, predicate, x, best);
          Value equal =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, best);
          better = arith::OrIOp::create(
              b, loc, strictly, arith::AndIOp::create(b, loc, equal, tieWins));
        }
        return {arith::SelectOp::create(b, loc, better, x, best),
                arith::SelectOp::create(b, loc, better, index, bestIndex)};
      });
  return results[1];
}

LogicalResult convertArgMaxMin(NodeContext &ctx, bool isMax) {
  OnnxDType dtype = ctx.getInputDType(0);
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported(Twine("element type ") + getOnnxDTypeName(dtype));
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getAttrInt("axis", 0), shape.size());
  if (failed(axis))
    return failure();
  if (shape[*axis] == 0)
    return ctx.emitError() << "cannot take the index of the "
                           << (isMax ? "maximum" : "minimum")
                           << " over the empty axis " << *axis;
  bool selectLast = ctx.getAttrInt("select_last_index", 0) != 0;
  Value result =
      buildArgReduction(ctx, ctx.getInput(0), dtype, *axis, isMax, selectLast);
  if (ctx.getAttrInt("keepdims", 1) != 0)
    result = expandReducedDims(ctx, result, shape, *axis);
  ctx.setOutput(0, result, onnx::TensorProto::INT64);
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax, LogSoftmax, Hardmax
//===----------------------------------------------------------------------===//

enum class SoftmaxKind { Softmax, LogSoftmax, Hardmax };

/// The softmax-family op of float `input` over `axes` (together, as one
/// flattened axis). Softmax and LogSoftmax subtract the maximum first, so
/// exp never overflows.
Value buildSoftmax(NodeContext &ctx, SoftmaxKind kind, Value input,
                   OnnxDType dtype, ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> shape = type.getShape();
  Type element = type.getElementType();
  if (kind == SoftmaxKind::Hardmax) {
    // One at the first maximum, 0 elsewhere.
    Value argmax = buildArgReduction(ctx, input, dtype, axes, /*isMax=*/true,
                                     /*selectLast=*/false);
    return mapWithReduced(
        ctx, input, argmax, axes, element,
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value index = arith::IndexCastOp::create(
              b, loc, b.getI64Type(), createLinearIndex(b, loc, shape, axes));
          Value hit = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            index, args[1]);
          Value one =
              arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 1));
          Value zero =
              arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0));
          return arith::SelectOp::create(b, loc, hit, one, zero);
        });
  }
  Value max = buildReduce(ctx, ReduceKind::Max, input, dtype, axes);
  Value sum =
      reduceOverAxes(ctx, input, axes, ctx.createScalar(element, 0), max,
                     [&](OpBuilder &b, Location loc, Value x,
                         ValueRange reduced, Value acc) -> Value {
                       Value shifted =
                           arith::SubFOp::create(b, loc, x, reduced[0]);
                       Value exp = math::ExpOp::create(b, loc, shifted);
                       return arith::AddFOp::create(b, loc, acc, exp);
                     });
  return mapWithReduced(
      ctx, input, {max, sum}, axes, element,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value shifted = arith::SubFOp::create(b, loc, args[0], args[1]);
        if (kind == SoftmaxKind::LogSoftmax) {
          Value log = math::LogOp::create(b, loc, args[2]);
          return arith::SubFOp::create(b, loc, shifted, log);
        }
        Value exp = math::ExpOp::create(b, loc, shifted);
        return arith::DivFOp::create(b, loc, exp, args[2]);
      });
}

LogicalResult convertSoftmax(NodeContext &ctx, SoftmaxKind kind) {
  OnnxDType dtype = ctx.getInputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported(Twine("element type ") + getOnnxDTypeName(dtype));
  int64_t rank = ctx.getInputRank(0);
  // The schema's default: 1 before version 13, -1 from 13.
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getAttrInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  // Before version 13 the input is coerced to 2-D at `axis`: the op runs
  // over all the axes from `axis` on, flattened. From 13 it runs over one.
  SmallVector<int64_t> axes{*axis};
  if (ctx.getSinceVersion() < 13)
    for (int64_t dim = *axis + 1; dim < rank; ++dim)
      axes.push_back(dim);
  ctx.setOutput(0, buildSoftmax(ctx, kind, ctx.getInput(0), dtype, axes),
                dtype);
  return success();
}

//===----------------------------------------------------------------------===//
// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
//===----------------------------------------------------------------------===//

/// The negative log-likelihood loss of `logProb` (N, C, d1, ..., dk) at the
/// class indices `target` (N, d1, ..., dk) of input `targetIndex`, weighted
/// by input `weightIndex` (C) when present; samples whose target is the
/// `ignore_index` attribute count as weight 0. Reduced as the `reduction`
/// attribute says: none, sum, or mean = sum(loss) / sum(sample weights).
FailureOr<Value> buildNLLLoss(NodeContext &ctx, Value logProb,
                              unsigned targetIndex, unsigned weightIndex) {
  auto type = cast<RankedTensorType>(logProb.getType());
  ArrayRef<int64_t> shape = type.getShape();
  Type element = type.getElementType();
  int64_t rank = shape.size();
  std::string reduction = ctx.getAttrString("reduction", "mean");
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return ctx.unsupported("reduction '" + reduction + "'");
  if (rank < 2)
    return ctx.emitError() << "the input must have rank 2 or more";
  OnnxDType targetDType = ctx.getInputDType(targetIndex);
  if (targetDType != onnx::TensorProto::INT32 &&
      targetDType != onnx::TensorProto::INT64)
    return ctx.emitError() << "the target must be int32 or int64, not "
                           << getOnnxDTypeName(targetDType);
  SmallVector<int64_t> sampleShape{shape[0]};
  llvm::append_range(sampleShape, shape.drop_front(2));
  ArrayRef<int64_t> targetShape = ctx.getInputShape(targetIndex);
  if (targetShape != ArrayRef<int64_t>(sampleShape))
    return ctx.emitError() << "the target's shape ["
                           << llvm::make_range(targetShape.begin(),
                                               targetShape.end())
                           << "] does not match the input's ["
                           << llvm::make_range(shape.begin(), shape.end())
                           << "] without its class dimension";
  bool hasWeight = ctx.hasInput(weightIndex);
  if (hasWeight && ctx.getInputShape(weightIndex) != shape.slice(1, 1))
    return ctx.emitError() << "the weight must have shape [" << shape[1] << "]";
  std::optional<int64_t> ignoreIndex;
  if (const onnx::AttributeProto *attr = ctx.getAttr("ignore_index"))
    ignoreIndex = attr->i();

  // One parallel generic over the samples (N, d...) gathers
  // x = logProb[n, t, d...] and w = weight[t] at the sample's target t: the
  // loss is -x * w and the sample's weight w, both 0 when t is ignored (or
  // outside [0, C), where the index is clamped so the gather stays in
  // bounds).
  Value target = ctx.getInput(targetIndex);
  Value weight = hasWeight ? ctx.getInput(weightIndex) : Value();
  if (hasWeight && ctx.getInputDType(weightIndex) != ctx.getInputDType(0))
    weight = castTensor(ctx, weight, ctx.getInputDType(weightIndex),
                        ctx.getInputDType(0));
  Value zero = ctx.createScalar(element, 0);
  int64_t classes = shape[1];
  SmallVector<Value> perSample = buildReduction(
      ctx, sampleShape, {}, target,
      AffineMap::getMultiDimIdentityMap(sampleShape.size(), ctx.getContext()),
      {zero, zero},
      [&](OpBuilder &b, Location loc, ValueRange args,
          ValueRange) -> SmallVector<Value> {
        Value t = args[0];
        Type targetType = t.getType();
        auto targetConstant = [&](int64_t value) -> Value {
          return arith::ConstantOp::create(b, loc,
                                           b.getIntegerAttr(targetType, value));
        };
        Value valid = arith::AndIOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, t,
                                  targetConstant(0)),
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, t,
                                  targetConstant(classes)));
        if (ignoreIndex)
          valid = arith::AndIOp::create(
              b, loc, valid,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, t,
                                    targetConstant(*ignoreIndex)));
        Value safe =
            arith::SelectOp::create(b, loc, valid, t, targetConstant(0));
        Value classIndex =
            arith::IndexCastOp::create(b, loc, b.getIndexType(), safe);
        SmallVector<Value> indices;
        for (int64_t dim = 0, e = sampleShape.size(); dim < e; ++dim)
          indices.push_back(linalg::IndexOp::create(b, loc, dim));
        indices.insert(indices.begin() + 1, classIndex);
        Value x = tensor::ExtractOp::create(b, loc, logProb, indices);
        Value w =
            hasWeight
                ? tensor::ExtractOp::create(b, loc, weight, classIndex)
                      .getResult()
                : arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 1))
                      .getResult();
        Value none =
            arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0));
        Value negated = arith::NegFOp::create(b, loc, x);
        Value loss = arith::MulFOp::create(b, loc, negated, w);
        return {arith::SelectOp::create(b, loc, valid, loss, none),
                arith::SelectOp::create(b, loc, valid, w, none)};
      });
  if (reduction == "none")
    return perSample[0];

  // Sum both over every sample in one generic.
  SmallVector<int64_t> all(sampleShape.size());
  std::iota(all.begin(), all.end(), 0);
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(sampleShape.size(), ctx.getContext());
  SmallVector<Value> totals = buildReduction(
      ctx, sampleShape, all, perSample, {identity, identity}, {zero, zero},
      [&](OpBuilder &b, Location loc, ValueRange args,
          ValueRange accs) -> SmallVector<Value> {
        return {arith::AddFOp::create(b, loc, accs[0], args[0]),
                arith::AddFOp::create(b, loc, accs[1], args[1])};
      });
  if (reduction == "sum")
    return totals[0];
  return mapSameShape(ctx, totals, element,
                      [&](OpBuilder &b, Location loc, ValueRange args) {
                        return arith::DivFOp::create(b, loc, args[0], args[1]);
                      });
}

LogicalResult convertNLLLoss(NodeContext &ctx) {
  OnnxDType dtype = ctx.getInputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported(Twine("element type ") + getOnnxDTypeName(dtype));
  FailureOr<Value> loss = buildNLLLoss(ctx, ctx.getInput(0), 1, 2);
  if (failed(loss))
    return failure();
  ctx.setOutput(0, *loss, dtype);
  return success();
}

/// SoftmaxCrossEntropyLoss: the NLL loss of LogSoftmax(scores) over the
/// class axis 1; the optional second output is that log-probability.
LogicalResult convertSoftmaxCrossEntropyLoss(NodeContext &ctx) {
  OnnxDType dtype = ctx.getInputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported(Twine("element type ") + getOnnxDTypeName(dtype));
  if (ctx.getInputRank(0) < 2)
    return ctx.emitError() << "the scores must have rank 2 or more";
  Value logProb = buildSoftmax(ctx, SoftmaxKind::LogSoftmax, ctx.getInput(0),
                               dtype, int64_t(1));
  FailureOr<Value> loss = buildNLLLoss(ctx, logProb, 1, 2);
  if (failed(loss))
    return failure();
  ctx.setOutput(0, *loss, dtype);
  ctx.setOutput(1, logProb, dtype);
  return success();
}

} // namespace

void onnx_import::registerReductionConverters(ConverterRegistry &registry) {
  auto reduce = [&](StringRef op, ArrayRef<int> versions, ReduceKind kind) {
    registry.add(op, versions,
                 [kind](NodeContext &ctx) { return convertReduce(ctx, kind); });
  };
  reduce("ReduceSum", {1, 11, 13}, ReduceKind::Sum);
  reduce("ReduceMean", {1, 11, 13}, ReduceKind::Mean);
  reduce("ReduceMax", {1, 11, 12, 13}, ReduceKind::Max);
  reduce("ReduceMin", {1, 11, 12, 13}, ReduceKind::Min);
  reduce("ReduceProd", {1, 11, 13}, ReduceKind::Prod);
  reduce("ReduceL1", {1, 11, 13}, ReduceKind::L1);
  reduce("ReduceL2", {1, 11, 13}, ReduceKind::L2);
  reduce("ReduceLogSum", {1, 11, 13}, ReduceKind::LogSum);
  reduce("ReduceLogSumExp", {1, 11, 13}, ReduceKind::LogSumExp);
  reduce("ReduceSumSquare", {1, 11, 13}, ReduceKind::SumSquare);

  registry.add("ArgMax", {1, 11, 12, 13},
               [](NodeContext &ctx) { return convertArgMaxMin(ctx, true); });
  registry.add("ArgMin", {1, 11, 12, 13},
               [](NodeContext &ctx) { return convertArgMaxMin(ctx, false); });

  auto softmax = [&](StringRef op, SoftmaxKind kind) {
    registry.add(op, {1, 11, 13}, [kind](NodeContext &ctx) {
      return convertSoftmax(ctx, kind);
    });
  };
  softmax("Softmax", SoftmaxKind::Softmax);
  softmax("LogSoftmax", SoftmaxKind::LogSoftmax);
  softmax("Hardmax", SoftmaxKind::Hardmax);

  registry.add("NegativeLogLikelihoodLoss", {12, 13}, convertNLLLoss);
  registry.add("SoftmaxCrossEntropyLoss", {12, 13},
               convertSoftmaxCrossEntropyLoss);
}
