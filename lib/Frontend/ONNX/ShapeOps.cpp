//===- ShapeOps.cpp - ONNX shape and data-movement converters -------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Ops that compute shapes or move data without arithmetic: Shape, Size,
// Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice,
// Expand, Tile, Pad, ConstantOfShape, Range, EyeLike, DepthToSpace and
// SpaceToDepth (the gather/scatter family lives in DataMovement.cpp).
//
// Every converter folds when its operands are compile-time constants, so that
// PyTorch's Shape -> Gather -> Concat -> Unsqueeze -> Reshape chains become
// static shapes; otherwise it lowers to the tensor dialect (slices, reshapes,
// concat, pad) or to linalg (transpose, broadcast, generic).
//
//===----------------------------------------------------------------------===//

#include "Converter.h"
#include "orchestra/Support/Limits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

DenseElementsAttr getI64Attr(MLIRContext *context, ArrayRef<int64_t> values,
                             bool scalar = false) {
  auto type = RankedTensorType::get(
      scalar ? ArrayRef<int64_t>{} : ArrayRef<int64_t>{int64_t(values.size())},
      IntegerType::get(context, 64));
  return DenseElementsAttr::get(type, values);
}

/// Reads the axes of Squeeze/Unsqueeze/ReduceX-style ops: the `axes`
/// attribute before `inputVersion`, else the optional input `inputIndex`.
FailureOr<SmallVector<int64_t>> getAxes(NodeContext &ctx, int inputVersion,
                                        unsigned inputIndex) {
  if (ctx.getSinceVersion() < inputVersion)
    return ctx.getAttrInts("axes");
  if (!ctx.hasInput(inputIndex))
    return SmallVector<int64_t>();
  return ctx.requireConstantInts(inputIndex, "the axes");
}

/// Validates `axes` against `rank` (in range, no repeats) and normalizes
/// them in place, keeping their order (Slice and Transpose pair them with
/// other lists).
LogicalResult normalizeAxesInOrder(NodeContext &ctx,
                                   SmallVectorImpl<int64_t> &axes,
                                   int64_t rank) {
  if (failed(normalizeAxes(ctx, axes, rank)))
    return failure();
  for (int64_t &axis : axes)
    if (axis < 0)
      axis += rank;
  return success();
}

/// Squeeze/Unsqueeze of dynamic sizes: input 0 reshaped to `shape`, its
/// shape with unit dimensions removed or inserted (the dynamic dimensions
/// keep their order).
LogicalResult reshapeDynamic(NodeContext &ctx, ArrayRef<int64_t> shape) {
  FailureOr<SmallVector<AffineExpr>> from = ctx.getInputSizes(0);
  if (failed(from))
    return failure();
  SmallVector<AffineExpr> dynamic, to;
  for (auto [size, expr] : llvm::zip(ctx.getInputShape(0), *from))
    if (ShapedType::isDynamic(size))
      dynamic.push_back(expr);
  auto it = dynamic.begin();
  for (int64_t size : shape)
    to.push_back(ShapedType::isDynamic(size)
                     ? *it++
                     : getAffineConstantExpr(size, ctx.getContext()));
  FailureOr<Value> result = reshapeToSizes(ctx, ctx.getInput(0), *from, to);
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result, ctx.getInputDType(0));
  return success();
}

/// Concat of operands with dynamic sizes, equal outside `axis` for every
/// size of the dims.
LogicalResult concatDynamic(NodeContext &ctx, int64_t axis) {
  FailureOr<SmallVector<AffineExpr>> first = ctx.getInputSizes(0);
  if (failed(first))
    return failure();
  SmallVector<Value> values;
  for (unsigned i = 0, e = ctx.getNumInputs(); i < e; ++i) {
    if (ctx.getInputDType(i) != ctx.getInputDType(0))
      return ctx.emitError() << "operands have different element types";
    FailureOr<SmallVector<AffineExpr>> sizes = ctx.getInputSizes(i);
    if (failed(sizes))
      return failure();
    if (sizes->size() != first->size())
      return ctx.emitError() << "operand " << i << " has rank " << sizes->size()
                             << "; expected " << first->size();
    for (int64_t d = 0, rank = sizes->size(); d < rank; ++d)
      if (d != axis && (*sizes)[d] != (*first)[d])
        return ctx.emitError()
               << "operand " << i << " has size " << ctx.printSize((*sizes)[d])
               << " in dimension " << d << "; expected "
               << ctx.printSize((*first)[d]);
    values.push_back(ctx.getInput(i));
  }
  if (values.size() == 1) {
    ctx.setOutput(0, values.front(), ctx.getInputDType(0));
    return success();
  }
  ctx.setOutput(
      0, tensor::ConcatOp::create(ctx.getBuilder(), ctx.getLoc(), axis, values),
      ctx.getInputDType(0));
  return success();
}

//===----------------------------------------------------------------------===//
// Converters
//===----------------------------------------------------------------------===//

/// Shape: the static shape, a constant (start/end from version 15).
LogicalResult convertShape(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  auto clampBound = [&](int64_t bound) {
    if (bound < 0)
      bound += rank;
    return std::clamp<int64_t>(bound, 0, rank);
  };
  int64_t start = clampBound(ctx.getAttrInt("start", 0));
  int64_t end =
      ctx.hasAttr("end") ? clampBound(ctx.getAttrInt("end", rank)) : rank;
  SmallVector<int64_t> dims;
  for (int64_t i = start; i < end; ++i)
    dims.push_back(shape[i]);
  ctx.setConstantOutput(0, getI64Attr(ctx.getContext(), dims),
                        onnx::TensorProto::INT64);
  return success();
}

/// Size: the number of elements, a constant scalar.
LogicalResult convertSize(NodeContext &ctx) {
  ctx.setConstantOutput(0,
                        getI64Attr(ctx.getContext(),
                                   {ctx.getInputType(0).getNumElements()},
                                   /*scalar=*/true),
                        onnx::TensorProto::INT64);
  return success();
}

/// Reshape: 0 copies the input dimension (unless allowzero), -1 is inferred.
LogicalResult convertReshape(NodeContext &ctx) {
  // Dynamic shapes, or a target computed from them.
  if (ctx.getSinceVersion() >= 5 && (!ctx.getInputType(0).hasStaticShape() ||
                                     !ctx.getImportedInput(1).sizes.empty())) {
    std::optional<SmallVector<AffineExpr>> shape = ctx.getSizeInput(1);
    if (!shape)
      return ctx.emitError() << "unsupported: the target shape of a reshape of "
                                "dynamic sizes must be a constant or computed "
                                "from shapes";
    return convertDynamicReshape(ctx, *shape);
  }
  SmallVector<int64_t> target;
  if (ctx.getSinceVersion() < 5) {
    target = ctx.getAttrInts("shape");
  } else {
    FailureOr<SmallVector<int64_t>> shape =
        ctx.requireConstantInts(1, "the target shape");
    if (failed(shape))
      return failure();
    target = *shape;
  }
  ArrayRef<int64_t> inputShape = ctx.getInputShape(0);
  bool allowZero = ctx.getAttrInt("allowzero", 0) != 0;
  int64_t inferred = -1;
  int64_t known = 1;
  for (auto [i, dim] : llvm::enumerate(target)) {
    if (dim == 0 && !allowZero) {
      if (i >= inputShape.size())
        return ctx.emitError() << "target dimension " << i
                               << " copies an input dimension that does not "
                                  "exist (the input has rank "
                               << inputShape.size() << ")";
      dim = inputShape[i];
    } else if (dim == -1) {
      if (inferred >= 0)
        return ctx.emitError() << "the target shape has more than one -1";
      inferred = i;
      continue;
    } else if (dim < 0) {
      return ctx.emitError() << "invalid target dimension " << dim;
    }
    // Checked before multiplying (found by the ONNX fuzzer: a signed
    // overflow).
    if (dim != 0 && known > kMaxTensorElements / dim)
      return ctx.emitError() << "the target shape ["
                             << llvm::make_range(target.begin(), target.end())
                             << "] has more than 2^40 elements";
    known *= dim;
  }
  int64_t count = ctx.getInputType(0).getNumElements();
  if (inferred >= 0) {
    if (known == 0 || count % known != 0)
      return ctx.emitError() << "cannot infer the -1 dimension: " << count
                             << " elements do not divide into " << known;
    target[inferred] = count / known;
    known = count;
  }
  if (known != count)
    return ctx.emitError() << "cannot reshape " << count
                           << " elements to shape ["
                           << llvm::make_range(target.begin(), target.end())
                           << "]";
  TensorOperand input = getOperand(ctx, 0);
  setResult(ctx, 0, reshapeOperand(ctx, input, target), ctx.getInputDType(0));
  return success();
}

/// Flatten: [prod(d[:axis]), prod(d[axis:])].
LogicalResult convertFlatten(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  int64_t axis = ctx.getAttrInt("axis", 1);
  if (axis < -rank || axis > rank)
    return ctx.emitError() << "axis " << axis << " is out of range for rank "
                           << rank;
  if (axis < 0)
    axis += rank;
  // A dynamic dimension before the axis (a dynamic batch) makes the outer
  // size dynamic: the collapse takes it from the input.
  if (!ctx.getInputType(0).hasStaticShape()) {
    if (axis == 0 ||
        llvm::any_of(shape.drop_front(axis), ShapedType::isDynamic))
      return ctx.emitError() << "unsupported: flattening dynamic dimensions "
                                "after the axis";
    OpBuilder &b = ctx.getBuilder();
    Location loc = ctx.getLoc();
    Value input = ctx.getInput(0);
    if (axis < rank) {
      SmallVector<ReassociationIndices> groups{
          llvm::to_vector(llvm::seq<int64_t>(0, axis)),
          llvm::to_vector(llvm::seq<int64_t>(axis, rank))};
      ctx.setOutput(0, tensor::CollapseShapeOp::create(b, loc, input, groups),
                    ctx.getInputDType(0));
      return success();
    }
    // axis == rank: [d0 * ... * dn-1, 1], every dimension in the outer one
    // and a unit inner one.
    if (rank > 1)
      input = tensor::CollapseShapeOp::create(
          b, loc, input,
          SmallVector<ReassociationIndices>{
              llvm::to_vector(llvm::seq<int64_t>(0, rank))});
    auto type = RankedTensorType::get(
        {ShapedType::kDynamic, 1},
        cast<RankedTensorType>(input.getType()).getElementType());
    SmallVector<OpFoldResult> sizes{
        tensor::DimOp::create(b, loc, input, 0).getResult(), b.getIndexAttr(1)};
    ctx.setOutput(0,
                  tensor::ExpandShapeOp::create(
                      b, loc, type, input,
                      SmallVector<ReassociationIndices>{{0, 1}}, sizes),
                  ctx.getInputDType(0));
    return success();
  }
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < axis ? outer : inner) *= shape[i];
  setResult(ctx, 0, reshapeOperand(ctx, getOperand(ctx, 0), {outer, inner}),
            ctx.getInputDType(0));
  return success();
}

LogicalResult convertSqueeze(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  FailureOr<SmallVector<int64_t>> axes = getAxes(ctx, 13, 1);
  if (failed(axes))
    return failure();
  FailureOr<SmallVector<int64_t>> normalized =
      normalizeAxes(ctx, *axes, shape.size());
  if (failed(normalized))
    return failure();
  // Without axes, a dynamic dimension that may be 1 would be removed or not
  // depending on the input: the output's rank would depend on data.
  if (normalized->empty() && !ctx.getInputType(0).hasStaticShape()) {
    FailureOr<SmallVector<AffineExpr>> sizes = ctx.getInputSizes(0);
    if (failed(sizes))
      return failure();
    for (auto [i, size] : llvm::enumerate(*sizes)) {
      std::optional<int64_t> lower = ctx.getLowerBound(size);
      if (ShapedType::isDynamic(shape[i]) && (!lower || *lower <= 1))
        return ctx.emitError()
               << "unsupported: a Squeeze without axes of dynamic dimension "
               << i << " (" << ctx.printSize(size)
               << "), which may be 1: the result's rank would depend on the "
                  "input; give the axes";
    }
  }
  SmallVector<int64_t> result;
  for (auto [i, dim] : llvm::enumerate(shape)) {
    bool listed = llvm::is_contained(*normalized, int64_t(i));
    if (listed && dim != 1)
      return ctx.emitError()
             << "cannot squeeze axis " << i << " of size " << dim;
    if (listed || (normalized->empty() && dim == 1))
      continue;
    result.push_back(dim);
  }
  if (!ctx.getInputType(0).hasStaticShape())
    return reshapeDynamic(ctx, result);
  setResult(ctx, 0, reshapeOperand(ctx, getOperand(ctx, 0), result),
            ctx.getInputDType(0));
  return success();
}

LogicalResult convertUnsqueeze(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  FailureOr<SmallVector<int64_t>> axes = getAxes(ctx, 13, 1);
  if (failed(axes))
    return failure();
  int64_t rank = shape.size() + axes->size();
  FailureOr<SmallVector<int64_t>> normalized = normalizeAxes(ctx, *axes, rank);
  if (failed(normalized))
    return failure();
  SmallVector<int64_t> result;
  const int64_t *next = shape.begin();
  for (int64_t i = 0; i < rank; ++i)
    result.push_back(llvm::is_contained(*normalized, i) ? 1 : *next++);
  if (!ctx.getInputType(0).hasStaticShape())
    return reshapeDynamic(ctx, result);
  setResult(ctx, 0, reshapeOperand(ctx, getOperand(ctx, 0), result),
            ctx.getInputDType(0));
  return success();
}

LogicalResult convertTranspose(NodeContext &ctx) {
  int64_t rank = ctx.getInputRank(0);
  SmallVector<int64_t> perm = ctx.getAttrInts("perm");
  if (perm.empty() && !ctx.hasAttr("perm"))
    perm = llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
  if (failed(normalizeAxesInOrder(ctx, perm, rank)))
    return failure();
  if (int64_t(perm.size()) != rank)
    return ctx.emitError() << "perm has " << perm.size() << " entries for rank "
                           << rank;
  setResult(ctx, 0, transposeOperand(ctx, getOperand(ctx, 0), perm),
            ctx.getInputDType(0));
  return success();
}

LogicalResult convertConcat(NodeContext &ctx) {
  int64_t rank = ctx.getInputRank(0);
  FailureOr<int64_t> axis = ctx.getSinceVersion() < 4
                                ? FailureOr<int64_t>(ctx.getAttrInt("axis", 1))
                                : ctx.getRequiredAttrInt("axis");
  if (failed(axis))
    return failure();
  FailureOr<int64_t> normalized = normalizeAxis(ctx, *axis, rank);
  if (failed(normalized))
    return failure();
  bool dynamic = false;
  for (unsigned i = 0, e = ctx.getNumInputs(); i < e; ++i)
    dynamic |= !ctx.getInputType(i).hasStaticShape();
  if (dynamic)
    return concatDynamic(ctx, *normalized);
  SmallVector<TensorOperand> inputs;
  for (unsigned i = 0, e = ctx.getNumInputs(); i < e; ++i) {
    if (ctx.getInputDType(i) != ctx.getInputDType(0))
      return ctx.emitError() << "operands have different element types";
    if (ctx.getInputRank(i) != rank)
      return ctx.emitError() << "operand " << i << " has rank "
                             << ctx.getInputRank(i) << "; expected " << rank;
    for (int64_t d = 0; d < rank; ++d)
      if (d != *normalized &&
          ctx.getInputShape(i)[d] != ctx.getInputShape(0)[d])
        return ctx.emitError() << "operand " << i << " has size "
                               << ctx.getInputShape(i)[d] << " in dimension "
                               << d << "; expected " << ctx.getInputShape(0)[d];
    inputs.push_back(getOperand(ctx, i));
  }
  setResult(ctx, 0, concatOperands(ctx, inputs, *normalized),
            ctx.getInputDType(0));
  return success();
}

LogicalResult convertSplit(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getAttrInt("axis", 0), shape.size());
  if (failed(axis))
    return failure();
  int64_t dim = shape[*axis];
  SmallVector<int64_t> sizes;
  bool splitAsInput = ctx.getSinceVersion() >= 13 ||
                      (ctx.getSinceVersion() < 2 && ctx.hasInput(1));
  if (splitAsInput && ctx.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> split =
        ctx.requireConstantInts(1, "the split sizes");
    if (failed(split))
      return failure();
    sizes = *split;
  } else if (!splitAsInput) {
    sizes = ctx.getAttrInts("split");
  }
  unsigned outputs = ctx.getNumOutputs();
  if (sizes.empty()) {
    if (dim % outputs != 0)
      return ctx.emitError()
             << "cannot split dimension " << *axis << " of size " << dim
             << " into " << outputs << " equal parts";
    sizes.assign(outputs, dim / outputs);
  }
  if (sizes.size() != outputs)
    return ctx.emitError() << "split has " << sizes.size() << " sizes for "
                           << outputs << " outputs";
  if (llvm::any_of(sizes, [](int64_t s) { return s < 0; }) ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != dim)
    return ctx.emitError() << "the split sizes ["
                           << llvm::make_range(sizes.begin(), sizes.end())
                           << "] do not add up to dimension " << *axis
                           << " of size " << dim;
  TensorOperand input = getOperand(ctx, 0);
  int64_t offset = 0;
  for (auto [i, size] : llvm::enumerate(sizes)) {
    SmallVector<int64_t> offsets(shape.size(), 0), resultSizes(shape);
    offsets[*axis] = offset;
    resultSizes[*axis] = size;
    offset += size;
    if (!ctx.hasOutput(i))
      continue;
    setResult(ctx, i,
              sliceOperand(ctx, input, offsets, resultSizes,
                           SmallVector<int64_t>(shape.size(), 1)),
              ctx.getInputDType(0));
  }
  return success();
}

/// Slice: per-axis start/end/step with the spec's clamping; negative steps
/// walk backwards.
LogicalResult convertSlice(NodeContext &ctx) {
  if (ctx.getSinceVersion() >= 10 && (!ctx.getInputType(0).hasStaticShape() ||
                                      !ctx.getImportedInput(1).sizes.empty() ||
                                      !ctx.getImportedInput(2).sizes.empty()))
    return convertDynamicSlice(ctx);
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  SmallVector<int64_t> starts, ends, axes, steps;
  if (ctx.getSinceVersion() < 10) {
    starts = ctx.getAttrInts("starts");
    ends = ctx.getAttrInts("ends");
    axes = ctx.getAttrInts("axes");
  } else {
    FailureOr<SmallVector<int64_t>> s = ctx.requireConstantInts(1, "starts");
    if (failed(s))
      return failure();
    FailureOr<SmallVector<int64_t>> e = ctx.requireConstantInts(2, "ends");
    if (failed(e))
      return failure();
    starts = *s;
    ends = *e;
    if (ctx.hasInput(3)) {
      FailureOr<SmallVector<int64_t>> a = ctx.requireConstantInts(3, "axes");
      if (failed(a))
        return failure();
      axes = *a;
    }
    if (ctx.hasInput(4)) {
      FailureOr<SmallVector<int64_t>> st = ctx.requireConstantInts(4, "steps");
      if (failed(st))
        return failure();
      steps = *st;
    }
  }
  if (axes.empty())
    axes = llvm::to_vector(llvm::seq<int64_t>(0, starts.size()));
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (starts.size() != ends.size() || starts.size() != axes.size() ||
      starts.size() != steps.size())
    return ctx.emitError() << "starts, ends, axes and steps differ in length";
  if (failed(normalizeAxesInOrder(ctx, axes, rank)))
    return failure();

  SmallVector<int64_t> offsets(rank, 0), sizes(shape), strides(rank, 1);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    int64_t dim = shape[axis], step = steps[i];
    if (step == 0)
      return ctx.emitError() << "step of axis " << axis << " is 0";
    // Starts and ends are clamped to [0, dim] for positive steps and to
    // [0, dim - 1] / [-1, dim - 1] for negative ones.
    auto adjust = [&](int64_t value, int64_t lo, int64_t hi) {
      if (value < 0)
        value = value < std::numeric_limits<int64_t>::min() + dim
                    ? std::numeric_limits<int64_t>::min()
                    : value + dim;
      return std::clamp(value, lo, hi);
    };
    int64_t start, end;
    if (step > 0) {
      start = adjust(starts[i], 0, dim);
      end = adjust(ends[i], 0, dim);
    } else {
      start = adjust(starts[i], 0, dim - 1);
      end = adjust(ends[i], -1, dim - 1);
    }
    int64_t count = step > 0 ? (end - start + step - 1) / step
                             : (start - end + (-step) - 1) / (-step);
    offsets[axis] = start;
    sizes[axis] = std::max<int64_t>(count, 0);
    strides[axis] = step;
  }
  setResult(ctx, 0,
            sliceOperand(ctx, getOperand(ctx, 0), offsets, sizes, strides),
            ctx.getInputDType(0));
  return success();
}

/// Expand: numpy broadcast of the input and the shape operand.
LogicalResult convertExpand(NodeContext &ctx) {
  if (!ctx.getInputType(0).hasStaticShape() ||
      !ctx.getImportedInput(1).sizes.empty())
    return convertDynamicExpand(ctx);
  FailureOr<SmallVector<int64_t>> shape =
      ctx.requireConstantInts(1, "the target shape");
  if (failed(shape))
    return failure();
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return ctx.emitError() << "negative dimension in the target shape";
  FailureOr<SmallVector<int64_t>> result =
      getBroadcastShape(ctx, {ctx.getInputShape(0), *shape});
  if (failed(result))
    return failure();
  setResult(ctx, 0, broadcastOperand(ctx, getOperand(ctx, 0), *result),
            ctx.getInputDType(0));
  return success();
}

/// Tile: every dimension repeated `repeats[d]` times.
LogicalResult convertTile(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  FailureOr<SmallVector<int64_t>> repeats =
      ctx.requireConstantInts(1, "the repeats");
  if (failed(repeats))
    return failure();
  if (repeats->size() != shape.size())
    return ctx.emitError() << "repeats has " << repeats->size()
                           << " entries for rank " << shape.size();
  if (llvm::any_of(*repeats, [](int64_t r) { return r < 0; }))
    return ctx.emitError() << "negative repeat count";
  TensorOperand input = getOperand(ctx, 0);
  SmallVector<int64_t> resultShape;
  for (auto [dim, repeat] : llvm::zip(shape, *repeats)) {
    // Checked before multiplying (and before folding loops over the result).
    if (repeat != 0 && dim > kMaxTensorElements / repeat)
      return ctx.emitError()
             << "the repeats ["
             << llvm::make_range(repeats->begin(), repeats->end())
             << "] make a result of more than 2^40 elements";
    resultShape.push_back(dim * repeat);
  }
  if (!getBoundedElementCount(resultShape))
    return ctx.emitError() << "the repeats ["
                           << llvm::make_range(repeats->begin(), repeats->end())
                           << "] make a result of more than 2^40 elements";
  auto resultType =
      RankedTensorType::get(resultShape, input.type.getElementType());
  if (resultType.getNumElements() == 0) {
    setResult(ctx, 0,
              TensorOperand::folded(
                  DenseElementsAttr::get(resultType, ArrayRef<Attribute>{})),
              ctx.getInputDType(0));
    return success();
  }
  if (input.constant && resultType.getNumElements() <= kMaxFoldElements) {
    // Fold: out[i] = in[i mod dim].
    SmallVector<SmallVector<int64_t>> tables;
    for (auto [dim, size] : llvm::zip(shape, resultShape)) {
      SmallVector<int64_t> &table = tables.emplace_back();
      for (int64_t i = 0; i < size; ++i)
        table.push_back(i % dim);
    }
    setResult(ctx, 0, gatherTables(ctx, input, tables), ctx.getInputDType(0));
    return success();
  }
  // Broadcast to [r0, d0, r1, d1, ...] and collapse each (ri, di) pair.
  OpBuilder &b = ctx.getBuilder();
  SmallVector<int64_t> broadcastShape, addedDims;
  SmallVector<ReassociationIndices> groups;
  for (auto [dim, repeat] : llvm::zip(shape, *repeats)) {
    ReassociationIndices &group = groups.emplace_back();
    if (repeat != 1) {
      addedDims.push_back(broadcastShape.size());
      group.push_back(broadcastShape.size());
      broadcastShape.push_back(repeat);
    }
    group.push_back(broadcastShape.size());
    broadcastShape.push_back(dim);
  }
  Value value = materialize(ctx, input);
  if (!addedDims.empty()) {
    Value init = ctx.createEmpty(broadcastShape, input.type.getElementType());
    value = linalg::BroadcastOp::create(b, ctx.getLoc(), value, init, addedDims)
                .getResult()[0];
    value = tensor::CollapseShapeOp::create(b, ctx.getLoc(), resultType, value,
                                            groups);
  }
  setResult(ctx, 0, TensorOperand::runtime(value), ctx.getInputDType(0));
  return success();
}

/// Pad: constant, reflect and edge modes; negative pads crop.
LogicalResult convertPad(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  OnnxDType dtype = ctx.getInputDType(0);
  Type element = ctx.getInputType(0).getElementType();
  SmallVector<int64_t> pads;
  if (ctx.getSinceVersion() < 11) {
    pads = ctx.getAttrInts(ctx.getSinceVersion() < 2 ? "paddings" : "pads");
  } else {
    FailureOr<SmallVector<int64_t>> p = ctx.requireConstantInts(1, "the pads");
    if (failed(p))
      return failure();
    pads = *p;
  }
  if (int64_t(pads.size()) != 2 * rank)
    return ctx.emitError() << "pads has " << pads.size() << " entries for rank "
                           << rank;
  // Bounded before any sum (and before the tables of edge and reflect).
  if (llvm::any_of(pads, [](int64_t pad) {
        return pad > kMaxTensorElements || pad < -kMaxTensorElements;
      }))
    return ctx.emitError() << "pads ["
                           << llvm::make_range(pads.begin(), pads.end())
                           << "] exceed 2^40 elements (the largest tensor "
                              "OrchestraOS compiles)";
  std::string mode = ctx.getAttrString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge")
    return ctx.unsupported("Pad mode '" + mode + "'");

  // Negative pads crop first.
  TensorOperand input = getOperand(ctx, 0);
  SmallVector<int64_t> cropOffsets(rank, 0), cropSizes(shape);
  SmallVector<int64_t> low(rank), high(rank);
  bool crops = false;
  for (int64_t d = 0; d < rank; ++d) {
    low[d] = pads[d];
    high[d] = pads[d + rank];
    if (low[d] < 0) {
      cropOffsets[d] = -low[d];
      cropSizes[d] += low[d];
      low[d] = 0;
      crops = true;
    }
    if (high[d] < 0) {
      cropSizes[d] += high[d];
      high[d] = 0;
      crops = true;
    }
    if (cropSizes[d] < 0)
      return ctx.emitError() << "pads crop more than dimension " << d
                             << " of size " << shape[d];
  }
  if (crops)
    input = sliceOperand(ctx, input, cropOffsets, cropSizes,
                         SmallVector<int64_t>(rank, 1));
  ArrayRef<int64_t> croppedShape = input.type.getShape();
  SmallVector<int64_t> resultShape;
  for (int64_t d = 0; d < rank; ++d)
    resultShape.push_back(low[d] + croppedShape[d] + high[d]);
  if (!getBoundedElementCount(resultShape))
    return ctx.emitError() << "the padded result has more than 2^40 elements "
                              "(the largest tensor OrchestraOS compiles)";

  if (mode != "constant") {
    // Edge and reflect: every output index reads one input index, through a
    // table per dimension that the plan holds as a constant.
    constexpr int64_t kMaxTable = int64_t(1) << 24;
    for (int64_t d = 0; d < rank; ++d)
      if ((low[d] != 0 || high[d] != 0) && resultShape[d] > kMaxTable)
        return ctx.unsupported("Pad in " + mode +
                               " mode to a dimension of more than 2^24 "
                               "elements (dimension " +
                               std::to_string(d) + ": " +
                               std::to_string(resultShape[d]) + ")");
    SmallVector<SmallVector<int64_t>> tables;
    for (int64_t d = 0; d < rank; ++d) {
      SmallVector<int64_t> &table = tables.emplace_back();
      int64_t n = croppedShape[d];
      if (low[d] == 0 && high[d] == 0)
        continue;
      if (n == 0)
        return ctx.emitError() << "cannot pad the empty dimension " << d
                               << " in " << mode << " mode";
      for (int64_t i = 0; i < resultShape[d]; ++i) {
        int64_t j = i - low[d];
        if (mode == "edge" || n == 1) {
          j = std::clamp<int64_t>(j, 0, n - 1);
        } else {
          // Reflect without repeating the edge; period 2 * (n - 1).
          int64_t period = 2 * (n - 1);
          j = ((j % period) + period) % period;
          if (j >= n)
            j = period - j;
        }
        table.push_back(j);
      }
    }
    setResult(ctx, 0, gatherTables(ctx, input, tables), dtype);
    return success();
  }

  // Constant mode: the value is an attribute (before 11) or an optional
  // scalar input.
  OpBuilder &b = ctx.getBuilder();
  TypedAttr valueAttr;
  if (ctx.getSinceVersion() < 11) {
    double value = ctx.getAttrFloat("value", 0);
    valueAttr = isa<FloatType>(element)
                    ? TypedAttr(b.getFloatAttr(element, value))
                    : TypedAttr(b.getIntegerAttr(element, int64_t(value)));
  } else if (!ctx.hasInput(2)) {
    valueAttr = b.getZeroAttr(element);
  } else if (ctx.getInputType(2).getNumElements() != 1) {
    return ctx.emitError() << "constant_value must have one element";
  } else if (DenseElementsAttr value = ctx.getConstantInput(2)) {
    valueAttr = cast<TypedAttr>(*value.value_begin<Attribute>());
  } else {
    // A runtime value: broadcast it to the result and insert the input.
    TensorOperand filled = broadcastOperand(
        ctx, reshapeOperand(ctx, getOperand(ctx, 2), {}), resultShape);
    if (input.type.getNumElements() == 0) {
      setResult(ctx, 0, filled, dtype);
      return success();
    }
    MLIRContext *context = ctx.getContext();
    Value result = tensor::InsertSliceOp::create(
        b, ctx.getLoc(), materialize(ctx, input), materialize(ctx, filled),
        getAsIndexOpFoldResult(context, low),
        getAsIndexOpFoldResult(context, croppedShape),
        getAsIndexOpFoldResult(context, SmallVector<int64_t>(rank, 1)));
    setResult(ctx, 0, TensorOperand::runtime(result), dtype);
    return success();
  }
  if (valueAttr &&
      (input.constant ||
       RankedTensorType::get(resultShape, element).getNumElements() == 0)) {
    SmallVector<SmallVector<int64_t>> tables;
    for (int64_t d = 0; d < rank; ++d) {
      SmallVector<int64_t> &table = tables.emplace_back();
      if (low[d] == 0 && high[d] == 0)
        continue;
      for (int64_t i = 0; i < resultShape[d]; ++i) {
        int64_t j = i - low[d];
        table.push_back(j >= 0 && j < croppedShape[d] ? j : -1);
      }
    }
    setResult(ctx, 0, gatherTables(ctx, input, tables, valueAttr), dtype);
    return success();
  }
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; })) {
    setResult(ctx, 0, input, dtype);
    return success();
  }
  Value padValue = arith::ConstantOp::create(b, ctx.getLoc(), valueAttr);
  auto resultType = RankedTensorType::get(resultShape, element);
  Value padded = tensor::PadOp::create(
      b, ctx.getLoc(), resultType, materialize(ctx, input),
      getAsIndexOpFoldResult(ctx.getContext(), low),
      getAsIndexOpFoldResult(ctx.getContext(), high), padValue);
  setResult(ctx, 0, TensorOperand::runtime(padded), dtype);
  return success();
}

/// ConstantOfShape: a splat of the `value` attribute (float 0 by default).
LogicalResult convertConstantOfShape(NodeContext &ctx) {
  OnnxDType dtype = onnx::TensorProto::FLOAT;
  Attribute value = FloatAttr::get(Float32Type::get(ctx.getContext()), 0.0);
  if (ctx.hasAttr("value")) {
    FailureOr<ElementsAttr> attr = ctx.getAttrTensor("value", &dtype);
    if (failed(attr))
      return failure();
    auto dense = dyn_cast<DenseElementsAttr>(*attr);
    if (!dense || dense.getNumElements() != 1)
      return ctx.emitError() << "the value attribute must have one element";
    value = *dense.value_begin<Attribute>();
  }
  if (!ctx.getImportedInput(0).sizes.empty())
    return convertDynamicConstantOfShape(ctx, ctx.getImportedInput(0).sizes,
                                         cast<TypedAttr>(value), dtype);
  FailureOr<SmallVector<int64_t>> shape =
      ctx.requireConstantInts(0, "the output shape");
  if (failed(shape))
    return failure();
  if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return ctx.emitError() << "negative dimension in the output shape";
  auto type = RankedTensorType::get(*shape, cast<TypedAttr>(value).getType());
  ctx.setConstantOutput(0, DenseElementsAttr::get(type, value), dtype);
  return success();
}

/// Range: start + i * delta for i < ceil((limit - start) / delta); the
/// operands fix the output size, so they must be constants.
LogicalResult convertRange(NodeContext &ctx) {
  for (unsigned i = 0; i < 3; ++i)
    if (!ctx.getImportedInput(i).sizes.empty())
      return convertDynamicRange(ctx);
  OnnxDType dtype = ctx.getInputDType(0);
  SmallVector<DenseElementsAttr> operands;
  for (unsigned i = 0; i < 3; ++i) {
    if (ctx.getInputDType(i) != dtype)
      return ctx.emitError() << "operands have different element types";
    FailureOr<DenseElementsAttr> value =
        ctx.requireConstantInput(i, i == 0   ? "start"
                                    : i == 1 ? "limit"
                                             : "delta");
    if (failed(value))
      return failure();
    if (value->getNumElements() != 1)
      return ctx.emitError() << "operand " << i << " must be a scalar";
    operands.push_back(*value);
  }
  Type element = ctx.getInputType(0).getElementType();
  SmallVector<Attribute> values;
  if (auto floatType = dyn_cast<FloatType>(element)) {
    auto get = [](DenseElementsAttr attr) {
      return (*attr.value_begin<APFloat>()).convertToDouble();
    };
    double start = get(operands[0]), limit = get(operands[1]),
           delta = get(operands[2]);
    if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit))
      return ctx.emitError() << "invalid range";
    double count = std::max(std::ceil((limit - start) / delta), 0.0);
    if (count > kMaxFoldElements * 64.0)
      return ctx.emitError()
             << "range of " << count << " elements is too large";
    for (int64_t i = 0; i < int64_t(count); ++i)
      values.push_back(FloatAttr::get(floatType, start + i * delta));
  } else if (isIntegerDType(dtype)) {
    int64_t start = getIntValues(operands[0])[0],
            limit = getIntValues(operands[1])[0],
            delta = getIntValues(operands[2])[0];
    if (delta == 0)
      return ctx.emitError() << "invalid range: delta is 0";
    int64_t count = 0;
    if ((delta > 0 && limit > start) || (delta < 0 && limit < start))
      count = (std::abs(limit - start) + std::abs(delta) - 1) / std::abs(delta);
    if (count > kMaxFoldElements * 64)
      return ctx.emitError()
             << "range of " << count << " elements is too large";
    for (int64_t i = 0; i < count; ++i)
      values.push_back(IntegerAttr::get(element, start + i * delta));
  } else {
    return ctx.unsupported(Twine("Range of ") + getOnnxDTypeName(dtype));
  }
  auto type = RankedTensorType::get({int64_t(values.size())}, element);
  ctx.setConstantOutput(0, DenseElementsAttr::get(type, values), dtype);
  return success();
}

/// EyeLike: ones on the k-th diagonal; only the input's shape matters.
LogicalResult convertEyeLike(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  if (shape.size() != 2)
    return ctx.emitError() << "the input must have rank 2";
  OnnxDType dtype = ctx.getAttrInt("dtype", ctx.getInputDType(0));
  FailureOr<Type> element = ctx.getElementTypeOrError(dtype);
  if (failed(element))
    return failure();
  int64_t k = ctx.getAttrInt("k", 0);
  OpBuilder &b = ctx.getBuilder();
  Attribute zero = b.getZeroAttr(*element);
  Attribute one = isa<FloatType>(*element)
                      ? Attribute(b.getFloatAttr(*element, 1.0))
                      : Attribute(b.getIntegerAttr(*element, 1));
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < shape[0]; ++i)
    for (int64_t j = 0; j < shape[1]; ++j)
      values.push_back(j - i == k ? one : zero);
  ctx.setConstantOutput(
      0, DenseElementsAttr::get(RankedTensorType::get(shape, *element), values),
      dtype);
  return success();
}

/// DepthToSpace (DCR or CRD) and SpaceToDepth: reshape, transpose, reshape.
LogicalResult convertDepthToSpace(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  if (shape.size() != 4)
    return ctx.emitError() << "the input must have rank 4";
  FailureOr<int64_t> blockSize = ctx.getRequiredAttrInt("blocksize");
  if (failed(blockSize))
    return failure();
  int64_t bs = *blockSize, n = shape[0], c = shape[1], h = shape[2],
          w = shape[3];
  if (bs <= 0)
    return ctx.emitError() << "invalid blocksize " << bs;
  TensorOperand input = getOperand(ctx, 0);
  TensorOperand result;
  if (ctx.getOpType() == "DepthToSpace") {
    if (c % (bs * bs) != 0)
      return ctx.emitError()
             << "channels (" << c << ") are not a multiple of blocksize^2";
    int64_t co = c / (bs * bs);
    std::string mode = ctx.getAttrString("mode", "DCR");
    if (mode != "DCR" && mode != "CRD")
      return ctx.unsupported("DepthToSpace mode '" + mode + "'");
    bool dcr = mode == "DCR";
    TensorOperand expanded =
        reshapeOperand(ctx, input,
                       dcr ? SmallVector<int64_t>{n, bs, bs, co, h, w}
                           : SmallVector<int64_t>{n, co, bs, bs, h, w});
    TensorOperand transposed =
        transposeOperand(ctx, expanded,
                         dcr ? SmallVector<int64_t>{0, 3, 4, 1, 5, 2}
                             : SmallVector<int64_t>{0, 1, 4, 2, 5, 3});
    result = reshapeOperand(ctx, transposed, {n, co, h * bs, w * bs});
  } else {
    if (h % bs != 0 || w % bs != 0)
      return ctx.emitError() << "height and width must be multiples of the "
                                "blocksize";
    TensorOperand expanded =
        reshapeOperand(ctx, input, {n, c, h / bs, bs, w / bs, bs});
    TensorOperand transposed =
        transposeOperand(ctx, expanded, {0, 3, 5, 1, 2, 4});
    result = reshapeOperand(ctx, transposed, {n, c * bs * bs, h / bs, w / bs});
  }
  setResult(ctx, 0, result, ctx.getInputDType(0));
  return success();
}

} // namespace

void onnx_import::registerShapeConverters(ConverterRegistry &registry) {
  registry.add("Shape", {1, 13, 15}, convertShape);
  registry.add("Size", {1, 13}, convertSize);
  registry.add("Reshape", {1, 5, 13, 14}, convertReshape);
  registry.add("Flatten", {1, 9, 11, 13}, convertFlatten);
  registry.add("Squeeze", {1, 11, 13}, convertSqueeze);
  registry.add("Unsqueeze", {1, 11, 13}, convertUnsqueeze);
  registry.add("Transpose", {1, 13}, convertTranspose);
  registry.add("Concat", {1, 4, 11, 13}, convertConcat);
  registry.add("Split", {1, 2, 11, 13}, convertSplit);
  registry.add("Slice", {1, 10, 11, 13}, convertSlice);
  registry.add("Expand", {8, 13}, convertExpand);
  registry.add("Tile", {6, 13}, convertTile);
  registry.add("Pad", {1, 2, 11, 13}, convertPad);
  registry.add("ConstantOfShape", {9}, convertConstantOfShape);
  registry.add("Range", {11}, convertRange);
  registry.add("EyeLike", {9}, convertEyeLike);
  registry.add("DepthToSpace", {1, 11, 13}, convertDepthToSpace);
  registry.add("SpaceToDepth", {1, 13}, convertDepthToSpace);
}
