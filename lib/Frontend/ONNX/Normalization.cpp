//===- Normalization.cpp - ONNX normalization converters ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// BatchNormalization, InstanceNormalization, LayerNormalization,
// LpNormalization, LRN and MeanVarianceNormalization. The statistics are
// reductions (buildReduction) in the reduced shape; the normalization itself
// is one parallel `linalg.generic` that reads them broadcast along the
// reduced axes, so the placement pass can fuse the whole op into one loop
// nest per row.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

namespace {

Value createFloat(OpBuilder &b, Location loc, Type type, double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

/// The number of elements of `shape` along `axes`.
int64_t countAlong(ArrayRef<int64_t> shape, ArrayRef<int64_t> axes) {
  int64_t count = 1;
  for (int64_t axis : axes)
    count *= shape[axis];
  return count;
}

/// The mean and the (population) variance of float `x` over `axes`, in the
/// reduced shape. Two passes: the variance is the mean of (x - mean)^2, as
/// numpy's var.
std::pair<Value, Value> buildMoments(NodeContext &ctx, Value x,
                                     ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  double count = double(countAlong(type.getShape(), axes));
  Value zero = ctx.createScalar(element, 0);
  auto divideByCount = [&](Value sum) {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(sum.getType()).getShape();
    return buildParallel(
        ctx, shape, sum,
        AffineMap::getMultiDimIdentityMap(shape.size(), ctx.getContext()),
        element, [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::DivFOp::create(b, loc, args[0],
                                       createFloat(b, loc, element, count));
        });
  };
  Value sum = reduceOverAxes(
      ctx, x, axes, zero, {},
      [](OpBuilder &b, Location loc, Value x, ValueRange, Value acc) -> Value {
        return arith::AddFOp::create(b, loc, acc, x);
      });
  Value mean = divideByCount(sum);
  Value squares =
      reduceOverAxes(ctx, x, axes, zero, mean,
                     [](OpBuilder &b, Location loc, Value x, ValueRange reduced,
                        Value acc) -> Value {
                       Value diff =
                           arith::SubFOp::create(b, loc, x, reduced[0]);
                       Value square = arith::MulFOp::create(b, loc, diff, diff);
                       return arith::AddFOp::create(b, loc, acc, square);
                     });
  return {mean, divideByCount(squares)};
}

/// (x - mean) / sqrt(var + epsilon) * scale + bias over the shape of `x`,
/// with `stats` = {mean, var, scale, bias} read through `statMaps`.
Value buildAffineNormalize(NodeContext &ctx, Value x, ArrayRef<Value> stats,
                           ArrayRef<AffineMap> statMaps, double epsilon) {
  auto type = cast<RankedTensorType>(x.getType());
  Type element = type.getElementType();
  SmallVector<Value> inputs{x};
  llvm::append_range(inputs, stats);
  SmallVector<AffineMap> maps{
      AffineMap::getMultiDimIdentityMap(type.getRank(), ctx.getContext())};
  llvm::append_range(maps, statMaps);
  return buildParallel(
      ctx, type.getShape(), inputs, maps, element,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value centered = arith::SubFOp::create(b, loc, args[0], args[1]);
        Value var = arith::AddFOp::create(
            b, loc, args[2], createFloat(b, loc, element, epsilon));
        Value std = math::SqrtOp::create(b, loc, var);
        Value normalized = arith::DivFOp::create(b, loc, centered, std);
        Value scaled = arith::MulFOp::create(b, loc, normalized, args[3]);
        return arith::AddFOp::create(b, loc, scaled, args[4]);
      });
}

/// Input `index` converted to ONNX type `dtype` when it has another float
/// type (BatchNormalization-15 allows different parameter types).
Value getInputAs(NodeContext &ctx, unsigned index, OnnxDType dtype) {
  return castTensor(ctx, ctx.getInput(index), ctx.getInputDType(index), dtype);
}

FailureOr<OnnxDType> requireFloatInput(NodeContext &ctx) {
  OnnxDType dtype = ctx.getInputDType(0);
  if (!isFloatDType(dtype))
    return ctx.unsupported(Twine("element type ") + getOnnxDTypeName(dtype));
  return dtype;
}

/// Checks that input `index` has shape `expected`.
LogicalResult checkInputShape(NodeContext &ctx, unsigned index, StringRef what,
                              ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> shape = ctx.getInputShape(index);
  if (shape == expected)
    return success();
  return ctx.emitError() << what << " has shape ["
                         << llvm::make_range(shape.begin(), shape.end())
                         << "]; expected ["
                         << llvm::make_range(expected.begin(), expected.end())
                         << "]";
}

//===----------------------------------------------------------------------===//
// BatchNormalization
//===----------------------------------------------------------------------===//

/// Inference: Y = (X - mean) / sqrt(var + epsilon) * scale + B with the
/// given statistics. Training (version 14 on, training_mode = 1): the
/// statistics are those of the batch (over every axis but the channel axis
/// 1), and the optional outputs are the running statistics
/// input_mean * momentum + batch_mean * (1 - momentum) (same for var).
LogicalResult convertBatchNormalization(NodeContext &ctx) {
  FailureOr<OnnxDType> dtype = requireFloatInput(ctx);
  if (failed(dtype))
    return failure();
  int64_t since = ctx.getSinceVersion();
  bool training = since >= 14 && ctx.getAttrInt("training_mode", 0) != 0;
  if (since < 14 && (ctx.hasOutput(1) || ctx.hasOutput(2) || ctx.hasOutput(3) ||
                     ctx.hasOutput(4)))
    return ctx.unsupported("the training outputs of BatchNormalization "
                           "before version 14 (mean, var, saved_mean, "
                           "saved_var)");
  if (!training && (ctx.hasOutput(1) || ctx.hasOutput(2)))
    return ctx.emitError()
           << "running_mean and running_var are outputs in training mode only";
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  if (rank < 2)
    return ctx.emitError() << "the input must have rank 2 or more";
  // The parameters have shape (C), or before version 9 with spatial = 0 the
  // per-activation shape (C, D1, ..., Dn).
  bool spatial = ctx.getAttrInt("spatial", 1) != 0;
  SmallVector<int64_t> paramDims{1};
  if (!spatial)
    for (int64_t dim = 2; dim < rank; ++dim)
      paramDims.push_back(dim);
  if (!spatial && training)
    return ctx.unsupported("training with spatial = 0");
  SmallVector<int64_t> paramShape;
  for (int64_t dim : paramDims)
    paramShape.push_back(shape[dim]);
  static const char *const names[] = {"scale", "B", "input_mean", "input_var"};
  for (unsigned i = 1; i <= 4; ++i)
    if (failed(checkInputShape(ctx, i, names[i - 1], paramShape)))
      return failure();

  double epsilon = ctx.getAttrFloat("epsilon", 1e-5f);
  Value x = ctx.getInput(0);
  AffineMap paramMap = getDimsMap(ctx.getContext(), rank, paramDims);
  Value scale = getInputAs(ctx, 1, *dtype);
  Value bias = getInputAs(ctx, 2, *dtype);
  if (!training) {
    Value y = buildAffineNormalize(
        ctx, x,
        {getInputAs(ctx, 3, *dtype), getInputAs(ctx, 4, *dtype), scale, bias},
        SmallVector<AffineMap>(4, paramMap), epsilon);
    ctx.setOutput(0, y, *dtype);
    return success();
  }

  SmallVector<int64_t> axes = getKeptDims(rank, paramDims);
  auto [mean, var] = buildMoments(ctx, x, axes);
  Value y = buildAffineNormalize(ctx, x, {mean, var, scale, bias},
                                 SmallVector<AffineMap>(4, paramMap), epsilon);
  ctx.setOutput(0, y, *dtype);
  double momentum = ctx.getAttrFloat("momentum", 0.9f);
  for (auto [output, batch] : {std::pair<unsigned, Value>(1, mean), {2, var}}) {
    if (!ctx.hasOutput(output))
      continue;
    unsigned input = output + 2;
    OnnxDType statDType = ctx.getInputDType(input);
    Type element = getElementType(ctx.getContext(), *dtype);
    FailureOr<Value> running = buildElementwise(
        ctx, {getInputAs(ctx, input, *dtype), batch}, element,
        [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
          Value old = arith::MulFOp::create(
              b, loc, args[0], createFloat(b, loc, element, momentum));
          Value current = arith::MulFOp::create(
              b, loc, args[1], createFloat(b, loc, element, 1 - momentum));
          return arith::AddFOp::create(b, loc, old, current);
        });
    if (failed(running))
      return failure();
    ctx.setOutput(output, castTensor(ctx, *running, *dtype, statDType),
                  statDType);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// InstanceNormalization
//===----------------------------------------------------------------------===//

/// Y = scale * (X - mean) / sqrt(var + epsilon) + B with the statistics of
/// each (n, c) over the spatial axes 2...
LogicalResult convertInstanceNormalization(NodeContext &ctx) {
  FailureOr<OnnxDType> dtype = requireFloatInput(ctx);
  if (failed(dtype))
    return failure();
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  if (rank < 3)
    return ctx.emitError() << "the input must have rank 3 or more";
  for (unsigned i = 1; i <= 2; ++i)
    if (failed(checkInputShape(ctx, i, i == 1 ? "scale" : "B", shape[1])))
      return failure();
  SmallVector<int64_t> axes = getKeptDims(rank, {0, 1});
  Value x = ctx.getInput(0);
  auto [mean, var] = buildMoments(ctx, x, axes);
  MLIRContext *context = ctx.getContext();
  AffineMap statMap = getDimsMap(context, rank, {0, 1});
  AffineMap channelMap = getDimsMap(context, rank, int64_t(1));
  Value y = buildAffineNormalize(ctx, x,
                                 {mean, var, ctx.getInput(1), ctx.getInput(2)},
                                 {statMap, statMap, channelMap, channelMap},
                                 ctx.getAttrFloat("epsilon", 1e-5f));
  ctx.setOutput(0, y, *dtype);
  return success();
}

//===----------------------------------------------------------------------===//
// LayerNormalization
//===----------------------------------------------------------------------===//

/// The map reading an operand of `operandShape` numpy-broadcast over the
/// iteration domain `shape` (aligned at the trailing dimensions); failure
/// when the operand does not broadcast to `shape` itself.
FailureOr<AffineMap> getUnidirectionalBroadcastMap(NodeContext &ctx,
                                                   unsigned index,
                                                   ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> operandShape = ctx.getInputShape(index);
  int64_t offset = int64_t(shape.size()) - int64_t(operandShape.size());
  MLIRContext *context = ctx.getContext();
  SmallVector<AffineExpr> exprs;
  for (auto [i, size] : llvm::enumerate(operandShape)) {
    if (offset < 0 || (size != 1 && size != shape[offset + i]))
      return ctx.emitError()
             << "input " << index << " of shape ["
             << llvm::make_range(operandShape.begin(), operandShape.end())
             << "] does not broadcast to ["
             << llvm::make_range(shape.begin(), shape.end()) << "]";
    exprs.push_back(size == 1 ? getAffineConstantExpr(0, context)
                              : getAffineDimExpr(offset + i, context));
  }
  return AffineMap::get(shape.size(), 0, exprs, context);
}

/// Version 17. The statistics over the axes from `axis` on are computed in
/// the stash type: Y = ((X - mean) * inv_std_dev) * Scale + B with
/// inv_std_dev = 1 / sqrt(var + epsilon); the optional outputs Mean and
/// InvStdDev keep the reduced axes as unit dimensions.
LogicalResult convertLayerNormalization(NodeContext &ctx) {
  FailureOr<OnnxDType> dtype = requireFloatInput(ctx);
  if (failed(dtype))
    return failure();
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getAttrInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  OnnxDType stash = ctx.getAttrInt("stash_type", onnx::TensorProto::FLOAT);
  if (!isFloatDType(stash))
    return ctx.unsupported("stash_type " + std::to_string(stash));
  FailureOr<AffineMap> scaleMap = getUnidirectionalBroadcastMap(ctx, 1, shape);
  if (failed(scaleMap))
    return failure();
  bool hasBias = ctx.hasInput(2);
  FailureOr<AffineMap> biasMap =
      hasBias ? getUnidirectionalBroadcastMap(ctx, 2, shape) : scaleMap;
  if (failed(biasMap))
    return failure();

  SmallVector<int64_t> axes;
  for (int64_t dim = *axis; dim < rank; ++dim)
    axes.push_back(dim);
  Value x = castTensor(ctx, ctx.getInput(0), *dtype, stash);
  Type stashType = getElementType(ctx.getContext(), stash);
  Type element = ctx.getInputType(0).getElementType();
  auto [mean, var] = buildMoments(ctx, x, axes);
  double epsilon = ctx.getAttrFloat("epsilon", 1e-5f);
  ArrayRef<int64_t> reducedShape =
      cast<RankedTensorType>(mean.getType()).getShape();
  Value invStdDev = buildParallel(
      ctx, reducedShape, var,
      AffineMap::getMultiDimIdentityMap(reducedShape.size(), ctx.getContext()),
      stashType, [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value sum = arith::AddFOp::create(
            b, loc, args[0], createFloat(b, loc, stashType, epsilon));
        Value std = math::SqrtOp::create(b, loc, sum);
        return arith::DivFOp::create(b, loc, createFloat(b, loc, stashType, 1),
                                     std);
      });

  SmallVector<Value> inputs{x, mean, invStdDev, ctx.getInput(1)};
  AffineMap reducedMap =
      getDimsMap(ctx.getContext(), rank, getKeptDims(rank, axes));
  SmallVector<AffineMap> maps{
      AffineMap::getMultiDimIdentityMap(rank, ctx.getContext()), reducedMap,
      reducedMap, *scaleMap};
  if (hasBias) {
    inputs.push_back(ctx.getInput(2));
    maps.push_back(*biasMap);
  }
  Value y = buildParallel(
      ctx, shape, inputs, maps, element,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value centered = arith::SubFOp::create(b, loc, args[0], args[1]);
        Value normalized = arith::MulFOp::create(b, loc, centered, args[2]);
        normalized = castScalar(b, loc, normalized, stash, *dtype);
        Value scaled = arith::MulFOp::create(b, loc, normalized, args[3]);
        if (!hasBias)
          return scaled;
        return arith::AddFOp::create(b, loc, scaled, args[4]);
      });
  ctx.setOutput(0, y, *dtype);
  // An array of its own: an ArrayRef of a braced list would dangle here.
  Value stats[] = {mean, invStdDev};
  for (auto [index, stat] : llvm::enumerate(stats))
    if (ctx.hasOutput(index + 1))
      ctx.setOutput(index + 1, expandReducedDims(ctx, stat, shape, axes),
                    stash);
  return success();
}

//===----------------------------------------------------------------------===//
// LpNormalization, LRN, MeanVarianceNormalization
//===----------------------------------------------------------------------===//

/// x / ||x||_p along `axis`, p = 1 or 2 (a zero norm divides by zero).
LogicalResult convertLpNormalization(NodeContext &ctx) {
  FailureOr<OnnxDType> dtype = requireFloatInput(ctx);
  if (failed(dtype))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getAttrInt("axis", -1), ctx.getInputRank(0));
  if (failed(axis))
    return failure();
  int64_t p = ctx.getAttrInt("p", 2);
  if (p != 1 && p != 2)
    return ctx.unsupported("p = " + std::to_string(p) + " (only 1 and 2)");
  Value x = ctx.getInput(0);
  Type element = ctx.getInputType(0).getElementType();
  Value norm = reduceOverAxes(
      ctx, x, *axis, ctx.createScalar(element, 0), {},
      [&](OpBuilder &b, Location loc, Value x, ValueRange, Value acc) -> Value {
        Value term = p == 1 ? math::AbsFOp::create(b, loc, x).getResult()
                            : arith::MulFOp::create(b, loc, x, x).getResult();
        return arith::AddFOp::create(b, loc, acc, term);
      });
  Value y =
      mapWithReduced(ctx, x, norm, *axis, element,
                     [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
                       Value norm = args[1];
                       if (p == 2)
                         norm = math::SqrtOp::create(b, loc, norm);
                       return arith::DivFOp::create(b, loc, args[0], norm);
                     });
  ctx.setOutput(0, y, *dtype);
  return success();
}

/// Local response normalization across channels:
///   y = x / (bias + alpha / size * square_sum)^beta
/// where square_sum sums x^2 over the channels
/// [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] that exist. The
/// input is zero-padded along the channels, and one generic over
/// (N, C, D..., size) sums the window (its last loop) with the map
/// (n, c + k, d...).
LogicalResult convertLRN(NodeContext &ctx) {
  FailureOr<OnnxDType> dtype = requireFloatInput(ctx);
  if (failed(dtype))
    return failure();
  FailureOr<int64_t> size = ctx.getRequiredAttrInt("size");
  if (failed(size))
    return failure();
  if (*size < 1)
    return ctx.emitError() << "size must be positive, not " << *size;
  RankedTensorType type = ctx.getInputType(0);
  ArrayRef<int64_t> shape = type.getShape();
  int64_t rank = shape.size();
  if (rank < 2)
    return ctx.emitError() << "the input must have rank 2 or more";
  Type element = type.getElementType();
  OpBuilder &builder = ctx.getBuilder();
  Location loc = ctx.getLoc();
  int64_t before = (*size - 1) / 2, after = *size - 1 - before;
  SmallVector<OpFoldResult> low(rank, builder.getIndexAttr(0));
  SmallVector<OpFoldResult> high(rank, builder.getIndexAttr(0));
  low[1] = builder.getIndexAttr(before);
  high[1] = builder.getIndexAttr(after);
  SmallVector<int64_t> paddedShape(shape);
  paddedShape[1] += *size - 1;
  Value x = ctx.getInput(0);
  Value padded = tensor::PadOp::create(
      builder, loc, RankedTensorType::get(paddedShape, element), x, low, high,
      ctx.createScalar(element, 0));

  MLIRContext *context = ctx.getContext();
  SmallVector<int64_t> domain(shape);
  domain.push_back(*size);
  SmallVector<AffineExpr> window;
  for (int64_t dim = 0; dim < rank; ++dim)
    window.push_back(getAffineDimExpr(dim, context));
  window[1] = window[1] + getAffineDimExpr(rank, context);
  // The (unread) window operand indexed by k makes the loop bounds
  // derivable from the operands, as in linalg's pooling ops.
  Value windowShape = ctx.createEmpty(*size, element);
  Value squareSum =
      buildReduction(ctx, domain, rank, {padded, windowShape},
                     {AffineMap::get(rank + 1, 0, window, context),
                      getDimsMap(context, rank + 1, rank)},
                     ctx.createScalar(element, 0),
                     [](OpBuilder &b, Location loc, ValueRange args,
                        ValueRange accs) -> SmallVector<Value> {
                       Value square =
                           arith::MulFOp::create(b, loc, args[0], args[0]);
                       return {arith::AddFOp::create(b, loc, accs[0], square)};
                     })[0];

  double alpha = ctx.getAttrFloat("alpha", 1e-4f);
  double beta = ctx.getAttrFloat("beta", 0.75f);
  double bias = ctx.getAttrFloat("bias", 1.0f);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, context);
  Value y = buildParallel(
      ctx, shape, {x, squareSum}, {identity, identity}, element,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value scaled = arith::MulFOp::create(
            b, loc, args[1], createFloat(b, loc, element, alpha / *size));
        Value base = arith::AddFOp::create(b, loc, scaled,
                                           createFloat(b, loc, element, bias));
        Value denominator = math::PowFOp::create(
            b, loc, base, createFloat(b, loc, element, beta));
        return arith::DivFOp::create(b, loc, args[0], denominator);
      });
  ctx.setOutput(0, y, *dtype);
  return success();
}

/// (X - E[X]) / (sqrt(E[X^2] - E[X]^2) + 1e-9) over `axes`, as the
/// schema's function body computes it. One generic sums x and x^2.
LogicalResult convertMeanVarianceNormalization(NodeContext &ctx) {
  FailureOr<OnnxDType> dtype = requireFloatInput(ctx);
  if (failed(dtype))
    return failure();
  RankedTensorType type = ctx.getInputType(0);
  ArrayRef<int64_t> shape = type.getShape();
  FailureOr<SmallVector<int64_t>> axes =
      normalizeAxes(ctx, ctx.getAttrInts("axes", {0, 2, 3}), type.getRank());
  if (failed(axes))
    return failure();
  Type element = type.getElementType();
  Value x = ctx.getInput(0);
  Value zero = ctx.createScalar(element, 0);
  SmallVector<Value> sums = buildReduction(
      ctx, shape, *axes, x,
      AffineMap::getMultiDimIdentityMap(shape.size(), ctx.getContext()),
      {zero, zero},
      [](OpBuilder &b, Location loc, ValueRange args,
         ValueRange accs) -> SmallVector<Value> {
        Value square = arith::MulFOp::create(b, loc, args[0], args[0]);
        return {arith::AddFOp::create(b, loc, accs[0], args[0]),
                arith::AddFOp::create(b, loc, accs[1], square)};
      });
  double count = double(countAlong(shape, *axes));
  // The function body's epsilon is the float constant 1e-9.
  double epsilon = 1e-9f;
  Value y = mapWithReduced(
      ctx, x, sums, *axes, element,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value n = createFloat(b, loc, element, count);
        Value mean = arith::DivFOp::create(b, loc, args[1], n);
        Value meanOfSquares = arith::DivFOp::create(b, loc, args[2], n);
        Value squaredMean = arith::MulFOp::create(b, loc, mean, mean);
        Value var = arith::SubFOp::create(b, loc, meanOfSquares, squaredMean);
        Value std = math::SqrtOp::create(b, loc, var);
        std = arith::AddFOp::create(b, loc, std,
                                    createFloat(b, loc, element, epsilon));
        Value centered = arith::SubFOp::create(b, loc, args[0], mean);
        return arith::DivFOp::create(b, loc, centered, std);
      });
  ctx.setOutput(0, y, *dtype);
  return success();
}

} // namespace

void onnx_import::registerNormalizationConverters(ConverterRegistry &registry) {
  registry.add("BatchNormalization", {6, 7, 9, 14, 15},
               convertBatchNormalization);
  registry.add("InstanceNormalization", {6}, convertInstanceNormalization);
  registry.add("LayerNormalization", {17}, convertLayerNormalization);
  registry.add("LpNormalization", {1}, convertLpNormalization);
  registry.add("LRN", {1, 13}, convertLRN);
  registry.add("MeanVarianceNormalization", {9, 13},
               convertMeanVarianceNormalization);
}
