//===- Quantization.cpp - ONNX quantization converters --------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// QuantizeLinear and DequantizeLinear (per tensor, or per index of one axis),
// and the requantization that QLinearMatMul and QLinearConv end with.
// DynamicQuantizeLinear is imported through its schema's function body,
// which uses QuantizeLinear.
//
// Rounding and saturation follow the ONNX reference (and ONNX Runtime):
// QuantizeLinear computes x / scale in f32, rounds half to even, adds the
// zero point and clamps to the output type; a NaN clamps to the type's
// lower bound (the float min/max that ignore NaN), so that no conversion of
// a NaN to an integer is ever executed. DequantizeLinear computes
// (x - zero_point) in i32, converts that to f32 and multiplies by the scale.
//
// A DequantizeLinear of a constant (the weights of a QDQ model) is folded
// here whatever its size: the generic folding of elementwise ops stops at
// kMaxFoldElements, which would leave every large weight to be dequantized
// again on each run.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

namespace {

/// The scale and zero point (inputs 1 and 2) of a QuantizeLinear or
/// DequantizeLinear: scalars (per tensor), or 1-D with one value per index
/// of `axis` of x (input 0).
struct QuantizationParams {
  TensorOperand scale;
  /// Null when the node has no zero point (zero).
  std::optional<TensorOperand> zeroPoint;
  /// The axis of x that a 1-D scale runs along; -1 per tensor.
  int64_t axis = -1;
};

bool isQuantizedDType(OnnxDType dtype) {
  return dtype == onnx::TensorProto::INT8 || dtype == onnx::TensorProto::UINT8;
}

/// Reads and checks inputs 1 (scale) and 2 (zero point, optional) against
/// input 0 (x). `quantized` is the element type of the integer side.
FailureOr<QuantizationParams> getParams(NodeContext &ctx, OnnxDType quantized) {
  if (ctx.getInputDType(1) != onnx::TensorProto::FLOAT)
    return ctx.emitError() << "unsupported: a scale of type "
                           << getOnnxDTypeName(ctx.getInputDType(1))
                           << " (expects float)";
  QuantizationParams params;
  params.scale = getOperand(ctx, 1);
  ArrayRef<int64_t> scaleShape = ctx.getInputShape(1);
  int64_t rank = ctx.getInputRank(0);
  bool perAxis = scaleShape.size() == 1 && rank >= 1 &&
                 // Opset 10 allows scalars only; a 1-element 1-D scale is
                 // per tensor there and everywhere.
                 !(scaleShape[0] == 1);
  if (scaleShape.size() > 1 ||
      (scaleShape.size() == 1 && rank == 0 && scaleShape[0] != 1))
    return ctx.emitError() << "the scale must be a scalar or 1-D along an "
                              "axis of the input";
  if (perAxis) {
    if (ctx.getSinceVersion() < 13)
      return ctx.emitError() << "a per-axis scale needs opset 13";
    FailureOr<int64_t> axis =
        normalizeAxis(ctx, ctx.getAttrInt("axis", 1), rank);
    if (failed(axis))
      return failure();
    params.axis = *axis;
    if (scaleShape[0] != ctx.getInputShape(0)[params.axis])
      return ctx.emitError()
             << "the scale has " << scaleShape[0] << " values; the input has "
             << ctx.getInputShape(0)[*axis] << " along axis " << *axis;
  }
  if (ctx.hasInput(2)) {
    if (ctx.getInputDType(2) != quantized)
      return ctx.emitError() << "the zero point has type "
                             << getOnnxDTypeName(ctx.getInputDType(2))
                             << "; expects " << getOnnxDTypeName(quantized);
    if (ctx.getInputType(2).getNumElements() !=
        ctx.getInputType(1).getNumElements())
      return ctx.emitError() << "the zero point and the scale have different "
                                "numbers of elements";
    params.zeroPoint = getOperand(ctx, 2);
  }
  return params;
}

/// A per-axis (1-D) parameter reshaped so that it broadcasts against a
/// tensor of rank `rank` along `axis`; a per-tensor one as a 0-D tensor.
TensorOperand alignParam(NodeContext &ctx, const TensorOperand &param,
                         int64_t rank, int64_t axis) {
  if (axis < 0)
    return reshapeOperand(ctx, param, {});
  SmallVector<int64_t> shape{param.type.getNumElements()};
  shape.append(rank - 1 - axis, 1);
  return reshapeOperand(ctx, param, shape);
}

Value f32Constant(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

/// round_half_even(value) + zeroPoint, clamped to the range of `dtype`
/// (int8 or uint8) and converted to it. `value` and `zeroPoint` are f32.
Value roundAndSaturate(OpBuilder &b, Location loc, Value value, Value zeroPoint,
                       OnnxDType dtype) {
  bool isUnsigned = dtype == onnx::TensorProto::UINT8;
  value = math::RoundEvenOp::create(b, loc, value);
  if (zeroPoint)
    value = arith::AddFOp::create(b, loc, value, zeroPoint);
  value = arith::MaxNumFOp::create(b, loc, value,
                                   f32Constant(b, loc, isUnsigned ? 0 : -128));
  value = arith::MinNumFOp::create(b, loc, value,
                                   f32Constant(b, loc, isUnsigned ? 255 : 127));
  return castScalar(b, loc, value, onnx::TensorProto::FLOAT, dtype);
}

/// saturate(round_half_even(float(acc) * multiplier) + zero), `multiplier`
/// and `zero` broadcasting against `acc` (i32).
FailureOr<Value> requantizeWith(NodeContext &ctx, Value acc,
                                const TensorOperand &multiplier,
                                const TensorOperand &zero,
                                OnnxDType outputDType) {
  FailureOr<Type> resultType = ctx.getElementTypeOrError(outputDType);
  if (failed(resultType))
    return failure();
  return buildElementwise(
      ctx, {acc, materialize(ctx, multiplier), materialize(ctx, zero)},
      *resultType, [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value value = arith::MulFOp::create(
            b, loc,
            castScalar(b, loc, args[0], onnx::TensorProto::INT32,
                       onnx::TensorProto::FLOAT),
            args[1]);
        return roundAndSaturate(
            b, loc, value,
            castScalar(b, loc, args[2], outputDType, onnx::TensorProto::FLOAT),
            outputDType);
      });
}

/// QuantizeLinear of an integer contraction's output (a QDQ group): the
/// contraction's i32 sums requantized with accScale[c] / y_scale, as ONNX
/// Runtime's fused kernel (QLinearConv) computes them. False when the
/// input has no such origin or the parameters are not constants per tensor.
FailureOr<bool> requantizeAccumulated(NodeContext &ctx,
                                      const QuantizationParams &params,
                                      OnnxDType yType) {
  const QuantizedOrigin *origin =
      ctx.getQuantizedOrigin(0, QuantizedOrigin::Kind::Accumulated);
  if (!origin || params.axis >= 0 || !params.scale.constant ||
      (params.zeroPoint && !params.zeroPoint->constant))
    return false;
  float outputScale = *params.scale.constant.getValues<float>().begin();
  SmallVector<float> multipliers;
  for (float scale : origin->scale.getValues<float>())
    multipliers.push_back(scale / outputScale);
  int64_t rank = ctx.getInputRank(0);
  auto multiplierType = RankedTensorType::get({int64_t(multipliers.size())},
                                              ctx.getBuilder().getF32Type());
  TensorOperand multiplier =
      alignParam(ctx,
                 TensorOperand::folded(DenseElementsAttr::get(
                     multiplierType, ArrayRef<float>(multipliers))),
                 rank, origin->axis);
  FailureOr<Type> zeroType = ctx.getElementTypeOrError(yType);
  if (failed(zeroType))
    return failure();
  TensorOperand zero = params.zeroPoint
                           ? reshapeOperand(ctx, *params.zeroPoint, {})
                           : TensorOperand::folded(DenseElementsAttr::get(
                                 RankedTensorType::get({}, *zeroType),
                                 IntegerAttr::get(*zeroType, 0).getValue()));
  FailureOr<Value> result =
      requantizeWith(ctx, origin->accumulator, multiplier, zero, yType);
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result, yType);
  return true;
}

/// The integers QuantizeLinear gives back unchanged: those of a Dequantized
/// origin of the same type, scale and zero point, per tensor (x = (q - z) *
/// s, then round(x / s) + z = q: |q - z| <= 255 and the division's error
/// is far below one half), e.g. after a MaxPool on integers. Null
/// otherwise.
ImportedValue *getRequantizedAsIs(NodeContext &ctx,
                                  const QuantizationParams &params,
                                  OnnxDType yType) {
  const QuantizedOrigin *origin =
      ctx.getQuantizedOrigin(0, QuantizedOrigin::Kind::Dequantized);
  if (!origin || origin->integer->dtype != yType || origin->axis >= 0 ||
      params.axis >= 0 || !params.scale.constant ||
      origin->scale.getNumElements() != 1 ||
      params.scale.constant.getNumElements() != 1)
    return nullptr;
  float scale = *origin->scale.getValues<float>().begin();
  if (!std::isnormal(scale) ||
      *params.scale.constant.getValues<float>().begin() != scale)
    return nullptr;
  auto zeroOf = [](DenseElementsAttr zero) -> int64_t {
    return zero ? (*zero.getValues<APInt>().begin()).getSExtValue() : 0;
  };
  if (params.zeroPoint && !params.zeroPoint->constant)
    return nullptr;
  DenseElementsAttr zero =
      params.zeroPoint ? params.zeroPoint->constant : DenseElementsAttr();
  if (zeroOf(zero) != zeroOf(origin->zeroPoint))
    return nullptr;
  return origin->integer;
}

/// y = saturate(round_half_even(x / scale) + zero_point). The output type is
/// the zero point's, uint8 without one.
LogicalResult convertQuantizeLinear(NodeContext &ctx) {
  OnnxDType xType = ctx.getInputDType(0);
  if (xType != onnx::TensorProto::FLOAT && xType != onnx::TensorProto::INT32)
    return ctx.unsupported(Twine("quantizing ") + getOnnxDTypeName(xType) +
                           " (expects float or int32)");
  OnnxDType yType =
      ctx.hasInput(2) ? ctx.getInputDType(2) : onnx::TensorProto::UINT8;
  if (!isQuantizedDType(yType))
    return ctx.unsupported(Twine("quantizing to ") + getOnnxDTypeName(yType) +
                           " (expects int8 or uint8)");
  FailureOr<QuantizationParams> params = getParams(ctx, yType);
  if (failed(params))
    return failure();
  if (FailureOr<bool> done = requantizeAccumulated(ctx, *params, yType);
      failed(done) || *done)
    return failure(failed(done));
  if (ImportedValue *integers = getRequantizedAsIs(ctx, *params, yType)) {
    ctx.setOutput(0, *integers);
    return success();
  }
  int64_t rank = ctx.getInputRank(0);
  SmallVector<TensorOperand> operands{
      getOperand(ctx, 0), alignParam(ctx, params->scale, rank, params->axis)};
  if (params->zeroPoint)
    operands.push_back(alignParam(ctx, *params->zeroPoint, rank, params->axis));
  FailureOr<Type> resultType = ctx.getElementTypeOrError(yType);
  if (failed(resultType))
    return failure();
  FailureOr<TensorOperand> result = buildElementwiseOperands(
      ctx, operands, *resultType,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value x = castScalar(b, loc, args[0], xType, onnx::TensorProto::FLOAT);
        Value zero = args.size() > 2 ? castScalar(b, loc, args[2], yType,
                                                  onnx::TensorProto::FLOAT)
                                     : Value();
        return roundAndSaturate(
            b, loc, arith::DivFOp::create(b, loc, x, args[1]), zero, yType);
      });
  if (failed(result))
    return failure();
  setResult(ctx, 0, *result, yType);
  return success();
}

/// The raw little-endian bytes of a constant, or an empty range (a splat or
/// a resource whose blob is gone); `splat` tells a splat from a full buffer.
ArrayRef<char> getRawBytes(ElementsAttr constant, bool &splat) {
  splat = false;
  if (auto dense = dyn_cast<DenseElementsAttr>(constant)) {
    splat = dense.isSplat();
    return dense.getRawData();
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(constant))
    if (AsmResourceBlob *blob = resource.getRawHandle().getBlob())
      return blob->getData();
  return {};
}

/// The zero points of an integer type `dtype` as i32 (zeros when null).
SmallVector<int32_t> getZeroPoints(DenseElementsAttr zeroPoint, OnnxDType dtype,
                                   size_t count) {
  SmallVector<int32_t> zeros(count, 0);
  if (zeroPoint)
    for (auto [zero, value] : llvm::zip(zeros, zeroPoint.getValues<APInt>()))
      zero =
          isUnsignedDType(dtype) ? value.getZExtValue() : value.getSExtValue();
  return zeros;
}

/// `fn(i, q - zeros[c])` for every element i of the int8/uint8/int32
/// constant `integer` (q its value, c its index along `axis`, or 0 when
/// axis < 0); false when the constant's bytes are not at hand.
bool forEachZeroAdjusted(ElementsAttr integer, OnnxDType dtype,
                         ArrayRef<int32_t> zeros, int64_t axis,
                         function_ref<void(int64_t, int32_t, int64_t)> fn) {
  bool splat;
  ArrayRef<char> bytes = getRawBytes(integer, splat);
  auto shaped = cast<ShapedType>(integer.getType());
  int64_t count = shaped.getNumElements();
  size_t width = dtype == onnx::TensorProto::INT32 ? 4 : 1;
  if (bytes.empty() || bytes.size() != (splat ? 1 : size_t(count)) * width)
    return false;
  // Elements per index of the axis, and the axis' size.
  int64_t inner = 1, axisSize = 1;
  if (axis >= 0) {
    axisSize = shaped.getDimSize(axis);
    for (int64_t d = axis + 1; d < shaped.getRank(); ++d)
      inner *= shaped.getDimSize(d);
  }
  for (int64_t i = 0; i < count; ++i) {
    size_t at = splat ? 0 : size_t(i);
    int32_t q;
    if (width == 4)
      std::memcpy(&q, bytes.data() + at * 4, 4);
    else if (isUnsignedDType(dtype))
      q = static_cast<uint8_t>(bytes[at]);
    else
      q = static_cast<int8_t>(bytes[at]);
    int64_t c = axis >= 0 ? (i / inner) % axisSize : 0;
    fn(i, q - zeros[c], c);
  }
  return true;
}

/// A constant of `type` holding `values`: inline up to kMaxFoldElements
/// elements, else a `dense_resource` blob named `blobName`.
template <typename T>
ElementsAttr makeConstant(RankedTensorType type, ArrayRef<T> values,
                          StringRef blobName) {
  if (values.size() <= size_t(kMaxFoldElements))
    return DenseElementsAttr::get(type, values);
  ArrayRef<char> raw(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(T));
  return DenseResourceElementsAttr::get(
      type, blobName,
      HeapAsmResourceBlob::allocateAndCopyWithAlign(raw, alignof(T)));
}

/// DequantizeLinear of a constant x with constant parameters, computed here
/// (whatever x's size); null when some operand is not a constant.
ElementsAttr foldDequantize(NodeContext &ctx, const QuantizationParams &params,
                            OnnxDType xType) {
  ElementsAttr x = ctx.getImportedInput(0).constant;
  if (!x || !params.scale.constant ||
      (params.zeroPoint && !params.zeroPoint->constant))
    return nullptr;
  SmallVector<float> scales =
      llvm::to_vector(params.scale.constant.getValues<float>());
  SmallVector<int32_t> zeros = getZeroPoints(
      params.zeroPoint ? params.zeroPoint->constant : DenseElementsAttr(),
      xType, scales.size());
  auto shaped = cast<ShapedType>(x.getType());
  std::vector<float> values(shaped.getNumElements());
  // The same operations as the runtime code: an i32 difference, then one
  // f32 product.
  if (!forEachZeroAdjusted(x, xType, zeros, params.axis,
                           [&](int64_t i, int32_t q, int64_t c) {
                             values[i] = static_cast<float>(q) * scales[c];
                           }))
    return nullptr;
  return makeConstant(
      RankedTensorType::get(shaped.getShape(), ctx.getBuilder().getF32Type()),
      ArrayRef<float>(values), "dequantized");
}

/// y = (x - zero_point) * scale, in f32.
LogicalResult convertDequantizeLinear(NodeContext &ctx) {
  OnnxDType xType = ctx.getInputDType(0);
  if (!isQuantizedDType(xType) && xType != onnx::TensorProto::INT32)
    return ctx.unsupported(Twine("dequantizing ") + getOnnxDTypeName(xType) +
                           " (expects int8, uint8 or int32)");
  FailureOr<QuantizationParams> params = getParams(ctx, xType);
  if (failed(params))
    return failure();
  if (xType == onnx::TensorProto::INT32 && params->zeroPoint &&
      (!params->zeroPoint->constant ||
       llvm::any_of(getIntValues(params->zeroPoint->constant),
                    [](int64_t zero) { return zero != 0; })))
    return ctx.emitError()
           << "an int32 input must have a zero point that is a constant 0";
  // The integers it came from, for a contraction or a QuantizeLinear that
  // computes on them (QDQ groups; constant parameters only).
  std::shared_ptr<QuantizedOrigin> origin;
  if (params->scale.constant &&
      (!params->zeroPoint || params->zeroPoint->constant)) {
    origin = std::make_shared<QuantizedOrigin>();
    origin->kind = QuantizedOrigin::Kind::Dequantized;
    origin->integer = ctx.getImportedInputRecord(0);
    origin->scale = params->scale.constant;
    origin->zeroPoint =
        params->zeroPoint ? params->zeroPoint->constant : DenseElementsAttr();
    origin->axis = params->axis;
  }
  if (ElementsAttr folded = foldDequantize(ctx, *params, xType)) {
    ctx.setConstantOutput(0, folded, onnx::TensorProto::FLOAT);
    ctx.setQuantizedOrigin(0, origin);
    return success();
  }
  int64_t rank = ctx.getInputRank(0);
  SmallVector<TensorOperand> operands{
      getOperand(ctx, 0), alignParam(ctx, params->scale, rank, params->axis)};
  if (params->zeroPoint)
    operands.push_back(alignParam(ctx, *params->zeroPoint, rank, params->axis));
  constexpr OnnxDType i32 = onnx::TensorProto::INT32;
  FailureOr<TensorOperand> result = buildElementwiseOperands(
      ctx, operands, ctx.getBuilder().getF32Type(),
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value x = castScalar(b, loc, args[0], xType, i32);
        if (args.size() > 2)
          x = arith::SubIOp::create(b, loc, x,
                                    castScalar(b, loc, args[2], xType, i32));
        return arith::MulFOp::create(
            b, loc, castScalar(b, loc, x, i32, onnx::TensorProto::FLOAT),
            args[1]);
      });
  if (failed(result))
    return failure();
  setResult(ctx, 0, *result, onnx::TensorProto::FLOAT);
  ctx.setQuantizedOrigin(0, origin);
  return success();
}

} // namespace

FailureOr<Value> onnx_import::requantize(NodeContext &ctx, Value accumulator,
                                         ArrayRef<unsigned> scales,
                                         int64_t channelAxis,
                                         unsigned outputScale,
                                         unsigned outputZeroPoint) {
  if (!ctx.hasInput(outputZeroPoint))
    return ctx.emitError() << "the output zero point (input " << outputZeroPoint
                           << ") is missing";
  OnnxDType outputDType = ctx.getInputDType(outputZeroPoint);
  if (!isQuantizedDType(outputDType))
    return ctx.emitError() << "unsupported: output type "
                           << getOnnxDTypeName(outputDType)
                           << " (expects int8 or uint8)";
  if (ctx.getInputType(outputScale).getNumElements() != 1 ||
      ctx.getInputType(outputZeroPoint).getNumElements() != 1)
    return ctx.emitError() << "the output scale and zero point must be "
                              "scalars";
  auto accumulatorType = cast<RankedTensorType>(accumulator.getType());
  int64_t rank = accumulatorType.getRank();
  int64_t channels =
      channelAxis >= 0 ? accumulatorType.getDimSize(channelAxis) : 1;
  // The multiplier: product of `scales` divided by the output scale, in f32
  // and in this order (as ONNX Runtime computes it), folded when constant.
  SmallVector<TensorOperand> factors;
  for (unsigned index :
       llvm::concat<const unsigned>(scales, ArrayRef<unsigned>(outputScale))) {
    if (ctx.getInputDType(index) != onnx::TensorProto::FLOAT)
      return ctx.emitError() << "unsupported: scales that are not float";
    int64_t count = ctx.getInputType(index).getNumElements();
    bool perChannel = count != 1;
    if (perChannel &&
        (channelAxis < 0 || count != channels || ctx.getInputRank(index) != 1))
      return ctx.emitError()
             << "scale input " << index << " has " << count
             << " values; expects 1"
             << (channelAxis >= 0
                     ? " or one per channel (" + std::to_string(channels) + ")"
                     : std::string());
    factors.push_back(alignParam(ctx, getOperand(ctx, index), rank,
                                 perChannel ? channelAxis : -1));
  }
  FailureOr<TensorOperand> multiplier = buildElementwiseOperands(
      ctx, factors, ctx.getBuilder().getF32Type(),
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value product = args.front();
        for (Value factor : args.drop_front().drop_back())
          product = arith::MulFOp::create(b, loc, product, factor);
        return arith::DivFOp::create(b, loc, product, args.back());
      });
  if (failed(multiplier))
    return failure();
  TensorOperand zero =
      reshapeOperand(ctx, getOperand(ctx, outputZeroPoint), {});
  return requantizeWith(ctx, accumulator, *multiplier, zero, outputDType);
}

FailureOr<Value> onnx_import::shiftToSigned(NodeContext &ctx, Value input) {
  return buildElementwise(
      ctx, {input}, ctx.getBuilder().getI8Type(),
      [](OpBuilder &b, Location loc, ValueRange args) {
        Value flip = arith::ConstantOp::create(
            b, loc, b.getIntegerAttr(args[0].getType(), 0x80));
        return Value(arith::XOrIOp::create(b, loc, args[0], flip));
      });
}

std::optional<std::vector<int32_t>>
onnx_import::getZeroAdjustedValues(const QuantizedOrigin &origin) {
  const ImportedValue &integer = *origin.integer;
  if (!integer.constant)
    return std::nullopt;
  SmallVector<int32_t> zeros = getZeroPoints(origin.zeroPoint, integer.dtype,
                                             origin.scale.getNumElements());
  std::vector<int32_t> values(integer.type.getNumElements());
  if (!forEachZeroAdjusted(
          integer.constant, integer.dtype, zeros, origin.axis,
          [&](int64_t i, int32_t q, int64_t) { values[i] = q; }))
    return std::nullopt;
  return values;
}

FailureOr<Value>
onnx_import::getZeroAdjustedI32(NodeContext &ctx,
                                const QuantizedOrigin &origin) {
  ImportedValue &integer = *origin.integer;
  OnnxDType dtype = integer.dtype;
  constexpr OnnxDType i32 = onnx::TensorProto::INT32;
  SmallVector<int32_t> zeros =
      getZeroPoints(origin.zeroPoint, dtype, origin.scale.getNumElements());
  auto type = RankedTensorType::get(integer.type.getShape(),
                                    ctx.getBuilder().getI32Type());
  // A constant (weights): folded here, whatever its size.
  if (std::optional<std::vector<int32_t>> values =
          getZeroAdjustedValues(origin))
    return Value(arith::ConstantOp::create(
        ctx.getBuilder(), ctx.getLoc(),
        cast<TypedAttr>(
            makeConstant(type, ArrayRef<int32_t>(*values), "zero_adjusted"))));
  SmallVector<Value> operands{ctx.materialize(integer)};
  if (origin.zeroPoint) {
    auto zeroType = RankedTensorType::get({int64_t(zeros.size())},
                                          ctx.getBuilder().getI32Type());
    operands.push_back(materialize(
        ctx, alignParam(ctx,
                        TensorOperand::folded(DenseElementsAttr::get(
                            zeroType, ArrayRef<int32_t>(zeros))),
                        type.getRank(), origin.axis)));
  }
  return buildElementwise(
      ctx, operands, ctx.getBuilder().getI32Type(),
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value q = castScalar(b, loc, args[0], dtype, i32);
        return args.size() > 1 ? arith::SubIOp::create(b, loc, q, args[1]) : q;
      });
}

LogicalResult onnx_import::setAccumulatedOutput(NodeContext &ctx,
                                                Value accumulator,
                                                ArrayRef<float> scales,
                                                int64_t axis) {
  int64_t rank = cast<RankedTensorType>(accumulator.getType()).getRank();
  if (scales.size() == 1)
    axis = -1;
  auto scaleType = RankedTensorType::get({int64_t(scales.size())},
                                         ctx.getBuilder().getF32Type());
  auto scaleAttr = DenseElementsAttr::get(scaleType, scales);
  TensorOperand scale =
      alignParam(ctx, TensorOperand::folded(scaleAttr), rank, axis);
  FailureOr<Value> value = buildElementwise(
      ctx, {accumulator, materialize(ctx, scale)},
      ctx.getBuilder().getF32Type(),
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        return arith::MulFOp::create(b, loc,
                                     castScalar(b, loc, args[0],
                                                onnx::TensorProto::INT32,
                                                onnx::TensorProto::FLOAT),
                                     args[1]);
      });
  if (failed(value))
    return failure();
  ctx.setOutput(0, *value, onnx::TensorProto::FLOAT);
  auto origin = std::make_shared<QuantizedOrigin>();
  origin->kind = QuantizedOrigin::Kind::Accumulated;
  origin->accumulator = accumulator;
  origin->scale = scaleAttr;
  origin->axis = axis;
  ctx.setQuantizedOrigin(0, std::move(origin));
  return success();
}

void onnx_import::registerQuantizationConverters(ConverterRegistry &registry) {
  registry.add("QuantizeLinear", {10, 13}, convertQuantizeLinear);
  registry.add("DequantizeLinear", {10, 13}, convertDequantizeLinear);
}
