//===- Pooling.cpp - ONNX pooling converters ------------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// MaxPool, AveragePool, LpPool and their Global forms over [N, C,
// spatial...] inputs. The input is padded (tensor.pad: -inf or the type's
// lowest value for max, zero for sums) including, with ceil_mode, the
// overhang of the last window; then 2-D max/sum pools become
// linalg.pooling_nchw_*, the rest a linalg.generic over
// (n, c, output..., kernel...). AveragePool divides by the number of window
// elements inside the (padded, with count_include_pad) input, a constant
// computed here.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

namespace {

enum class PoolKind { Max, MaxUnsigned, Sum };

/// Checks the pooled input: rank 3 or more, a float type (or, with
/// `allowInteger`, an integer type).
FailureOr<OnnxDType> checkPoolInput(NodeContext &ctx, bool allowInteger) {
  OnnxDType dtype = ctx.getInputDType(0);
  if (!isFloatDType(dtype) && !(allowInteger && isIntegerDType(dtype))) {
    (void)ctx.unsupported(Twine("element type ") + getOnnxDTypeName(dtype));
    return failure();
  }
  if (ctx.getInputRank(0) < 3) {
    ctx.emitError() << "expects an input of rank 3 or more (N, C, spatial...)"
                       ", got rank "
                    << ctx.getInputRank(0);
    return failure();
  }
  return dtype;
}

/// The window of the node: kernel_shape and the window attributes, or for
/// the Global ops the whole spatial extent.
FailureOr<WindowGeometry> getPoolGeometry(NodeContext &ctx, bool global,
                                          bool ceilMode) {
  ArrayRef<int64_t> spatial = ctx.getInputShape(0).drop_front(2);
  if (global)
    return getWindowGeometry(ctx, spatial, spatial, false);
  FailureOr<SmallVector<int64_t>> kernel =
      ctx.getRequiredAttrInts("kernel_shape");
  if (failed(kernel))
    return failure();
  return getWindowGeometry(ctx, spatial, *kernel, ceilMode);
}

/// `input` (by default the node's input 0) padded by the window's pads (and
/// ceil_mode overhang) with `padValue`.
Value padInput(NodeContext &ctx, const WindowGeometry &geometry, Value padValue,
               Value input = {}) {
  SmallVector<int64_t> low{0, 0}, high{0, 0};
  low.append(geometry.padsBegin);
  for (auto [end, overhang] : llvm::zip(geometry.padsEnd, geometry.overhang))
    high.push_back(end + overhang);
  return buildPad(ctx, input ? input : ctx.getInput(0), low, high, padValue);
}

/// A reduction over the windows of `padded`: loops (n, c, output...,
/// kernel...), the kernel loops reduced.
SmallVector<Value> buildWindowReduction(NodeContext &ctx, Value padded,
                                        const WindowGeometry &geometry,
                                        ValueRange inits,
                                        ReductionBodyFn body) {
  MLIRContext *context = ctx.getContext();
  auto shape = cast<RankedTensorType>(padded.getType()).getShape();
  int64_t spatial = geometry.kernel.size();
  SmallVector<int64_t> domain{shape[0], shape[1]}, axes;
  domain.append(geometry.output);
  domain.append(geometry.kernel);
  SmallVector<AffineExpr> exprs{getAffineDimExpr(0, context),
                                getAffineDimExpr(1, context)};
  for (int64_t i = 0; i < spatial; ++i) {
    exprs.push_back(getAffineDimExpr(2 + i, context) * geometry.strides[i] +
                    getAffineDimExpr(2 + spatial + i, context) *
                        geometry.dilations[i]);
    axes.push_back(2 + spatial + i);
  }
  // Like the named pooling ops, an (unread) window operand gives the kernel
  // loops their bounds.
  Value window = ctx.createEmpty(
      geometry.kernel,
      cast<RankedTensorType>(padded.getType()).getElementType());
  return buildReduction(ctx, domain, axes, {padded, window},
                        {AffineMap::get(domain.size(), 0, exprs, context),
                         getDimsMap(context, domain.size(), axes)},
                        inits, body);
}

/// Max or sum over the windows of `padded`, starting from `init`.
Value buildPool(NodeContext &ctx, Value padded, const WindowGeometry &geometry,
                Value init, PoolKind kind) {
  OpBuilder &b = ctx.getBuilder();
  Location loc = ctx.getLoc();
  auto shape = cast<RankedTensorType>(padded.getType()).getShape();
  int64_t spatial = geometry.kernel.size();
  // 2-D pools are named ops. 1-D ones are generics: the strategy does not
  // tile pooling ops, and the 1-D pooling vectorizer unrolls the kernel over
  // vectors as wide as the whole output (minutes of compile time for
  // PyTorch's MaxPool1d with a 200-wide kernel).
  if (kind != PoolKind::MaxUnsigned && spatial == 2) {
    SmallVector<int64_t> outputShape{shape[0], shape[1]};
    outputShape.append(geometry.output);
    Value output = ctx.createFilled(outputShape, init);
    Value window = ctx.createEmpty(geometry.kernel, init.getType());
    SmallVector<Value> inputs{padded, window};
    Attribute strides = b.getI64TensorAttr(geometry.strides);
    Attribute dilations = b.getI64TensorAttr(geometry.dilations);
    auto create = [&](auto op) -> Value {
      return decltype(op)::create(b, loc, output.getType(), inputs, output,
                                  strides, dilations)
          .getResult(0);
    };
    if (kind == PoolKind::Max)
      return create(linalg::PoolingNchwMaxOp());
    return create(linalg::PoolingNchwSumOp());
  }
  return buildWindowReduction(
      ctx, padded, geometry, init,
      [&](OpBuilder &b, Location loc, ValueRange args,
          ValueRange accs) -> SmallVector<Value> {
        Value x = args[0], acc = accs[0];
        if (kind == PoolKind::Sum)
          return {isa<FloatType>(x.getType())
                      ? arith::AddFOp::create(b, loc, acc, x).getResult()
                      : arith::AddIOp::create(b, loc, acc, x).getResult()};
        if (isa<FloatType>(x.getType()))
          return {arith::MaximumFOp::create(b, loc, acc, x)};
        if (kind == PoolKind::MaxUnsigned)
          return {arith::MaxUIOp::create(b, loc, acc, x)};
        return {arith::MaxSIOp::create(b, loc, acc, x)};
      })[0];
}

/// The lowest value of an ONNX type: -inf, the signed minimum or 0.
Value createLowest(NodeContext &ctx, OnnxDType dtype) {
  OpBuilder &b = ctx.getBuilder();
  Type type = getElementType(ctx.getContext(), dtype);
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(
        b, ctx.getLoc(),
        b.getFloatAttr(floatType,
                       APFloat::getInf(floatType.getFloatSemantics(), true)));
  unsigned width = type.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, ctx.getLoc(),
      b.getIntegerAttr(type, isUnsignedDType(dtype)
                                 ? APInt::getZero(width)
                                 : APInt::getSignedMinValue(width)));
}

/// MaxPool with its Indices output: the first maximum of each window (in
/// row-major window order) and its index in the flattened input, row-major
/// (storage_order 0) or column-major over the spatial dimensions
/// (storage_order 1). Padding never wins.
LogicalResult emitMaxPoolWithIndices(NodeContext &ctx, OnnxDType dtype,
                                     const WindowGeometry &geometry,
                                     Value padded, bool columnMajor) {
  ArrayRef<int64_t> inputShape = ctx.getInputShape(0);
  int64_t spatial = geometry.kernel.size();
  OpBuilder &builder = ctx.getBuilder();
  Value noIndex = arith::ConstantOp::create(builder, ctx.getLoc(),
                                            builder.getI64IntegerAttr(-1));
  bool isFloat = isFloatDType(dtype), isUnsigned = isUnsignedDType(dtype);
  SmallVector<Value> results = buildWindowReduction(
      ctx, padded, geometry, {createLowest(ctx, dtype), noIndex},
      [&](OpBuilder &b, Location loc, ValueRange args,
          ValueRange accs) -> SmallVector<Value> {
        auto index = [&](int64_t dim) -> Value {
          return linalg::IndexOp::create(b, loc, dim);
        };
        auto constant = [&](int64_t value) -> Value {
          return arith::ConstantIndexOp::create(b, loc, value);
        };
        // The element's position in the unpadded input, and whether it is
        // inside it.
        Value inside;
        SmallVector<Value> positions;
        for (int64_t i = 0; i < spatial; ++i) {
          Value position = arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, index(2 + i),
                                    constant(geometry.strides[i])),
              arith::MulIOp::create(b, loc, index(2 + spatial + i),
                                    constant(geometry.dilations[i])));
          position = arith::SubIOp::create(b, loc, position,
                                           constant(geometry.padsBegin[i]));
          Value inRange = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, position,
                                    constant(0)),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, position,
                                    constant(inputShape[2 + i])));
          inside =
              inside
                  ? arith::AndIOp::create(b, loc, inside, inRange).getResult()
                  : inRange;
          positions.push_back(position);
        }
        // Flattened index: the (n, c) plane, then the spatial position.
        Value flat = arith::AddIOp::create(
            b, loc,
            arith::MulIOp::create(b, loc, index(0), constant(inputShape[1])),
            index(1));
        for (int64_t i = 0; i < spatial; ++i) {
          int64_t dim = columnMajor ? spatial - 1 - i : i;
          flat = arith::AddIOp::create(
              b, loc,
              arith::MulIOp::create(b, loc, flat,
                                    constant(inputShape[2 + dim])),
              positions[dim]);
        }
        Value x = args[0], best = accs[0], bestIndex = accs[1];
        Value greater =
            isFloat
                ? arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                        best)
                      .getResult()
                : arith::CmpIOp::create(b, loc,
                                        isUnsigned ? arith::CmpIPredicate::ugt
                                                   : arith::CmpIPredicate::sgt,
                                        x, best)
                      .getResult();
        Value unset = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, bestIndex,
            arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0)));
        Value take = arith::AndIOp::create(
            b, loc, inside, arith::OrIOp::create(b, loc, greater, unset));
        Value flatI64 =
            arith::IndexCastOp::create(b, loc, b.getI64Type(), flat);
        return {arith::SelectOp::create(b, loc, take, x, best),
                arith::SelectOp::create(b, loc, take, flatI64, bestIndex)};
      });
  ctx.setOutput(0, results[0], dtype);
  ctx.setOutput(1, results[1], onnx::TensorProto::INT64);
  return success();
}

/// MaxPool of a dequantized tensor (a QDQ graph: DequantizeLinear, MaxPool,
/// QuantizeLinear), per tensor with a positive scale: the maximum commutes
/// with the dequantization, so the pool runs on the 8-bit integers (a
/// quarter of the memory of floats; a uint8 one through its signed order,
/// x ^ 0x80) and the output records them, for a QuantizeLinear of the same
/// parameters to take them as they are, as ONNX Runtime drops such a QDQ
/// pair. The float output is their dequantization: the values pooling the
/// floats gives. False when the input is not of that form.
FailureOr<bool> convertQuantizedMaxPool(NodeContext &ctx,
                                        const WindowGeometry &geometry) {
  const QuantizedOrigin *origin =
      ctx.getQuantizedOrigin(0, QuantizedOrigin::Kind::Dequantized);
  if (!origin || origin->axis >= 0 || origin->scale.getNumElements() != 1)
    return false;
  OnnxDType dtype = origin->integer->dtype;
  float scale = *origin->scale.getValues<float>().begin();
  if ((dtype != onnx::TensorProto::UINT8 && dtype != onnx::TensorProto::INT8) ||
      !std::isfinite(scale) || !(scale > 0))
    return false;
  bool isUnsigned = dtype == onnx::TensorProto::UINT8;
  Value integers = ctx.materialize(*origin->integer);
  if (isUnsigned) {
    FailureOr<Value> shifted = shiftToSigned(ctx, integers);
    if (failed(shifted))
      return failure();
    integers = *shifted;
  }
  OpBuilder &b = ctx.getBuilder();
  Value lowest = arith::ConstantOp::create(
      b, ctx.getLoc(), b.getIntegerAttr(b.getI8Type(), -128));
  Value pooled = buildPool(ctx, padInput(ctx, geometry, lowest, integers),
                           geometry, lowest, PoolKind::Max);
  if (isUnsigned) {
    FailureOr<Value> unshifted = shiftToSigned(ctx, pooled);
    if (failed(unshifted))
      return failure();
    pooled = *unshifted;
  }
  SmallVector<Value> operands = {pooled};
  if (origin->zeroPoint)
    operands.push_back(arith::ConstantOp::create(
        b, ctx.getLoc(),
        DenseElementsAttr::get(RankedTensorType::get({}, b.getI8Type()),
                               *origin->zeroPoint.getValues<APInt>().begin())));
  constexpr OnnxDType i32 = onnx::TensorProto::INT32;
  FailureOr<Value> dequantized = buildElementwise(
      ctx, operands, b.getF32Type(),
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value x = castScalar(b, loc, args[0], dtype, i32);
        if (args.size() > 1)
          x = arith::SubIOp::create(b, loc, x,
                                    castScalar(b, loc, args[1], dtype, i32));
        Value scaleValue =
            arith::ConstantOp::create(b, loc, b.getF32FloatAttr(scale));
        return arith::MulFOp::create(
            b, loc, castScalar(b, loc, x, i32, onnx::TensorProto::FLOAT),
            scaleValue);
      });
  if (failed(dequantized))
    return failure();
  ctx.setOutput(0, *dequantized, onnx::TensorProto::FLOAT);
  auto pooledOrigin = std::make_shared<QuantizedOrigin>(*origin);
  pooledOrigin->integer = ctx.createRecord(pooled, dtype);
  ctx.setQuantizedOrigin(0, std::move(pooledOrigin));
  return true;
}

/// MaxPool (with ceil_mode, dilations, the optional Indices output) and
/// GlobalMaxPool.
LogicalResult convertMaxPool(NodeContext &ctx, bool global) {
  FailureOr<OnnxDType> dtype = checkPoolInput(ctx, true);
  if (failed(dtype))
    return failure();
  int64_t storageOrder = ctx.getAttrInt("storage_order", 0);
  if (storageOrder != 0 && storageOrder != 1)
    return ctx.emitError() << "storage_order must be 0 or 1";
  FailureOr<WindowGeometry> geometry =
      getPoolGeometry(ctx, global, ctx.getAttrInt("ceil_mode", 0) != 0);
  if (failed(geometry))
    return failure();
  bool withIndices = ctx.getNumOutputs() > 1 && ctx.hasOutput(1);
  if (!withIndices)
    if (FailureOr<bool> done = convertQuantizedMaxPool(ctx, *geometry);
        failed(done) || *done)
      return failure(failed(done));
  Value lowest = createLowest(ctx, *dtype);
  Value padded = padInput(ctx, *geometry, lowest);
  if (withIndices)
    return emitMaxPoolWithIndices(ctx, *dtype, *geometry, padded,
                                  storageOrder == 1);
  PoolKind kind =
      isUnsignedDType(*dtype) ? PoolKind::MaxUnsigned : PoolKind::Max;
  ctx.setOutput(0, buildPool(ctx, padded, *geometry, lowest, kind), *dtype);
  return success();
}

/// The number of window elements in [low, high) for each output position
/// along one spatial dimension.
SmallVector<int64_t> countWindowElements(const WindowGeometry &geometry,
                                         int64_t dim, int64_t low,
                                         int64_t high) {
  SmallVector<int64_t> counts;
  for (int64_t o = 0; o < geometry.output[dim]; ++o) {
    int64_t count = 0;
    for (int64_t k = 0; k < geometry.kernel[dim]; ++k) {
      int64_t position =
          o * geometry.strides[dim] + k * geometry.dilations[dim];
      count += position >= low && position < high;
    }
    counts.push_back(count);
  }
  return counts;
}

/// AveragePool and GlobalAveragePool: the window sums divided by the number
/// of elements inside the input (count_include_pad = 0) or the padded input
/// (count_include_pad = 1); never the ceil_mode overhang.
LogicalResult convertAveragePool(NodeContext &ctx, bool global) {
  FailureOr<OnnxDType> dtype = checkPoolInput(ctx, false);
  if (failed(dtype))
    return failure();
  FailureOr<WindowGeometry> geometry =
      getPoolGeometry(ctx, global, ctx.getAttrInt("ceil_mode", 0) != 0);
  if (failed(geometry))
    return failure();
  bool includePad = ctx.getAttrInt("count_include_pad", 0) != 0;
  Type elementType = ctx.getInputType(0).getElementType();
  Value zero = ctx.createScalar(elementType, 0);
  Value sums = buildPool(ctx, padInput(ctx, *geometry, zero), *geometry, zero,
                         PoolKind::Sum);

  // Divisors: a product of per-dimension counts.
  ArrayRef<int64_t> inputShape = ctx.getInputShape(0);
  int64_t spatial = geometry->kernel.size();
  SmallVector<SmallVector<int64_t>> counts;
  bool uniform = true;
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t begin = geometry->padsBegin[i], input = inputShape[2 + i];
    counts.push_back(countWindowElements(
        *geometry, i, includePad ? 0 : begin,
        begin + input + (includePad ? geometry->padsEnd[i] : 0)));
    // An empty output (a dimension of size 0) divides nothing: any count.
    if (counts.back().empty())
      counts.back().push_back(1);
    uniform &= llvm::all_equal(counts.back());
  }
  auto floatType = cast<FloatType>(elementType);
  SmallVector<APFloat> divisors;
  SmallVector<int64_t> position(spatial, 0);
  int64_t total = 1;
  for (int64_t size : geometry->output)
    total *= uniform ? 1 : size;
  for (int64_t flat = 0; flat < total; ++flat) {
    int64_t rest = flat, divisor = 1;
    for (int64_t i = spatial - 1; i >= 0; --i) {
      int64_t size = uniform ? 1 : geometry->output[i];
      divisor *= counts[i][rest % size];
      rest /= size;
    }
    APFloat value(static_cast<double>(divisor));
    bool losesInfo;
    value.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                  &losesInfo);
    divisors.push_back(value);
  }
  SmallVector<int64_t> divisorShape =
      uniform ? SmallVector<int64_t>{} : SmallVector<int64_t>(geometry->output);
  Value divisor = arith::ConstantOp::create(
      ctx.getBuilder(), ctx.getLoc(),
      DenseElementsAttr::get(RankedTensorType::get(divisorShape, elementType),
                             divisors));
  FailureOr<Value> result = buildElementwise(
      ctx, {sums, divisor}, elementType,
      [](OpBuilder &b, Location loc, ValueRange args) -> Value {
        return arith::DivFOp::create(b, loc, args[0], args[1]);
      });
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result, *dtype);
  return success();
}

/// LpPool and GlobalLpPool: (sum over the window of |x|^p)^(1/p), zero
/// padding contributing nothing.
LogicalResult convertLpPool(NodeContext &ctx, bool global) {
  FailureOr<OnnxDType> dtype = checkPoolInput(ctx, false);
  if (failed(dtype))
    return failure();
  int64_t p = ctx.getAttrInt("p", 2);
  if (p < 1)
    return ctx.unsupported("p < 1");
  FailureOr<WindowGeometry> geometry = getPoolGeometry(ctx, global, false);
  if (failed(geometry))
    return failure();
  Type elementType = ctx.getInputType(0).getElementType();
  Value zero = ctx.createScalar(elementType, 0);
  auto constant = [&](OpBuilder &b, Location loc, double value) -> Value {
    return arith::ConstantOp::create(b, loc,
                                     b.getFloatAttr(elementType, value));
  };
  Value sums = buildWindowReduction(
      ctx, padInput(ctx, *geometry, zero), *geometry, zero,
      [&](OpBuilder &b, Location loc, ValueRange args,
          ValueRange accs) -> SmallVector<Value> {
        Value x = args[0], term;
        if (p == 2)
          term = arith::MulFOp::create(b, loc, x, x);
        else if (p == 1)
          term = math::AbsFOp::create(b, loc, x);
        else
          term = math::PowFOp::create(b, loc, math::AbsFOp::create(b, loc, x),
                                      constant(b, loc, p));
        return {arith::AddFOp::create(b, loc, accs[0], term)};
      })[0];
  Value result = sums;
  if (p != 1) {
    FailureOr<Value> root = buildElementwise(
        ctx, sums, elementType,
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          if (p == 2)
            return math::SqrtOp::create(b, loc, args[0]);
          return math::PowFOp::create(b, loc, args[0],
                                      constant(b, loc, 1.0 / p));
        });
    if (failed(root))
      return failure();
    result = *root;
  }
  ctx.setOutput(0, result, *dtype);
  return success();
}

} // namespace

void onnx_import::registerPoolingConverters(ConverterRegistry &registry) {
  auto bind = [](LogicalResult (*fn)(NodeContext &, bool), bool global) {
    return [fn, global](NodeContext &ctx) { return fn(ctx, global); };
  };
  registry.add("MaxPool", {1, 8, 10, 11, 12}, bind(convertMaxPool, false));
  registry.add("GlobalMaxPool", {1}, bind(convertMaxPool, true));
  registry.add("AveragePool", {1, 7, 10, 11}, bind(convertAveragePool, false));
  registry.add("GlobalAveragePool", {1}, bind(convertAveragePool, true));
  registry.add("LpPool", {2, 11}, bind(convertLpPool, false));
  registry.add("GlobalLpPool", {2}, bind(convertLpPool, true));
}
