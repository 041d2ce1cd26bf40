//===- Elementwise.cpp - ONNX elementwise converters ----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Elementwise ops become one `linalg.generic` each over the numpy broadcast
// of their operands; the placement pass fuses them into their neighbours.
// Every converter here describes its op by the scalar body only and goes
// through `convertElementwiseNode`, which folds the op when all its operands
// are compile-time constants (shape computations) and handles the legacy
// `broadcast`/`axis` attributes of opset < 7.
//
// Unary math is computed in f32 for f16/bf16 operands (the libm-backed math
// ops have no half-precision forms; numpy also evaluates halves in f32).
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cfloat>
#include <cmath>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

/// A scalar constant of a float or integer type. For an integer type the
/// value is truncated toward zero and saturated to the i64 range (a NaN is
/// 0), never converted out of range.
Value constant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  int64_t integer = 0;
  if (value >= 0x1p63)
    integer = INT64_MAX;
  else if (value < -0x1p63)
    integer = INT64_MIN;
  else if (!std::isnan(value))
    integer = static_cast<int64_t>(value);
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, integer));
}

Value add(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::AddFOp::create(b, loc, lhs, rhs);
  return arith::AddIOp::create(b, loc, lhs, rhs);
}

Value sub(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::SubFOp::create(b, loc, lhs, rhs);
  return arith::SubIOp::create(b, loc, lhs, rhs);
}

Value mul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::MulFOp::create(b, loc, lhs, rhs);
  return arith::MulIOp::create(b, loc, lhs, rhs);
}

/// Division: float, or integer truncating toward zero.
Value div(OpBuilder &b, Location loc, Value lhs, Value rhs, OnnxDType dtype) {
  if (isFloatDType(dtype))
    return arith::DivFOp::create(b, loc, lhs, rhs);
  if (isUnsignedDType(dtype))
    return arith::DivUIOp::create(b, loc, lhs, rhs);
  return arith::DivSIOp::create(b, loc, lhs, rhs);
}

/// NaN-propagating maximum / minimum for floats (numpy's maximum/minimum).
Value max(OpBuilder &b, Location loc, Value lhs, Value rhs, OnnxDType dtype) {
  if (isFloatDType(dtype))
    return arith::MaximumFOp::create(b, loc, lhs, rhs);
  if (isUnsignedDType(dtype) || isBoolDType(dtype))
    return arith::MaxUIOp::create(b, loc, lhs, rhs);
  return arith::MaxSIOp::create(b, loc, lhs, rhs);
}

Value min(OpBuilder &b, Location loc, Value lhs, Value rhs, OnnxDType dtype) {
  if (isFloatDType(dtype))
    return arith::MinimumFOp::create(b, loc, lhs, rhs);
  if (isUnsignedDType(dtype) || isBoolDType(dtype))
    return arith::MinUIOp::create(b, loc, lhs, rhs);
  return arith::MinSIOp::create(b, loc, lhs, rhs);
}

/// `lhs < rhs` (ordered for floats: false with a NaN).
Value lessThan(OpBuilder &b, Location loc, Value lhs, Value rhs,
               OnnxDType dtype) {
  if (isFloatDType(dtype))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, lhs, rhs);
  return arith::CmpIOp::create(b, loc,
                               isSignedDType(dtype) ? arith::CmpIPredicate::slt
                                                    : arith::CmpIPredicate::ult,
                               lhs, rhs);
}

Value select(OpBuilder &b, Location loc, Value condition, Value trueValue,
             Value falseValue) {
  return arith::SelectOp::create(b, loc, condition, trueValue, falseValue);
}

/// `fn(x)` for a float scalar; f16 and bf16 are computed in f32.
template <typename Fn>
Value computeInF32IfHalf(OpBuilder &b, Location loc, Value x, Fn fn) {
  Type type = x.getType();
  if (type.getIntOrFloatBitWidth() >= 32)
    return fn(x);
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
  return arith::TruncFOp::create(b, loc, type, fn(wide));
}

/// The element type classes a converter accepts.
enum TypeClass : unsigned {
  kFloat = 1,
  kSigned = 2,
  kUnsigned = 4,
  kBool = 8,
  kInteger = kSigned | kUnsigned,
  kNumeric = kFloat | kInteger,
};

bool isInClass(OnnxDType dtype, unsigned classes) {
  return ((classes & kFloat) && isFloatDType(dtype)) ||
         ((classes & kSigned) && isSignedDType(dtype)) ||
         ((classes & kUnsigned) && isUnsignedDType(dtype)) ||
         ((classes & kBool) && isBoolDType(dtype));
}

LogicalResult checkClass(NodeContext &ctx, OnnxDType dtype, unsigned classes) {
  if (isInClass(dtype, classes))
    return success();
  return ctx.unsupported(Twine("element type ") + getOnnxDTypeName(dtype));
}

//===----------------------------------------------------------------------===//
// Unary ops
//===----------------------------------------------------------------------===//

/// The scalar function of a unary op: the node (for attributes), the operand
/// and its ONNX type.
using UnaryFn = Value (*)(NodeContext &ctx, OpBuilder &b, Location loc, Value x,
                          OnnxDType dtype);

/// A unary op accepting `classes`; integers outside `classes` but in
/// `viaDouble` are computed in f64 and converted back (truncating), as the
/// ONNX reference does for Erf and Shrink on integers.
ConvertFn unary(UnaryFn fn, unsigned classes, unsigned viaDouble = 0) {
  return [=](NodeContext &ctx) -> LogicalResult {
    OnnxDType dtype = ctx.getInputDType(0);
    if (failed(checkClass(ctx, dtype, classes | viaDouble)))
      return failure();
    return convertElementwiseNode(
        ctx, {0}, dtype, [&](OpBuilder &b, Location loc, ValueRange args) {
          Value x = args[0];
          if (isFloatDType(dtype))
            return computeInF32IfHalf(b, loc, x, [&](Value wide) {
              return fn(ctx, b, loc, wide,
                        wide.getType().isF64() ? onnx::TensorProto::DOUBLE
                                               : onnx::TensorProto::FLOAT);
            });
          if (isInClass(dtype, classes))
            return fn(ctx, b, loc, x, dtype);
          constexpr OnnxDType f64 = onnx::TensorProto::DOUBLE;
          Value wide = castScalar(b, loc, x, dtype, f64);
          return castScalar(b, loc, fn(ctx, b, loc, wide, f64), f64, dtype);
        });
  };
}

/// A math dialect op of one operand.
template <typename OpTy>
Value mathOp(NodeContext &, OpBuilder &b, Location loc, Value x, OnnxDType) {
  return OpTy::create(b, loc, x);
}

Value absValue(NodeContext &, OpBuilder &b, Location loc, Value x,
               OnnxDType dtype) {
  if (isFloatDType(dtype))
    return math::AbsFOp::create(b, loc, x);
  if (isUnsignedDType(dtype))
    return x;
  return math::AbsIOp::create(b, loc, x);
}

Value negate(NodeContext &, OpBuilder &b, Location loc, Value x,
             OnnxDType dtype) {
  if (isFloatDType(dtype))
    return arith::NegFOp::create(b, loc, x);
  return arith::SubIOp::create(b, loc, constant(b, loc, x.getType(), 0), x);
}

Value reciprocal(NodeContext &, OpBuilder &b, Location loc, Value x,
                 OnnxDType) {
  return arith::DivFOp::create(b, loc, constant(b, loc, x.getType(), 1), x);
}

/// -1, 0 or 1; NaN stays NaN.
Value sign(NodeContext &, OpBuilder &b, Location loc, Value x,
           OnnxDType dtype) {
  Type type = x.getType();
  Value zero = constant(b, loc, type, 0);
  Value one = constant(b, loc, type, 1);
  Value positive = lessThan(b, loc, zero, x, dtype);
  if (isUnsignedDType(dtype))
    return select(b, loc, positive, one, zero);
  Value negative = lessThan(b, loc, x, zero, dtype);
  Value rest = isFloatDType(dtype) ? x : zero;
  return select(b, loc, positive, one,
                select(b, loc, negative, constant(b, loc, type, -1), rest));
}

Value relu(NodeContext &, OpBuilder &b, Location loc, Value x,
           OnnxDType dtype) {
  return max(b, loc, x, constant(b, loc, x.getType(), 0), dtype);
}

} // namespace

/// 1 / (1 + exp(-x)).
Value onnx_import::sigmoidOf(OpBuilder &b, Location loc, Value x) {
  Type type = x.getType();
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(
      b, loc, constant(b, loc, type, 1),
      arith::AddFOp::create(b, loc, constant(b, loc, type, 1), e));
}

/// log(1 + exp(x)), as max(x, 0) + log1p(exp(-|x|)) so that it does not
/// overflow for large x.
Value onnx_import::softplusOf(OpBuilder &b, Location loc, Value x) {
  Value zero = constant(b, loc, x.getType(), 0);
  Value negAbs = arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x));
  Value tail =
      math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, negAbs));
  return arith::AddFOp::create(
      b, loc, arith::MaximumFOp::create(b, loc, x, zero), tail);
}

/// x / (1 + |x|).
Value onnx_import::softsignOf(OpBuilder &b, Location loc, Value x) {
  Value denominator =
      arith::AddFOp::create(b, loc, constant(b, loc, x.getType(), 1),
                            math::AbsFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, x, denominator);
}

/// max(0, min(1, alpha * x + beta)).
Value onnx_import::hardSigmoidOf(OpBuilder &b, Location loc, Value x,
                                 Value alpha, Value beta) {
  Type type = x.getType();
  Value linear = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, alpha, x), beta);
  Value upper =
      arith::MinimumFOp::create(b, loc, constant(b, loc, type, 1), linear);
  return arith::MaximumFOp::create(b, loc, constant(b, loc, type, 0), upper);
}

namespace {

Value sigmoid(NodeContext &, OpBuilder &b, Location loc, Value x, OnnxDType) {
  return sigmoidOf(b, loc, x);
}

Value softplus(NodeContext &, OpBuilder &b, Location loc, Value x, OnnxDType) {
  return softplusOf(b, loc, x);
}

Value softsign(NodeContext &, OpBuilder &b, Location loc, Value x, OnnxDType) {
  return softsignOf(b, loc, x);
}

/// An attribute as a constant of the scalar's type.
Value attrConstant(NodeContext &ctx, OpBuilder &b, Location loc, Type type,
                   StringRef name, float defaultValue) {
  return constant(b, loc, type, ctx.getAttrFloat(name, defaultValue));
}

/// x < 0 ? alpha * x : x.
Value leakyRelu(NodeContext &ctx, OpBuilder &b, Location loc, Value x,
                OnnxDType dtype) {
  Value alpha = attrConstant(ctx, b, loc, x.getType(), "alpha", 0.01f);
  Value negative = lessThan(b, loc, x, constant(b, loc, x.getType(), 0), dtype);
  return select(b, loc, negative, arith::MulFOp::create(b, loc, alpha, x), x);
}

/// x < 0 ? alpha * (exp(x) - 1) : x.
Value elu(NodeContext &ctx, OpBuilder &b, Location loc, Value x,
          OnnxDType dtype) {
  Value alpha = attrConstant(ctx, b, loc, x.getType(), "alpha", 1.0f);
  Value negative = lessThan(b, loc, x, constant(b, loc, x.getType(), 0), dtype);
  Value scaled =
      arith::MulFOp::create(b, loc, alpha, math::ExpM1Op::create(b, loc, x));
  return select(b, loc, negative, scaled, x);
}

/// gamma * (x > 0 ? x : alpha * exp(x) - alpha).
Value selu(NodeContext &ctx, OpBuilder &b, Location loc, Value x,
           OnnxDType dtype) {
  Type type = x.getType();
  Value alpha =
      attrConstant(ctx, b, loc, type, "alpha", 1.67326319217681884765625f);
  Value gamma =
      attrConstant(ctx, b, loc, type, "gamma", 1.05070102214813232421875f);
  Value positive = lessThan(b, loc, constant(b, loc, type, 0), x, dtype);
  Value negativePart = arith::SubFOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, alpha, math::ExpOp::create(b, loc, x)),
      alpha);
  return arith::MulFOp::create(b, loc, gamma,
                               select(b, loc, positive, x, negativePart));
}

/// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
Value celu(NodeContext &ctx, OpBuilder &b, Location loc, Value x,
           OnnxDType dtype) {
  Type type = x.getType();
  Value alpha = attrConstant(ctx, b, loc, type, "alpha", 1.0f);
  Value zero = constant(b, loc, type, 0);
  Value expm1 =
      math::ExpM1Op::create(b, loc, arith::DivFOp::create(b, loc, x, alpha));
  return arith::AddFOp::create(
      b, loc, max(b, loc, zero, x, dtype),
      min(b, loc, zero, arith::MulFOp::create(b, loc, alpha, expm1), dtype));
}

/// x > alpha ? x : 0.
Value thresholdedRelu(NodeContext &ctx, OpBuilder &b, Location loc, Value x,
                      OnnxDType dtype) {
  Value alpha = attrConstant(ctx, b, loc, x.getType(), "alpha", 1.0f);
  return select(b, loc, lessThan(b, loc, alpha, x, dtype), x,
                constant(b, loc, x.getType(), 0));
}

Value hardSigmoid(NodeContext &ctx, OpBuilder &b, Location loc, Value x,
                  OnnxDType) {
  Type type = x.getType();
  return hardSigmoidOf(b, loc, x,
                       attrConstant(ctx, b, loc, type, "alpha", 0.2f),
                       attrConstant(ctx, b, loc, type, "beta", 0.5f));
}

/// x * HardSigmoid(x) with alpha = 1/6, beta = 0.5.
Value hardSwish(NodeContext &, OpBuilder &b, Location loc, Value x, OnnxDType) {
  Type type = x.getType();
  Value gate = hardSigmoidOf(b, loc, x, constant(b, loc, type, 1.0 / 6),
                             constant(b, loc, type, 0.5));
  return arith::MulFOp::create(b, loc, x, gate);
}

/// x < -lambd ? x + bias : (x > lambd ? x - bias : 0).
Value shrink(NodeContext &ctx, OpBuilder &b, Location loc, Value x,
             OnnxDType dtype) {
  Type type = x.getType();
  float lambdValue = ctx.getAttrFloat("lambd", 0.5f);
  Value lambd = constant(b, loc, type, lambdValue);
  Value negLambd = constant(b, loc, type, -lambdValue);
  Value bias = attrConstant(ctx, b, loc, type, "bias", 0.0f);
  Value upper =
      select(b, loc, lessThan(b, loc, lambd, x, dtype),
             arith::SubFOp::create(b, loc, x, bias), constant(b, loc, type, 0));
  return select(b, loc, lessThan(b, loc, x, negLambd, dtype),
                arith::AddFOp::create(b, loc, x, bias), upper);
}

/// IsNaN and IsInf: bool results.
LogicalResult convertFloatPredicate(NodeContext &ctx) {
  OnnxDType dtype = ctx.getInputDType(0);
  if (failed(checkClass(ctx, dtype, kFloat)))
    return failure();
  bool isNaN = ctx.getOpType() == "IsNaN";
  bool positive = ctx.getAttrInt("detect_positive", 1) != 0;
  bool negative = ctx.getAttrInt("detect_negative", 1) != 0;
  return convertElementwiseNode(
      ctx, {0}, onnx::TensorProto::BOOL,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value x = args[0];
        if (isNaN)
          return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, x, x);
        auto equals = [&](double value) -> Value {
          return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x,
                                       constant(b, loc, x.getType(), value));
        };
        double inf = std::numeric_limits<double>::infinity();
        Value result = constant(b, loc, b.getI1Type(), 0);
        if (positive)
          result = arith::OrIOp::create(b, loc, result, equals(inf));
        if (negative)
          result = arith::OrIOp::create(b, loc, result, equals(-inf));
        return result;
      });
}

//===----------------------------------------------------------------------===//
// Ops with extra operands
//===----------------------------------------------------------------------===//

/// Clip: opset 6 has min/max attributes; later ones optional min/max inputs
/// (runtime scalars or absent).
LogicalResult convertClip(NodeContext &ctx) {
  OnnxDType dtype = ctx.getInputDType(0);
  bool fromAttrs = ctx.getSinceVersion() < 11;
  // Clip-6 (bounds as float attributes) is defined on floats only.
  if (failed(checkClass(ctx, dtype, fromAttrs ? kFloat : kNumeric)))
    return failure();
  SmallVector<unsigned> inputs = {0};
  bool hasMin = fromAttrs || ctx.hasInput(1);
  bool hasMax = fromAttrs || ctx.hasInput(2);
  for (unsigned index : {1u, 2u}) {
    if (fromAttrs || !ctx.hasInput(index))
      continue;
    if (ctx.getInputType(index).getNumElements() != 1)
      return ctx.emitError()
             << "input " << index << " (the bound) must be a scalar";
    inputs.push_back(index);
  }
  if (failed(getCommonInputDType(ctx, inputs)))
    return failure();
  return convertElementwiseNode(
      ctx, inputs, dtype, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value x = args[0];
        Type type = x.getType();
        unsigned next = 1;
        Value lower = fromAttrs
                          ? attrConstant(ctx, b, loc, type, "min", -FLT_MAX)
                      : hasMin ? args[next++]
                               : Value();
        Value upper = fromAttrs
                          ? attrConstant(ctx, b, loc, type, "max", FLT_MAX)
                      : hasMax ? args[next++]
                               : Value();
        if (lower)
          x = max(b, loc, x, lower, dtype);
        if (upper)
          x = min(b, loc, x, upper, dtype);
        return x;
      });
}

/// PRelu: x < 0 ? slope * x : x. From opset 7 the slope broadcasts
/// unidirectionally to X; before, a slope of X's channel count applies per
/// channel (axis 1).
LogicalResult convertPRelu(NodeContext &ctx) {
  FailureOr<OnnxDType> dtype = getCommonInputDType(ctx, {0, 1});
  if (failed(dtype) || failed(checkClass(ctx, *dtype, kNumeric)))
    return failure();
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  ArrayRef<int64_t> slopeShape = ctx.getInputShape(1);
  std::optional<int64_t> alignAxis;
  if (ctx.getSinceVersion() < 7) {
    if (shape.size() >= 2 && slopeShape.size() == 1 &&
        slopeShape[0] == shape[1] && slopeShape[0] != 1)
      alignAxis = 1;
  } else {
    FailureOr<SmallVector<int64_t>> broadcast =
        getBroadcastShape(ctx, {shape, slopeShape});
    if (failed(broadcast))
      return failure();
    if (ArrayRef<int64_t>(*broadcast) != shape)
      return ctx.emitError()
             << "the slope of shape ["
             << llvm::make_range(slopeShape.begin(), slopeShape.end())
             << "] does not broadcast to the input shape ["
             << llvm::make_range(shape.begin(), shape.end()) << "]";
  }
  return convertElementwiseNode(
      ctx, {0, 1}, *dtype,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value x = args[0];
        if (isUnsignedDType(*dtype))
          return x;
        Value negative =
            lessThan(b, loc, x, constant(b, loc, x.getType(), 0), *dtype);
        return select(b, loc, negative, mul(b, loc, args[1], x), x);
      },
      alignAxis);
}

//===----------------------------------------------------------------------===//
// Binary and variadic ops
//===----------------------------------------------------------------------===//

/// Add, Sub, Mul, Div on operands of one type (integer division truncates).
LogicalResult convertArithmetic(NodeContext &ctx) {
  FailureOr<OnnxDType> dtype = getCommonInputDType(ctx, {0, 1});
  if (failed(dtype) || failed(checkClass(ctx, *dtype, kNumeric)))
    return failure();
  StringRef op = ctx.getOpType();
  return convertElementwiseNode(
      ctx, {0, 1}, *dtype,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        if (op == "Add")
          return add(b, loc, args[0], args[1]);
        if (op == "Sub")
          return sub(b, loc, args[0], args[1]);
        if (op == "Mul")
          return mul(b, loc, args[0], args[1]);
        assert(op == "Div" && "unexpected op");
        return div(b, loc, args[0], args[1], *dtype);
      });
}

/// Max, Min, Sum, Mean over any number of operands of one type.
LogicalResult convertVariadic(NodeContext &ctx) {
  SmallVector<unsigned> inputs;
  for (unsigned i = 0, e = ctx.getNumInputs(); i < e; ++i)
    if (ctx.hasInput(i))
      inputs.push_back(i);
  if (inputs.empty())
    return ctx.emitError() << "expects at least one operand";
  StringRef op = ctx.getOpType();
  FailureOr<OnnxDType> dtype = getCommonInputDType(ctx, inputs);
  if (failed(dtype) ||
      failed(checkClass(ctx, *dtype,
                        op == "Max" || op == "Min" || op == "Sum" ? kNumeric
                                                                  : kFloat)))
    return failure();
  return convertElementwiseNode(
      ctx, inputs, *dtype, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value result = args[0];
        for (Value arg : args.drop_front()) {
          if (op == "Max")
            result = max(b, loc, result, arg, *dtype);
          else if (op == "Min")
            result = min(b, loc, result, arg, *dtype);
          else
            result = add(b, loc, result, arg);
        }
        if (op == "Mean")
          result = arith::DivFOp::create(
              b, loc, result,
              constant(b, loc, result.getType(), double(args.size())));
        return result;
      });
}

/// base^exponent on integers by square-and-multiply over the exponent's low
/// `width` bits (the base's width), wrapping like numpy. Exponents of 2^width
/// or more give 0 for even bases; odd bases are periodic with a period that
/// divides 2^width, so the low bits suffice. Negative exponents give 0
/// unless the base is 1 or -1 (1 / base^-e truncated toward zero).
Value integerPower(OpBuilder &b, Location loc, Value base, Value exponent,
                   bool exponentSigned) {
  Type type = base.getType();
  unsigned width = type.getIntOrFloatBitWidth();
  Type i64 = b.getI64Type();
  Value one = constant(b, loc, type, 1);
  Value result = one;
  Value power = base;
  for (unsigned bit = 0; bit < width; ++bit) {
    Value shifted =
        arith::ShRUIOp::create(b, loc, exponent, constant(b, loc, i64, bit));
    Value set = arith::TruncIOp::create(b, loc, b.getI1Type(), shifted);
    result = select(b, loc, set, arith::MulIOp::create(b, loc, result, power),
                    result);
    if (bit + 1 < width)
      power = arith::MulIOp::create(b, loc, power, power);
  }
  Value zero = constant(b, loc, type, 0);
  Value isUnit = arith::OrIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, base, one),
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, base,
                            constant(b, loc, type, -1)));
  Value vanishes = constant(b, loc, b.getI1Type(), 0);
  if (exponentSigned) {
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           exponent, constant(b, loc, i64, 0));
    vanishes = arith::AndIOp::create(
        b, loc, negative,
        arith::XOrIOp::create(b, loc, isUnit,
                              constant(b, loc, b.getI1Type(), 1)));
  }
  if (width < 64) {
    Value high = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::uge, exponent,
        constant(b, loc, i64, double(uint64_t(1) << width)));
    if (exponentSigned)
      high = arith::AndIOp::create(
          b, loc, high,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, exponent,
                                constant(b, loc, i64, 0)));
    Value even =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              arith::AndIOp::create(b, loc, base, one), zero);
    vanishes = arith::OrIOp::create(b, loc, vanishes,
                                    arith::AndIOp::create(b, loc, high, even));
  }
  return select(b, loc, vanishes, zero, result);
}

/// Pow: the result has the base's type. Integer powers are exact; anything
/// involving a float is computed in f64 (in f32 when both operands are float
/// of at most 32 bits), like numpy's type promotion, and converted back.
LogicalResult convertPow(NodeContext &ctx) {
  OnnxDType baseType = ctx.getInputDType(0);
  OnnxDType exponentType = ctx.getInputDType(1);
  if (failed(checkClass(ctx, baseType, kNumeric)) ||
      failed(checkClass(ctx, exponentType, kNumeric)))
    return failure();
  if (ctx.getSinceVersion() < 12 && baseType != exponentType)
    return ctx.emitError() << "operands have different element types ("
                           << getOnnxDTypeName(baseType) << ", "
                           << getOnnxDTypeName(exponentType) << ")";
  return convertElementwiseNode(
      ctx, {0, 1}, baseType,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        if (!isFloatDType(baseType) && !isFloatDType(exponentType)) {
          Value exponent = castScalar(b, loc, args[1], exponentType,
                                      isSignedDType(exponentType)
                                          ? onnx::TensorProto::INT64
                                          : onnx::TensorProto::UINT64);
          return integerPower(b, loc, args[0], exponent,
                              isSignedDType(exponentType));
        }
        auto narrow = [](OnnxDType dtype) {
          return isFloatDType(dtype) && dtype != onnx::TensorProto::DOUBLE;
        };
        OnnxDType compute = narrow(baseType) && narrow(exponentType)
                                ? onnx::TensorProto::FLOAT
                                : onnx::TensorProto::DOUBLE;
        Value base = castScalar(b, loc, args[0], baseType, compute);
        Value exponent = castScalar(b, loc, args[1], exponentType, compute);
        Value result = math::PowFOp::create(b, loc, base, exponent);
        return castScalar(b, loc, result, compute, baseType);
      });
}

/// Mod: fmod = 1 is C's fmod (the sign of the dividend); fmod = 0 is
/// Python's % (the sign of the divisor).
LogicalResult convertMod(NodeContext &ctx) {
  FailureOr<OnnxDType> dtype = getCommonInputDType(ctx, {0, 1});
  if (failed(dtype) || failed(checkClass(ctx, *dtype, kNumeric)))
    return failure();
  bool fmod = ctx.getAttrInt("fmod", 0) != 0;
  return convertElementwiseNode(
      ctx, {0, 1}, *dtype,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value lhs = args[0], rhs = args[1];
        if (isUnsignedDType(*dtype))
          return arith::RemUIOp::create(b, loc, lhs, rhs);
        bool isFloat = isFloatDType(*dtype);
        Value remainder =
            isFloat ? arith::RemFOp::create(b, loc, lhs, rhs).getResult()
                    : arith::RemSIOp::create(b, loc, lhs, rhs).getResult();
        if (fmod)
          return remainder;
        // A nonzero remainder whose sign differs from the divisor's moves
        // by one divisor.
        Value zero = constant(b, loc, lhs.getType(), 0);
        Value nonzero =
            isFloat ? arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE,
                                            remainder, zero)
                          .getResult()
                    : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                                            remainder, zero)
                          .getResult();
        Value signsDiffer = arith::XOrIOp::create(
            b, loc, lessThan(b, loc, remainder, zero, *dtype),
            lessThan(b, loc, rhs, zero, *dtype));
        return select(b, loc,
                      arith::AndIOp::create(b, loc, nonzero, signsDiffer),
                      add(b, loc, remainder, rhs), remainder);
      });
}

/// BitShift on unsigned integers; shifting by the width or more gives 0.
LogicalResult convertBitShift(NodeContext &ctx) {
  FailureOr<OnnxDType> dtype = getCommonInputDType(ctx, {0, 1});
  if (failed(dtype) || failed(checkClass(ctx, *dtype, kUnsigned)))
    return failure();
  std::string direction = ctx.getAttrString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return ctx.emitError() << "direction must be \"LEFT\" or \"RIGHT\", not \""
                           << direction << "\"";
  bool left = direction == "LEFT";
  return convertElementwiseNode(
      ctx, {0, 1}, *dtype,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value x = args[0], amount = args[1];
        Type type = x.getType();
        Value shifted =
            left ? arith::ShLIOp::create(b, loc, x, amount).getResult()
                 : arith::ShRUIOp::create(b, loc, x, amount).getResult();
        Value inRange = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult, amount,
            constant(b, loc, type, type.getIntOrFloatBitWidth()));
        return select(b, loc, inRange, shifted, constant(b, loc, type, 0));
      });
}

//===----------------------------------------------------------------------===//
// Cast and Dropout
//===----------------------------------------------------------------------===//

LogicalResult convertCastTo(NodeContext &ctx, OnnxDType to) {
  OnnxDType from = ctx.getInputDType(0);
  if (!getElementType(ctx.getContext(), from) ||
      !getElementType(ctx.getContext(), to))
    return ctx.unsupported(Twine("cast from ") + getOnnxDTypeName(from) +
                           " to " + getOnnxDTypeName(to));
  if (from == to) {
    ctx.setOutput(0, ctx.getImportedInput(0));
    return success();
  }
  return convertElementwiseNode(
      ctx, {0}, to, [&](OpBuilder &b, Location loc, ValueRange args) {
        return castScalar(b, loc, args[0], from, to);
      });
}

LogicalResult convertCast(NodeContext &ctx) {
  FailureOr<int64_t> to = ctx.getRequiredAttrInt("to");
  if (failed(to))
    return failure();
  return convertCastTo(ctx, static_cast<OnnxDType>(*to));
}

LogicalResult convertCastLike(NodeContext &ctx) {
  return convertCastTo(ctx, ctx.getInputDType(1));
}

/// Dropout at inference: the output is the input and the mask all ones.
/// Training mode (opset 6 `is_test = 0`, or a `training_mode` input that is
/// true) is only supported with a dropout ratio of 0.
LogicalResult convertDropout(NodeContext &ctx) {
  int since = ctx.getSinceVersion();
  bool training = false;
  float ratio = ctx.getAttrFloat("ratio", 0.5f);
  if (since < 7) {
    training = ctx.getAttrInt("is_test", 0) == 0;
  } else if (since >= 12 && ctx.hasInput(2)) {
    FailureOr<DenseElementsAttr> mode =
        ctx.requireConstantInput(2, "training_mode");
    if (failed(mode))
      return failure();
    if (mode->getNumElements() != 1)
      return ctx.emitError() << "training_mode must be a scalar";
    training = getIntValues(*mode).front() != 0;
    ratio = 0.5f;
    if (training && ctx.hasInput(1)) {
      FailureOr<DenseElementsAttr> ratioValue =
          ctx.requireConstantInput(1, "the dropout ratio");
      if (failed(ratioValue))
        return failure();
      if (ratioValue->getNumElements() != 1 ||
          !isa<FloatType>(ratioValue->getElementType()))
        return ctx.emitError() << "the ratio must be a float scalar";
      ratio = (*ratioValue->getValues<APFloat>().begin()).convertToDouble();
    }
  }
  if (training && ratio != 0)
    return ctx.unsupported("Dropout in training mode (random masks)");
  ctx.setOutput(0, ctx.getImportedInput(0));
  if (ctx.hasOutput(1)) {
    // The mask is bool from opset 10, of the input's type before.
    OnnxDType maskType =
        since >= 10 ? onnx::TensorProto::BOOL : ctx.getInputDType(0);
    Type element = getElementType(ctx.getContext(), maskType);
    auto type = RankedTensorType::get(ctx.getInputShape(0), element);
    TypedAttr one = isa<FloatType>(element)
                        ? TypedAttr(FloatAttr::get(element, 1.0))
                        : TypedAttr(IntegerAttr::get(element, APInt(1, 1)));
    ctx.setConstantOutput(1, DenseElementsAttr::get(type, one), maskType);
  }
  return success();
}

} // namespace

void onnx_import::registerElementwiseConverters(ConverterRegistry &registry) {
  // Unary math on floats.
  registry.add("Exp", {6, 13}, unary(mathOp<math::ExpOp>, kFloat));
  registry.add("Log", {6, 13}, unary(mathOp<math::LogOp>, kFloat));
  registry.add("Sqrt", {6, 13}, unary(mathOp<math::SqrtOp>, kFloat));
  registry.add("Floor", {6, 13}, unary(mathOp<math::FloorOp>, kFloat));
  registry.add("Ceil", {6, 13}, unary(mathOp<math::CeilOp>, kFloat));
  registry.add("Round", {11}, unary(mathOp<math::RoundEvenOp>, kFloat));
  registry.add("Tanh", {6, 13}, unary(mathOp<math::TanhOp>, kFloat));
  registry.add("Sin", {7}, unary(mathOp<math::SinOp>, kFloat));
  registry.add("Cos", {7}, unary(mathOp<math::CosOp>, kFloat));
  registry.add("Tan", {7}, unary(mathOp<math::TanOp>, kFloat));
  registry.add("Asin", {7}, unary(mathOp<math::AsinOp>, kFloat));
  registry.add("Acos", {7}, unary(mathOp<math::AcosOp>, kFloat));
  registry.add("Atan", {7}, unary(mathOp<math::AtanOp>, kFloat));
  registry.add("Sinh", {9}, unary(mathOp<math::SinhOp>, kFloat));
  registry.add("Cosh", {9}, unary(mathOp<math::CoshOp>, kFloat));
  registry.add("Asinh", {9}, unary(mathOp<math::AsinhOp>, kFloat));
  registry.add("Acosh", {9}, unary(mathOp<math::AcoshOp>, kFloat));
  registry.add("Atanh", {9}, unary(mathOp<math::AtanhOp>, kFloat));
  registry.add("Erf", {9, 13}, unary(mathOp<math::ErfOp>, kFloat, kInteger));
  registry.add("Reciprocal", {6, 13}, unary(reciprocal, kFloat));
  registry.add("Sigmoid", {6, 13}, unary(sigmoid, kFloat));
  registry.add("Softplus", {1}, unary(softplus, kFloat));
  registry.add("Softsign", {1}, unary(softsign, kFloat));
  // Activations with attributes.
  registry.add("LeakyRelu", {6, 16}, unary(leakyRelu, kFloat));
  registry.add("Elu", {6}, unary(elu, kFloat));
  registry.add("Selu", {6}, unary(selu, kFloat));
  registry.add("Celu", {12}, unary(celu, kFloat));
  registry.add("ThresholdedRelu", {10}, unary(thresholdedRelu, kFloat));
  registry.add("HardSigmoid", {6}, unary(hardSigmoid, kFloat));
  registry.add("HardSwish", {14}, unary(hardSwish, kFloat));
  registry.add("Shrink", {9}, unary(shrink, kFloat, kInteger));
  // Unary ops on integers too.
  registry.add("Abs", {6, 13}, unary(absValue, kNumeric));
  registry.add("Neg", {6, 13}, unary(negate, kFloat | kSigned));
  registry.add("Sign", {9, 13}, unary(sign, kNumeric));
  registry.add("Relu", {6, 13, 14}, unary(relu, kFloat | kSigned));
  registry.add("IsNaN", {9, 13}, convertFloatPredicate);
  registry.add("IsInf", {10}, convertFloatPredicate);
  registry.add("Clip", {6, 11, 12, 13}, convertClip);
  registry.add("PRelu", {6, 7, 9, 16}, convertPRelu);
  // Binary and variadic.
  for (StringRef op : {"Add", "Sub", "Mul", "Div"})
    registry.add(op, {6, 7, 13, 14}, convertArithmetic);
  registry.add("Pow", {1, 7, 12, 13, 15}, convertPow);
  registry.add("Mod", {10, 13}, convertMod);
  for (StringRef op : {"Max", "Min"})
    registry.add(op, {6, 8, 12, 13}, convertVariadic);
  for (StringRef op : {"Sum", "Mean"})
    registry.add(op, {6, 8, 13}, convertVariadic);
  registry.add("BitShift", {11}, convertBitShift);
  // Type conversion and inference-time no-ops.
  registry.add("Cast", {6, 9, 13}, convertCast);
  registry.add("CastLike", {15}, convertCastLike);
  registry.add("Dropout", {6, 7, 10, 12, 13}, convertDropout);
}
