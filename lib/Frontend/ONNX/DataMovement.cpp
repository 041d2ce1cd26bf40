//===- DataMovement.cpp - ONNX gather/scatter-style converters ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Ops that read their input at computed positions: Gather, GatherElements,
// GatherND, ScatterElements (and Scatter), ScatterND, Trilu, OneHot, CumSum,
// ReverseSequence, Compress, Resize/Upsample and TopK.
//
// Gathers become an all-parallel `linalg.generic` that `tensor.extract`s from
// the source at the position computed from the loop indices (or a slice when
// constant indices allow it). Scatters, CumSum and TopK, which have no
// data-parallel formulation in linalg, become generics with an extra
// reduction loop over the candidates of each output element (O(n) work per
// element along the scattered / summed / sorted axis). Everything folds when
// its operands are constants.
//
// Size: about 1,400 lines, over the project's 1,000: the converters share the
// position arithmetic (negative indices, axis handling, the extract-based
// gather body) and the error messages for out-of-range data. Resize/Upsample
// (its coordinate modes) is the first candidate to move to a file of its own.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Row-major position of `index` in `shape`.
int64_t linearize(ArrayRef<int64_t> index, ArrayRef<int64_t> shape) {
  int64_t position = 0;
  for (auto [i, dim] : llvm::zip(index, shape))
    position = position * dim + i;
  return position;
}

/// An index from the data in [-size, size) to [0, size); failure
/// (diagnosed) when out of range.
FailureOr<int64_t> normalizeConstantIndex(NodeContext &ctx, int64_t index,
                                          int64_t size) {
  if (index < -size || index >= size) {
    ctx.emitError() << "index " << index << " is out of range for a dimension "
                    << "of size " << size;
    return failure();
  }
  return index < 0 ? index + size : index;
}

/// The constant indices of input `index`, normalized against `size`, or
/// failure (diagnosed).
FailureOr<SmallVector<int64_t>>
getNormalizedIndices(NodeContext &ctx, DenseElementsAttr attr, int64_t size) {
  SmallVector<int64_t> result;
  for (int64_t index : getIntValues(attr)) {
    FailureOr<int64_t> normalized = normalizeConstantIndex(ctx, index, size);
    if (failed(normalized))
      return failure();
    result.push_back(*normalized);
  }
  return result;
}

TensorOperand emptyResult(ArrayRef<int64_t> shape, Type elementType) {
  return TensorOperand::folded(DenseElementsAttr::get(
      RankedTensorType::get(shape, elementType), ArrayRef<Attribute>{}));
}

/// The indices as values: `indices` with dimension `axis` replaced.
SmallVector<Value> replaceIndex(ValueRange indices, int64_t axis, Value value) {
  SmallVector<Value> result(indices);
  result[axis] = value;
  return result;
}

/// Body of a generic with reduction loops: the scalars of its inputs and
/// outputs, and the loop indices, to the values to yield.
using LoopBodyFn = function_ref<SmallVector<Value>(
    OpBuilder &, Location, ValueRange args, ValueRange indices)>;

/// A `linalg.generic` with `numLoops` loops: the first ones index the
/// outputs `inits` (parallel), the rest are reductions, reached only through
/// `inputMaps`.
SmallVector<Value> buildLoopGeneric(NodeContext &ctx, unsigned numLoops,
                                    ValueRange inputs,
                                    ArrayRef<AffineMap> inputMaps,
                                    ValueRange inits, LoopBodyFn body) {
  MLIRContext *context = ctx.getContext();
  unsigned numParallel =
      cast<RankedTensorType>(inits.front().getType()).getRank();
  SmallVector<AffineMap> maps(inputMaps);
  SmallVector<AffineExpr> outputExprs;
  for (unsigned d = 0; d < numParallel; ++d)
    outputExprs.push_back(getAffineDimExpr(d, context));
  for (size_t i = 0; i < inits.size(); ++i)
    maps.push_back(AffineMap::get(numLoops, 0, outputExprs, context));
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::reduction);
  for (unsigned d = 0; d < numParallel; ++d)
    iterators[d] = utils::IteratorType::parallel;
  auto generic = linalg::GenericOp::create(
      ctx.getBuilder(), ctx.getLoc(), ValueRange(inits).getTypes(), inputs,
      inits, maps, iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
        SmallVector<Value> indices;
        for (unsigned d = 0; d < numLoops; ++d)
          indices.push_back(linalg::IndexOp::create(b, loc, d));
        linalg::YieldOp::create(b, loc, body(b, loc, args, indices));
        for (Value index : indices)
          if (index.use_empty())
            index.getDefiningOp()->erase();
      });
  return SmallVector<Value>(generic.getResults());
}

/// The identity dims [0, rank) with `axis` replaced by `replacement`.
SmallVector<int64_t> replacedDims(int64_t rank, int64_t axis,
                                  int64_t replacement) {
  SmallVector<int64_t> dims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  dims[axis] = replacement;
  return dims;
}

/// Combines a scattered update into the current value.
Value combineScatter(OpBuilder &b, Location loc, StringRef reduction,
                     bool isFloat, Value current, Value update) {
  if (reduction == "add")
    return isFloat ? arith::AddFOp::create(b, loc, current, update).getResult()
                   : arith::AddIOp::create(b, loc, current, update).getResult();
  if (reduction == "mul")
    return isFloat ? arith::MulFOp::create(b, loc, current, update).getResult()
                   : arith::MulIOp::create(b, loc, current, update).getResult();
  return update;
}

/// Checks the scatter `reduction` attribute (version 16 on).
FailureOr<std::string> getScatterReduction(NodeContext &ctx) {
  std::string reduction = ctx.getAttrString("reduction", "none");
  if (reduction != "none" && reduction != "add" && reduction != "mul") {
    (void)ctx.unsupported("reduction '" + reduction + "'");
    return failure();
  }
  if (reduction != "none" && isBoolDType(ctx.getInputDType(0))) {
    (void)ctx.unsupported("reduction '" + reduction + "' on bool");
    return failure();
  }
  return reduction;
}

//===----------------------------------------------------------------------===//
// Gathers
//===----------------------------------------------------------------------===//

/// Gather: out[a, i, b] = data[a, indices[i], b] along `axis`.
/// More symbols than any model has dims, for simplifyAffineExpr.
constexpr unsigned kMaxSymbols = 1 << 16;

/// Gather of constant `indices` from data with dynamic sizes (the first
/// token of each sequence, x[:, 0]): a strided slice, reshaped to the
/// result. Along a dynamic dimension, a negative index counts from its end
/// and every index must be within it for every size the dims may take.
LogicalResult gatherDynamic(NodeContext &ctx, int64_t axis,
                            ArrayRef<int64_t> rawIndices,
                            ArrayRef<int64_t> indicesShape) {
  FailureOr<SmallVector<AffineExpr>> sizes = ctx.getInputSizes(0);
  if (failed(sizes))
    return failure();
  MLIRContext *context = ctx.getContext();
  AffineExpr dim = (*sizes)[axis];
  SmallVector<AffineExpr> indices;
  for (int64_t index : rawIndices) {
    AffineExpr position =
        index < 0 ? dim + index : getAffineConstantExpr(index, context);
    std::optional<int64_t> lower = ctx.getLowerBound(position);
    std::optional<int64_t> past =
        ctx.getUpperBound(simplifyAffineExpr(position - dim, 0, kMaxSymbols));
    if (!lower || *lower < 0 || !past || *past >= 0)
      return ctx.emitError()
             << "index " << index << " is out of range of dimension " << axis
             << " (of size " << ctx.printSize(dim)
             << ") for some sizes the dims may take";
    indices.push_back(position);
  }
  int64_t stride = 1;
  if (indices.size() > 1) {
    auto first = dyn_cast<AffineConstantExpr>(
        simplifyAffineExpr(indices[1] - indices[0], 0, kMaxSymbols));
    stride = first ? first.getValue() : 0;
  }
  for (size_t i = 1; i < indices.size(); ++i)
    if (stride <= 0 ||
        simplifyAffineExpr(indices[i] - indices[i - 1], 0, kMaxSymbols) !=
            getAffineConstantExpr(stride, context))
      return ctx.emitError() << "unsupported: gathering indices that are not "
                                "evenly increasing from data of dynamic sizes";
  OpBuilder &b = ctx.getBuilder();
  int64_t rank = sizes->size();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  SmallVector<AffineExpr> sliced(*sizes);
  offsets[axis] =
      indices.empty() ? b.getIndexAttr(0) : ctx.buildSize(indices.front());
  strides[axis] = b.getIndexAttr(stride);
  sliced[axis] = getAffineConstantExpr(indices.size(), context);
  SmallVector<int64_t> slicedShape(ctx.getInputShape(0));
  slicedShape[axis] = indices.size();
  Value input = ctx.getInput(0);
  auto type =
      RankedTensorType::get(slicedShape, ctx.getInputType(0).getElementType());
  Value slice = tensor::ExtractSliceOp::create(
      b, ctx.getLoc(), type, input, offsets, ctx.buildSizes(sliced), strides);
  SmallVector<AffineExpr> result(ArrayRef<AffineExpr>(*sizes).take_front(axis));
  for (int64_t extent : indicesShape)
    result.push_back(getAffineConstantExpr(extent, context));
  llvm::append_range(result, ArrayRef<AffineExpr>(*sizes).drop_front(axis + 1));
  FailureOr<Value> reshaped = reshapeToSizes(ctx, slice, sliced, result);
  if (failed(reshaped))
    return failure();
  ctx.setOutput(0, *reshaped, ctx.getInputDType(0));
  return success();
}

LogicalResult convertGather(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  if (rank == 0)
    return ctx.emitError() << "data must have rank >= 1";
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getAttrInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> indicesShape = ctx.getInputShape(1);
  int64_t q = indicesShape.size(), dim = shape[*axis];
  SmallVector<int64_t> resultShape(shape.take_front(*axis));
  llvm::append_range(resultShape, indicesShape);
  llvm::append_range(resultShape, shape.drop_front(*axis + 1));
  Type element = ctx.getInputType(0).getElementType();
  OnnxDType dtype = ctx.getInputDType(0);
  auto resultType = RankedTensorType::get(resultShape, element);
  if (resultType.hasStaticShape() && resultType.getNumElements() == 0) {
    setResult(ctx, 0, emptyResult(resultShape, element), dtype);
    return success();
  }
  TensorOperand data = getOperand(ctx, 0);

  if (DenseElementsAttr indicesAttr = ctx.getConstantInput(1)) {
    if (!ctx.getInputType(0).hasStaticShape())
      return gatherDynamic(ctx, *axis, getIntValues(indicesAttr), indicesShape);
    FailureOr<SmallVector<int64_t>> indices =
        getNormalizedIndices(ctx, indicesAttr, dim);
    if (failed(indices))
      return failure();
    // Evenly spaced increasing indices are a strided slice; others a
    // table lookup along the axis.
    int64_t stride = indices->size() > 1 ? (*indices)[1] - (*indices)[0] : 1;
    bool strided = stride > 0;
    for (size_t i = 1; strided && i < indices->size(); ++i)
      strided = (*indices)[i] - (*indices)[i - 1] == stride;
    SmallVector<int64_t> gatheredShape(shape);
    gatheredShape[*axis] = indices->size();
    TensorOperand gathered;
    if (strided) {
      SmallVector<int64_t> offsets(rank, 0), strides(rank, 1);
      offsets[*axis] = indices->front();
      strides[*axis] = stride;
      gathered = sliceOperand(ctx, data, offsets, gatheredShape, strides);
    } else {
      SmallVector<SmallVector<int64_t>> tables(rank);
      tables[*axis] = *indices;
      gathered = gatherTables(ctx, data, tables);
    }
    setResult(ctx, 0, reshapeOperand(ctx, gathered, resultShape), dtype);
    return success();
  }

  MLIRContext *context = ctx.getContext();
  int64_t resultRank = resultShape.size();
  AffineMap indicesMap =
      getDimsMap(context, resultRank,
                 llvm::to_vector(llvm::seq<int64_t>(*axis, *axis + q)));
  Value source = materialize(ctx, data);
  Value result = buildIndexedGeneric(
      ctx, resultShape, element, ctx.getInput(1), indicesMap,
      [&](OpBuilder &b, Location loc, ValueRange args, ValueRange indices) {
        SmallVector<Value> position(indices.take_front(*axis));
        position.push_back(normalizeIndex(b, loc, args[0], dim));
        llvm::append_range(position, indices.drop_front(*axis + q));
        return tensor::ExtractOp::create(b, loc, source, position).getResult();
      });
  setResult(ctx, 0, TensorOperand::runtime(result), dtype);
  return success();
}

/// GatherElements: out[i] = data[i with axis replaced by indices[i]].
LogicalResult convertGatherElements(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  ArrayRef<int64_t> indicesShape = ctx.getInputShape(1);
  int64_t rank = shape.size();
  if (int64_t(indicesShape.size()) != rank)
    return ctx.emitError() << "indices must have the rank of the data";
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getAttrInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  Type element = ctx.getInputType(0).getElementType();
  OnnxDType dtype = ctx.getInputDType(0);
  auto type = RankedTensorType::get(indicesShape, element);
  if (type.getNumElements() == 0) {
    setResult(ctx, 0, emptyResult(indicesShape, element), dtype);
    return success();
  }
  DenseElementsAttr data = ctx.getConstantInput(0);
  DenseElementsAttr indicesAttr = ctx.getConstantInput(1);
  if (data && indicesAttr) {
    FailureOr<SmallVector<int64_t>> indices =
        getNormalizedIndices(ctx, indicesAttr, shape[*axis]);
    if (failed(indices))
      return failure();
    setResult(ctx, 0,
              TensorOperand::folded(
                  foldByIndex(data, type,
                              [&](ArrayRef<int64_t> index) {
                                SmallVector<int64_t> position(index);
                                position[*axis] =
                                    (*indices)[linearize(index, indicesShape)];
                                return linearize(position, shape);
                              })),
              dtype);
    return success();
  }
  Value source = ctx.getInput(0);
  int64_t dim = shape[*axis];
  Value result = buildIndexedGeneric(
      ctx, indicesShape, element, ctx.getInput(1),
      AffineMap::getMultiDimIdentityMap(rank, ctx.getContext()),
      [&](OpBuilder &b, Location loc, ValueRange args, ValueRange indices) {
        Value index = normalizeIndex(b, loc, args[0], dim);
        return tensor::ExtractOp::create(b, loc, source,
                                         replaceIndex(indices, *axis, index))
            .getResult();
      });
  setResult(ctx, 0, TensorOperand::runtime(result), dtype);
  return success();
}

/// GatherND: out[b, i, j] = data[b, indices[b, i, :], j] with `batch_dims`
/// leading batch dimensions.
LogicalResult convertGatherND(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  ArrayRef<int64_t> indicesShape = ctx.getInputShape(1);
  int64_t r = shape.size(), q = indicesShape.size();
  int64_t batch = ctx.getAttrInt("batch_dims", 0);
  if (q < 1 || r < 1)
    return ctx.emitError() << "data and indices must have rank >= 1";
  int64_t k = indicesShape.back();
  if (batch < 0 || batch >= std::min(q, r) || batch + k > r)
    return ctx.emitError() << "invalid batch_dims " << batch
                           << " or index length " << k << " for data rank " << r
                           << " and indices rank " << q;
  for (int64_t d = 0; d < batch; ++d)
    if (shape[d] != indicesShape[d])
      return ctx.emitError()
             << "batch dimension " << d << " differs between data and indices";
  SmallVector<int64_t> resultShape(indicesShape.drop_back());
  llvm::append_range(resultShape, shape.drop_front(batch + k));
  Type element = ctx.getInputType(0).getElementType();
  OnnxDType dtype = ctx.getInputDType(0);
  auto type = RankedTensorType::get(resultShape, element);
  if (type.getNumElements() == 0) {
    setResult(ctx, 0, emptyResult(resultShape, element), dtype);
    return success();
  }
  DenseElementsAttr data = ctx.getConstantInput(0);
  DenseElementsAttr indicesAttr = ctx.getConstantInput(1);
  if (data && indicesAttr) {
    SmallVector<int64_t> indices = getIntValues(indicesAttr);
    bool valid = true;
    DenseElementsAttr folded =
        foldByIndex(data, type, [&](ArrayRef<int64_t> index) {
          SmallVector<int64_t> position(index.take_front(batch));
          int64_t tuple =
              linearize(index.take_front(q - 1), indicesShape.drop_back()) * k;
          for (int64_t j = 0; j < k; ++j) {
            int64_t i = indices[tuple + j], size = shape[batch + j];
            valid &= i >= -size && i < size;
            position.push_back(i < 0 ? i + size : i);
          }
          llvm::append_range(position, index.drop_front(q - 1));
          return valid ? linearize(position, shape) : 0;
        });
    if (!valid)
      return ctx.emitError() << "an index is out of range";
    setResult(ctx, 0, TensorOperand::folded(folded), dtype);
    return success();
  }
  Value source = ctx.getInput(0), indicesValue = ctx.getInput(1);
  Value result = buildIndexedGeneric(
      ctx, resultShape, element, {}, {},
      [&](OpBuilder &b, Location loc, ValueRange, ValueRange indices) {
        SmallVector<Value> position(indices.take_front(batch));
        SmallVector<Value> tuple(indices.take_front(q - 1));
        tuple.push_back(Value());
        for (int64_t j = 0; j < k; ++j) {
          tuple.back() = arith::ConstantIndexOp::create(b, loc, j);
          Value i = tensor::ExtractOp::create(b, loc, indicesValue, tuple);
          position.push_back(normalizeIndex(b, loc, i, shape[batch + j]));
        }
        llvm::append_range(position, indices.drop_front(q - 1));
        return tensor::ExtractOp::create(b, loc, source, position).getResult();
      });
  setResult(ctx, 0, TensorOperand::runtime(result), dtype);
  return success();
}

//===----------------------------------------------------------------------===//
// Scatters
//===----------------------------------------------------------------------===//

/// Folds a scatter without reduction: `positions[u]` is the data position
/// written by update u.
TensorOperand foldScatter(DenseElementsAttr data, DenseElementsAttr updates,
                          function_ref<int64_t(ArrayRef<int64_t>)> position) {
  SmallVector<Attribute> values(data.getValues<Attribute>());
  auto updateValues = updates.getValues<Attribute>();
  forEachIndex(updates.getType().getShape(), [&](ArrayRef<int64_t> index) {
    values[position(index)] =
        updateValues[linearize(index, updates.getType().getShape())];
  });
  return TensorOperand::folded(
      DenseElementsAttr::get(cast<ShapedType>(data.getType()), values));
}

/// ScatterElements (and Scatter): data[u with axis replaced by
/// indices[u]] = updates[u], optionally accumulating.
LogicalResult convertScatterElements(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  ArrayRef<int64_t> updatesShape = ctx.getInputShape(2);
  int64_t rank = shape.size();
  OnnxDType dtype = ctx.getInputDType(0);
  if (ctx.getInputShape(1) != updatesShape ||
      int64_t(updatesShape.size()) != rank)
    return ctx.emitError() << "indices and updates must have the same shape "
                              "and the rank of the data";
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getAttrInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  for (int64_t d = 0; d < rank; ++d)
    if (d != *axis && updatesShape[d] > shape[d])
      return ctx.emitError() << "updates are larger than the data in "
                                "dimension "
                             << d;
  FailureOr<std::string> reduction = getScatterReduction(ctx);
  if (failed(reduction))
    return failure();
  TensorOperand data = getOperand(ctx, 0);
  auto updatesType = ctx.getInputType(2);
  if (updatesType.getNumElements() == 0 || data.type.getNumElements() == 0) {
    setResult(ctx, 0, data, dtype);
    return success();
  }
  DenseElementsAttr indicesAttr = ctx.getConstantInput(1);
  DenseElementsAttr updates = ctx.getConstantInput(2);
  if (data.constant && indicesAttr && updates && *reduction == "none") {
    FailureOr<SmallVector<int64_t>> indices =
        getNormalizedIndices(ctx, indicesAttr, shape[*axis]);
    if (failed(indices))
      return failure();
    setResult(ctx, 0,
              foldScatter(data.constant, updates,
                          [&](ArrayRef<int64_t> index) {
                            SmallVector<int64_t> position(index);
                            position[*axis] =
                                (*indices)[linearize(index, updatesShape)];
                            return linearize(position, shape);
                          }),
              dtype);
    return success();
  }

  // The region of the data that updates can reach: the updates' extent in
  // every dimension but the axis. One generic over that region with a
  // reduction loop k over the updates along the axis: out[o] takes
  // updates[o with axis = k] where indices[o with axis = k] == o[axis].
  SmallVector<int64_t> regionShape(updatesShape);
  regionShape[*axis] = shape[*axis];
  SmallVector<int64_t> zeros(rank, 0), ones(rank, 1);
  TensorOperand region = sliceOperand(ctx, data, zeros, regionShape, ones);
  MLIRContext *context = ctx.getContext();
  AffineMap updateMap =
      getDimsMap(context, rank + 1, replacedDims(rank, *axis, rank));
  bool isFloat = isFloatDType(dtype);
  int64_t dim = shape[*axis];
  Value scattered =
      buildLoopGeneric(
          ctx, rank + 1, {ctx.getInput(1), ctx.getInput(2)},
          {updateMap, updateMap}, materialize(ctx, region),
          [&](OpBuilder &b, Location loc, ValueRange args,
              ValueRange indices) -> SmallVector<Value> {
            Value target = normalizeIndex(b, loc, args[0], dim);
            Value match = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::eq, target, indices[*axis]);
            Value combined =
                combineScatter(b, loc, *reduction, isFloat, args[2], args[1]);
            return {arith::SelectOp::create(b, loc, match, combined, args[2])};
          })
          .front();
  if (regionShape != shape)
    scattered = tensor::InsertSliceOp::create(
        ctx.getBuilder(), ctx.getLoc(), scattered, materialize(ctx, data),
        getAsIndexOpFoldResult(context, zeros),
        getAsIndexOpFoldResult(context, regionShape),
        getAsIndexOpFoldResult(context, ones));
  setResult(ctx, 0, TensorOperand::runtime(scattered), dtype);
  return success();
}

/// ScatterND: data[indices[u, :], ...] = updates[u, ...], optionally
/// accumulating.
LogicalResult convertScatterND(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  ArrayRef<int64_t> indicesShape = ctx.getInputShape(1);
  ArrayRef<int64_t> updatesShape = ctx.getInputShape(2);
  int64_t r = shape.size(), q = indicesShape.size();
  OnnxDType dtype = ctx.getInputDType(0);
  if (q < 1 || r < 1)
    return ctx.emitError() << "data and indices must have rank >= 1";
  int64_t k = indicesShape.back();
  SmallVector<int64_t> expected(indicesShape.drop_back());
  if (k > r)
    return ctx.emitError() << "index tuples of length " << k
                           << " exceed the data rank " << r;
  llvm::append_range(expected, shape.drop_front(k));
  if (updatesShape != ArrayRef<int64_t>(expected))
    return ctx.emitError() << "updates have shape ["
                           << llvm::make_range(updatesShape.begin(),
                                               updatesShape.end())
                           << "]; expected ["
                           << llvm::make_range(expected.begin(), expected.end())
                           << "]";
  FailureOr<std::string> reduction = getScatterReduction(ctx);
  if (failed(reduction))
    return failure();
  TensorOperand data = getOperand(ctx, 0);
  if (ctx.getInputType(2).getNumElements() == 0 ||
      data.type.getNumElements() == 0) {
    setResult(ctx, 0, data, dtype);
    return success();
  }
  DenseElementsAttr indicesAttr = ctx.getConstantInput(1);
  DenseElementsAttr updates = ctx.getConstantInput(2);
  if (data.constant && indicesAttr && updates && *reduction == "none") {
    SmallVector<int64_t> indices = getIntValues(indicesAttr);
    for (auto [i, index] : llvm::enumerate(indices)) {
      FailureOr<int64_t> normalized =
          normalizeConstantIndex(ctx, index, shape[i % k]);
      if (failed(normalized))
        return failure();
      index = *normalized;
    }
    setResult(ctx, 0,
              foldScatter(data.constant, updates,
                          [&](ArrayRef<int64_t> index) {
                            int64_t tuple = linearize(index.take_front(q - 1),
                                                      indicesShape.drop_back());
                            SmallVector<int64_t> position(
                                ArrayRef<int64_t>(indices).slice(tuple * k, k));
                            llvm::append_range(position,
                                               index.drop_front(q - 1));
                            return linearize(position, shape);
                          }),
              dtype);
    return success();
  }

  // One generic over the data with reduction loops over the index tuples:
  // out[o] takes updates[u, o[k:]] where indices[u, :] == o[:k].
  MLIRContext *context = ctx.getContext();
  int64_t numLoops = r + q - 1;
  SmallVector<int64_t> updateDims =
      llvm::to_vector(llvm::seq<int64_t>(r, numLoops));
  llvm::append_range(updateDims, llvm::seq<int64_t>(k, r));
  bool isFloat = isFloatDType(dtype);
  Value indicesValue = ctx.getInput(1);
  Value scattered =
      buildLoopGeneric(
          ctx, numLoops, ctx.getInput(2),
          getDimsMap(context, numLoops, updateDims), materialize(ctx, data),
          [&](OpBuilder &b, Location loc, ValueRange args,
              ValueRange indices) -> SmallVector<Value> {
            SmallVector<Value> tuple(indices.drop_front(r));
            tuple.push_back(Value());
            Value match;
            for (int64_t j = 0; j < k; ++j) {
              tuple.back() = arith::ConstantIndexOp::create(b, loc, j);
              Value i = tensor::ExtractOp::create(b, loc, indicesValue, tuple);
              Value equal = arith::CmpIOp::create(
                  b, loc, arith::CmpIPredicate::eq,
                  normalizeIndex(b, loc, i, shape[j]), indices[j]);
              match =
                  match ? arith::AndIOp::create(b, loc, match, equal) : equal;
            }
            Value combined =
                combineScatter(b, loc, *reduction, isFloat, args[1], args[0]);
            if (!match)
              return {combined};
            return {arith::SelectOp::create(b, loc, match, combined, args[1])};
          })
          .front();
  setResult(ctx, 0, TensorOperand::runtime(scattered), dtype);
  return success();
}

//===----------------------------------------------------------------------===//
// Masks, one-hot, scans
//===----------------------------------------------------------------------===//

/// Trilu: keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the
/// last two dimensions, zeroing the rest.
LogicalResult convertTrilu(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  if (rank < 2)
    return ctx.emitError() << "the input must have rank >= 2";
  int64_t k = 0;
  if (ctx.hasInput(1)) {
    FailureOr<SmallVector<int64_t>> kValues =
        ctx.requireConstantInts(1, "the diagonal offset k");
    if (failed(kValues))
      return failure();
    if (kValues->size() != 1)
      return ctx.emitError() << "k must be a scalar";
    k = kValues->front();
  }
  bool upper = ctx.getAttrInt("upper", 1) != 0;
  auto keep = [&](int64_t i, int64_t j) {
    return upper ? j - i >= k : j - i <= k;
  };
  TensorOperand input = getOperand(ctx, 0);
  OnnxDType dtype = ctx.getInputDType(0);
  Type element = input.type.getElementType();
  if (input.constant) {
    setResult(ctx, 0,
              TensorOperand::folded(foldByIndex(
                  input.constant, input.type,
                  [&](ArrayRef<int64_t> index) {
                    return keep(index[rank - 2], index[rank - 1])
                               ? linearize(index, shape)
                               : int64_t(-1);
                  },
                  ctx.getBuilder().getZeroAttr(element))),
              dtype);
    return success();
  }
  if (input.type.getNumElements() == 0) {
    setResult(ctx, 0, input, dtype);
    return success();
  }
  Value result = buildIndexedGeneric(
      ctx, shape, element, input.value,
      AffineMap::getMultiDimIdentityMap(rank, ctx.getContext()),
      [&](OpBuilder &b, Location loc, ValueRange args, ValueRange indices) {
        Value diff =
            arith::SubIOp::create(b, loc, indices[rank - 1], indices[rank - 2]);
        Value kValue = arith::ConstantIndexOp::create(b, loc, k);
        Value inside = arith::CmpIOp::create(b, loc,
                                             upper ? arith::CmpIPredicate::sge
                                                   : arith::CmpIPredicate::sle,
                                             diff, kValue);
        Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
        return arith::SelectOp::create(b, loc, inside, args[0], zero)
            .getResult();
      });
  setResult(ctx, 0, TensorOperand::runtime(result), dtype);
  return success();
}

/// OneHot: out[..., j, ...] = j == indices[...] ? on : off, with the depth
/// axis inserted at `axis`; negative indices count from the end.
LogicalResult convertOneHot(NodeContext &ctx) {
  ArrayRef<int64_t> indicesShape = ctx.getInputShape(0);
  int64_t rank = indicesShape.size() + 1;
  OnnxDType indicesDType = ctx.getInputDType(0);
  FailureOr<DenseElementsAttr> depthAttr =
      ctx.requireConstantInput(1, "the depth");
  if (failed(depthAttr))
    return failure();
  if (depthAttr->getNumElements() != 1)
    return ctx.emitError() << "depth must have one element";
  int64_t depth =
      isa<FloatType>(depthAttr->getElementType())
          ? int64_t((*depthAttr->value_begin<APFloat>()).convertToDouble())
          : getIntValues(*depthAttr).front();
  if (depth < 0)
    return ctx.emitError() << "negative depth " << depth;
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getAttrInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  if (ctx.getInputType(2).getNumElements() != 2)
    return ctx.emitError() << "values must have two elements";
  SmallVector<int64_t> resultShape(indicesShape);
  resultShape.insert(resultShape.begin() + *axis, depth);
  OnnxDType dtype = ctx.getInputDType(2);
  Type element = ctx.getInputType(2).getElementType();
  auto type = RankedTensorType::get(resultShape, element);
  if (type.getNumElements() == 0) {
    setResult(ctx, 0, emptyResult(resultShape, element), dtype);
    return success();
  }
  SmallVector<int64_t> indexDims = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  indexDims.erase(indexDims.begin() + *axis);

  DenseElementsAttr indicesAttr = ctx.getConstantInput(0);
  DenseElementsAttr values = ctx.getConstantInput(2);
  if (indicesAttr && values) {
    SmallVector<int64_t> indices;
    if (isa<FloatType>(indicesAttr.getElementType()))
      for (APFloat value : indicesAttr.getValues<APFloat>())
        indices.push_back(int64_t(value.convertToDouble()));
    else
      indices = getIntValues(indicesAttr);
    DenseElementsAttr flatValues =
        values.reshape(RankedTensorType::get({2}, element));
    setResult(ctx, 0,
              TensorOperand::folded(foldByIndex(
                  flatValues, type,
                  [&](ArrayRef<int64_t> index) {
                    SmallVector<int64_t> position;
                    for (int64_t d : indexDims)
                      position.push_back(index[d]);
                    int64_t i = indices[linearize(position, indicesShape)];
                    if (i < 0)
                      i += depth;
                    return int64_t(i == index[*axis]);
                  })),
              dtype);
    return success();
  }

  // The off/on values are read by the generic through constant maps.
  Value valuesTensor = ctx.getInput(2);
  if (ctx.getInputRank(2) != 1)
    valuesTensor = materialize(
        ctx, reshapeOperand(ctx, TensorOperand::runtime(valuesTensor), {2}));
  MLIRContext *context = ctx.getContext();
  auto valueMap = [&](int64_t i) {
    return AffineMap::get(rank, 0, getAffineConstantExpr(i, context), context);
  };
  Value result = buildIndexedGeneric(
      ctx, resultShape, element, {ctx.getInput(0), valuesTensor, valuesTensor},
      {getDimsMap(context, rank, indexDims), valueMap(0), valueMap(1)},
      [&](OpBuilder &b, Location loc, ValueRange args, ValueRange indices) {
        Value index =
            castScalar(b, loc, args[0], indicesDType, onnx::TensorProto::INT64);
        Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
        Value negative = arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::slt, index, zero);
        Value wrapped = arith::AddIOp::create(
            b, loc, index, arith::ConstantIntOp::create(b, loc, depth, 64));
        index = arith::SelectOp::create(b, loc, negative, wrapped, index);
        Value position =
            arith::IndexCastOp::create(b, loc, b.getI64Type(), indices[*axis]);
        Value hot = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          index, position);
        return arith::SelectOp::create(b, loc, hot, args[2], args[1])
            .getResult();
      });
  setResult(ctx, 0, TensorOperand::runtime(result), dtype);
  return success();
}

/// CumSum along a constant axis; `exclusive` leaves the current element
/// out, `reverse` sums from the end.
LogicalResult convertCumSum(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  OnnxDType dtype = ctx.getInputDType(0);
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported(Twine("CumSum of ") + getOnnxDTypeName(dtype));
  FailureOr<SmallVector<int64_t>> axisValues =
      ctx.requireConstantInts(1, "the axis");
  if (failed(axisValues))
    return failure();
  if (axisValues->size() != 1)
    return ctx.emitError() << "the axis must be a scalar";
  FailureOr<int64_t> axis = normalizeAxis(ctx, axisValues->front(), rank);
  if (failed(axis))
    return failure();
  bool exclusive = ctx.getAttrInt("exclusive", 0) != 0;
  bool reverse = ctx.getAttrInt("reverse", 0) != 0;
  // Whether position j contributes to the sum at position i.
  auto contributes = [&](int64_t j, int64_t i) {
    if (reverse)
      return exclusive ? j > i : j >= i;
    return exclusive ? j < i : j <= i;
  };
  TensorOperand input = getOperand(ctx, 0);
  Type element = input.type.getElementType();
  bool isFloat = isFloatDType(dtype);
  if (input.type.getNumElements() == 0) {
    setResult(ctx, 0, input, dtype);
    return success();
  }
  if (input.constant) {
    SmallVector<Attribute> values;
    int64_t n = shape[*axis];
    auto accumulate = [&](auto elements, auto zero, auto add, auto makeAttr) {
      forEachIndex(shape, [&](ArrayRef<int64_t> index) {
        auto sum = zero;
        SmallVector<int64_t> position(index);
        for (int64_t j = 0; j < n; ++j) {
          if (!contributes(j, index[*axis]))
            continue;
          position[*axis] = j;
          sum = add(sum, elements[linearize(position, shape)]);
        }
        values.push_back(makeAttr(sum));
      });
    };
    if (isFloat) {
      auto floatType = cast<FloatType>(element);
      accumulate(
          llvm::to_vector(input.constant.getValues<APFloat>()),
          APFloat::getZero(floatType.getFloatSemantics()),
          [](APFloat a, const APFloat &b) {
            a.add(b, APFloat::rmNearestTiesToEven);
            return a;
          },
          [&](const APFloat &v) -> Attribute {
            return FloatAttr::get(floatType, v);
          });
    } else {
      accumulate(
          llvm::to_vector(input.constant.getValues<APInt>()),
          APInt(element.getIntOrFloatBitWidth(), 0),
          [](const APInt &a, const APInt &b) { return a + b; },
          [&](const APInt &v) -> Attribute {
            return IntegerAttr::get(element, v);
          });
    }
    setResult(ctx, 0,
              TensorOperand::folded(DenseElementsAttr::get(input.type, values)),
              dtype);
    return success();
  }
  // out[i] = sum over j (a reduction loop) of x[i with axis = j] where j
  // contributes to i.
  MLIRContext *context = ctx.getContext();
  Value init = ctx.createFilled(shape, ctx.createScalar(element, 0));
  Value result =
      buildLoopGeneric(
          ctx, rank + 1, input.value,
          getDimsMap(context, rank + 1, replacedDims(rank, *axis, rank)), init,
          [&](OpBuilder &b, Location loc, ValueRange args,
              ValueRange indices) -> SmallVector<Value> {
            Value i = indices[*axis], j = indices[rank];
            arith::CmpIPredicate predicate =
                reverse ? (exclusive ? arith::CmpIPredicate::ugt
                                     : arith::CmpIPredicate::uge)
                        : (exclusive ? arith::CmpIPredicate::ult
                                     : arith::CmpIPredicate::ule);
            Value included = arith::CmpIOp::create(b, loc, predicate, j, i);
            Value sum =
                combineScatter(b, loc, "add", isFloat, args[1], args[0]);
            return {arith::SelectOp::create(b, loc, included, sum, args[1])};
          })
          .front();
  setResult(ctx, 0, TensorOperand::runtime(result), dtype);
  return success();
}

/// ReverseSequence: reverses the first sequence_lens[b] elements along the
/// time axis of every batch entry b.
LogicalResult convertReverseSequence(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  if (rank < 2)
    return ctx.emitError() << "the input must have rank >= 2";
  int64_t batchAxis = ctx.getAttrInt("batch_axis", 1);
  int64_t timeAxis = ctx.getAttrInt("time_axis", 0);
  if ((batchAxis != 0 && batchAxis != 1) || (timeAxis != 0 && timeAxis != 1) ||
      batchAxis == timeAxis)
    return ctx.emitError() << "batch_axis and time_axis must be 0 and 1";
  if (ctx.getInputShape(1) != ArrayRef<int64_t>{shape[batchAxis]})
    return ctx.emitError() << "sequence_lens must have one entry per batch";
  TensorOperand input = getOperand(ctx, 0);
  OnnxDType dtype = ctx.getInputDType(0);
  int64_t steps = shape[timeAxis];
  if (input.type.getNumElements() == 0) {
    setResult(ctx, 0, input, dtype);
    return success();
  }
  if (DenseElementsAttr lensAttr = ctx.getConstantInput(1)) {
    SmallVector<int64_t> lens = getIntValues(lensAttr);
    if (llvm::any_of(lens, [&](int64_t l) { return l < 0 || l > steps; }))
      return ctx.emitError() << "a sequence length is out of range";
    if (input.constant) {
      setResult(ctx, 0,
                TensorOperand::folded(foldByIndex(
                    input.constant, input.type,
                    [&](ArrayRef<int64_t> index) {
                      SmallVector<int64_t> position(index);
                      int64_t len = lens[index[batchAxis]];
                      if (index[timeAxis] < len)
                        position[timeAxis] = len - 1 - index[timeAxis];
                      return linearize(position, shape);
                    })),
                dtype);
      return success();
    }
  }
  Value lens = ctx.getInput(1);
  Value result = buildIndexedGeneric(
      ctx, shape, input.type.getElementType(), {}, {},
      [&](OpBuilder &b, Location loc, ValueRange, ValueRange indices) {
        Value len = tensor::ExtractOp::create(b, loc, lens,
                                              ValueRange{indices[batchAxis]});
        len = arith::IndexCastOp::create(b, loc, b.getIndexType(), len);
        Value t = indices[timeAxis];
        Value inside =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, t, len);
        Value last = arith::SubIOp::create(
            b, loc, len, arith::ConstantIndexOp::create(b, loc, 1));
        Value reversed = arith::SubIOp::create(b, loc, last, t);
        Value source = arith::SelectOp::create(b, loc, inside, reversed, t);
        return tensor::ExtractOp::create(
                   b, loc, input.value, replaceIndex(indices, timeAxis, source))
            .getResult();
      });
  setResult(ctx, 0, TensorOperand::runtime(result), dtype);
  return success();
}

/// Compress with a constant condition: the selected slices along the axis
/// (of the flattened input without one).
LogicalResult convertCompress(NodeContext &ctx) {
  FailureOr<SmallVector<int64_t>> condition =
      ctx.requireConstantInts(1, "the condition");
  if (failed(condition))
    return failure();
  TensorOperand input = getOperand(ctx, 0);
  OnnxDType dtype = ctx.getInputDType(0);
  int64_t axis = 0;
  if (ctx.hasAttr("axis")) {
    FailureOr<int64_t> normalized =
        normalizeAxis(ctx, ctx.getAttrInt("axis", 0), input.type.getRank());
    if (failed(normalized))
      return failure();
    axis = *normalized;
  } else {
    input = reshapeOperand(ctx, input, {input.type.getNumElements()});
  }
  ArrayRef<int64_t> shape = input.type.getShape();
  if (int64_t(condition->size()) > shape[axis])
    return ctx.emitError() << "the condition has " << condition->size()
                           << " entries for a dimension of size "
                           << shape[axis];
  SmallVector<SmallVector<int64_t>> tables(shape.size());
  for (auto [i, c] : llvm::enumerate(*condition))
    if (c)
      tables[axis].push_back(i);
  if (tables[axis].empty()) {
    SmallVector<int64_t> resultShape(shape);
    resultShape[axis] = 0;
    setResult(ctx, 0, emptyResult(resultShape, input.type.getElementType()),
              dtype);
    return success();
  }
  setResult(ctx, 0, gatherTables(ctx, input, tables), dtype);
  return success();
}

//===----------------------------------------------------------------------===//
// Resize
//===----------------------------------------------------------------------===//

/// The sampling of one dimension: for every output index, `taps` input
/// indices (clamped into the input) with their weights; an index of -1 in
/// tap 0 marks an output outside the input (tf_crop_and_resize), which takes
/// the extrapolation value.
struct Sampling {
  int64_t taps = 1;
  SmallVector<SmallVector<int64_t>> indices; // [tap][output]
  SmallVector<SmallVector<double>> weights;  // [tap][output]

  bool isIdentity(int64_t inputSize) const {
    if (int64_t(indices[0].size()) != inputSize)
      return false;
    for (int64_t o = 0; o < inputSize; ++o) {
      bool found = false;
      for (int64_t t = 0; t < taps; ++t) {
        if (weights[t][o] == 0)
          continue;
        if (weights[t][o] != 1 || indices[t][o] != o || found)
          return false;
        found = true;
      }
      if (!found)
        return false;
    }
    return true;
  }
};

struct ResizeParams {
  std::string mode;        // nearest, linear, cubic
  std::string coordinates; // coordinate_transformation_mode
  std::string nearestMode; // round_prefer_floor, ...
  double cubicA = -0.75;
  bool excludeOutside = false;
};

/// Samples one dimension of `inputSize` resized to `outputSize` with
/// `scale`, following the reference implementation: the input coordinate x
/// of each output index, then the taps around it (indices clamped, i.e. the
/// input is edge-padded).
Sampling sampleDimension(const ResizeParams &params, int64_t inputSize,
                         int64_t outputSize, double scale, double roiStart,
                         double roiEnd, bool scaleGiven) {
  Sampling s;
  s.taps = params.mode == "nearest" ? 1 : params.mode == "linear" ? 2 : 4;
  s.indices.assign(s.taps, SmallVector<int64_t>(outputSize));
  s.weights.assign(s.taps, SmallVector<double>(outputSize));
  // The resized length as the coordinate formulas see it.
  double resized = scaleGiven ? scale * inputSize : double(outputSize);
  for (int64_t o = 0; o < outputSize; ++o) {
    const std::string &mode = params.coordinates;
    double x;
    if (mode == "half_pixel")
      x = (o + 0.5) / scale - 0.5;
    else if (mode == "pytorch_half_pixel")
      x = outputSize > 1 ? (o + 0.5) / scale - 0.5 : 0;
    else if (mode == "align_corners")
      x = outputSize == 1 ? 0 : o * (inputSize - 1) / (resized - 1);
    else if (mode == "tf_half_pixel_for_nn")
      x = (o + 0.5) / scale;
    else if (mode == "tf_crop_and_resize")
      x = outputSize > 1
              ? roiStart * (inputSize - 1) +
                    o * (roiEnd - roiStart) * (inputSize - 1) / (resized - 1)
              : 0.5 * (roiStart + roiEnd) * (inputSize - 1);
    else // asymmetric
      x = o / scale;
    if (mode == "tf_crop_and_resize" && (x < 0 || x > inputSize - 1)) {
      for (int64_t t = 0; t < s.taps; ++t) {
        s.indices[t][o] = t == 0 ? -1 : 0;
        s.weights[t][o] = 0;
      }
      continue;
    }
    // The taps sit around base = ceil(x) - 1 with ratio x - base in (0, 1].
    int64_t base = int64_t(std::ceil(x)) - 1;
    double ratio = x - base;
    SmallVector<double> weights;
    SmallVector<int64_t> positions;
    if (params.mode == "nearest") {
      bool up;
      if (ratio == 1)
        up = true;
      else if (params.nearestMode == "round_prefer_ceil")
        up = ratio >= 0.5;
      else if (params.nearestMode == "floor")
        up = false;
      else if (params.nearestMode == "ceil")
        up = true;
      else // round_prefer_floor
        up = ratio > 0.5;
      positions = {base + (up ? 1 : 0)};
      weights = {1};
    } else if (params.mode == "linear") {
      positions = {base, base + 1};
      weights = {1 - ratio, ratio};
    } else {
      double a = params.cubicA, r = ratio;
      positions = {base - 1, base, base + 1, base + 2};
      weights = {((a * (r + 1) - 5 * a) * (r + 1) + 8 * a) * (r + 1) - 4 * a,
                 ((a + 2) * r - (a + 3)) * r * r + 1,
                 ((a + 2) * (1 - r) - (a + 3)) * (1 - r) * (1 - r) + 1,
                 ((a * (2 - r) - 5 * a) * (2 - r) + 8 * a) * (2 - r) - 4 * a};
    }
    if (params.excludeOutside) {
      double sum = 0;
      for (int64_t t = 0; t < s.taps; ++t) {
        if (positions[t] < 0 || positions[t] >= inputSize)
          weights[t] = 0;
        sum += weights[t];
      }
      for (double &w : weights)
        w = sum == 0 ? 0 : w / sum;
    }
    for (int64_t t = 0; t < s.taps; ++t) {
      s.indices[t][o] = std::clamp<int64_t>(positions[t], 0, inputSize - 1);
      s.weights[t][o] = weights[t];
    }
  }
  return s;
}

/// Interpolates dimension `dim` of `input` with `sampling` (linear or
/// cubic): out = sum over taps of weight * input[index].
Value interpolateDimension(NodeContext &ctx, Value input, int64_t dim,
                           const Sampling &sampling, double extrapolation) {
  auto type = cast<RankedTensorType>(input.getType());
  Type element = type.getElementType();
  // Half-precision types accumulate in f32.
  Type compute = element.getIntOrFloatBitWidth() < 32
                     ? Type(Float32Type::get(ctx.getContext()))
                     : element;
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = sampling.indices[0].size();
  int64_t rank = shape.size();
  MLIRContext *context = ctx.getContext();
  SmallVector<Value> tables;
  for (int64_t t = 0; t < sampling.taps; ++t)
    tables.push_back(createI64Tensor(ctx, sampling.indices[t]));
  for (int64_t t = 0; t < sampling.taps; ++t) {
    auto weightType =
        RankedTensorType::get({int64_t(sampling.weights[t].size())}, compute);
    SmallVector<Attribute> weights;
    for (double w : sampling.weights[t])
      weights.push_back(FloatAttr::get(compute, w));
    tables.push_back(
        arith::ConstantOp::create(ctx.getBuilder(), ctx.getLoc(),
                                  DenseElementsAttr::get(weightType, weights)));
  }
  SmallVector<AffineMap> maps(
      tables.size(),
      AffineMap::get(rank, 0, getAffineDimExpr(dim, context), context));
  bool extrapolates = llvm::is_contained(sampling.indices[0], -1);
  return buildIndexedGeneric(
      ctx, shape, element, tables, maps,
      [&](OpBuilder &b, Location loc, ValueRange args, ValueRange indices) {
        Value sum;
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value valid;
        for (int64_t t = 0; t < sampling.taps; ++t) {
          Value i =
              arith::IndexCastOp::create(b, loc, b.getIndexType(), args[t]);
          if (t == 0 && extrapolates) {
            valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i,
                                          zero);
            i = arith::MaxSIOp::create(b, loc, i, zero);
          }
          Value v = tensor::ExtractOp::create(b, loc, input,
                                              replaceIndex(indices, dim, i));
          if (compute != element)
            v = arith::ExtFOp::create(b, loc, compute, v);
          Value term =
              arith::MulFOp::create(b, loc, v, args[sampling.taps + t]);
          sum =
              sum ? arith::AddFOp::create(b, loc, sum, term).getResult() : term;
        }
        if (compute != element)
          sum = arith::TruncFOp::create(b, loc, element, sum);
        if (!valid)
          return sum;
        Value fill = arith::ConstantOp::create(
            b, loc, b.getFloatAttr(element, extrapolation));
        return arith::SelectOp::create(b, loc, valid, sum, fill).getResult();
      });
}

/// Resize (10, 11, 13) and Upsample (7, 9). Scales or sizes must be
/// constants; the sampling of every dimension is computed here and applied
/// one dimension at a time (separable), innermost first, as the reference
/// does.
LogicalResult convertResize(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  int version = ctx.getSinceVersion();
  bool upsample = ctx.getOpType() == "Upsample";
  ResizeParams params;
  params.mode = ctx.getAttrString("mode", "nearest");
  if (params.mode == "bilinear")
    params.mode = "linear";
  if (params.mode != "nearest" && params.mode != "linear" &&
      params.mode != "cubic")
    return ctx.unsupported("mode '" + params.mode + "'");
  // Resize-10 and Upsample: asymmetric coordinates, nearest rounds down.
  bool legacy = upsample || version < 11;
  params.coordinates =
      legacy
          ? "asymmetric"
          : ctx.getAttrString("coordinate_transformation_mode", "half_pixel");
  params.nearestMode =
      legacy ? "floor"
             : ctx.getAttrString("nearest_mode", "round_prefer_floor");
  params.cubicA = ctx.getAttrFloat("cubic_coeff_a", -0.75);
  params.excludeOutside = ctx.getAttrInt("exclude_outside", 0) != 0;
  double extrapolation = ctx.getAttrFloat("extrapolation_value", 0);
  static const char *const kCoordinateModes[] = {
      "half_pixel", "pytorch_half_pixel",   "align_corners",
      "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (!llvm::is_contained(kCoordinateModes, params.coordinates))
    return ctx.unsupported("coordinate_transformation_mode '" +
                           params.coordinates + "'");
  static const char *const kNearestModes[] = {
      "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  if (!llvm::is_contained(kNearestModes, params.nearestMode))
    return ctx.unsupported("nearest_mode '" + params.nearestMode + "'");

  // Scales (attribute for Upsample-7, input 1 for Upsample-9 and Resize-10,
  // input 2 from 11 on) or sizes (input 3).
  SmallVector<double> scales;
  SmallVector<int64_t> sizes;
  unsigned scalesInput = legacy ? 1 : 2;
  if (upsample && version < 9) {
    for (float s : ctx.getAttrFloats("scales"))
      scales.push_back(s);
  } else if (ctx.hasInput(scalesInput) &&
             ctx.getInputType(scalesInput).getNumElements() != 0) {
    FailureOr<DenseElementsAttr> attr =
        ctx.requireConstantInput(scalesInput, "the scales");
    if (failed(attr))
      return failure();
    if (!isa<FloatType>(attr->getElementType()))
      return ctx.emitError() << "scales must be floats";
    for (APFloat s : attr->getValues<APFloat>())
      scales.push_back(s.convertToDouble());
  }
  if (!legacy && ctx.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> s = ctx.requireConstantInts(3, "the sizes");
    if (failed(s))
      return failure();
    sizes = *s;
  }
  if (scales.empty() == sizes.empty())
    return ctx.emitError() << "exactly one of scales and sizes must be given";
  if (!scales.empty() && int64_t(scales.size()) != rank)
    return ctx.emitError() << "scales has " << scales.size()
                           << " entries for rank " << rank;
  if (!sizes.empty() && int64_t(sizes.size()) != rank)
    return ctx.emitError() << "sizes has " << sizes.size()
                           << " entries for rank " << rank;
  SmallVector<double> roi;
  if (params.coordinates == "tf_crop_and_resize") {
    FailureOr<DenseElementsAttr> attr =
        ctx.requireConstantInput(1, "the region of interest");
    if (failed(attr))
      return failure();
    for (APFloat v : attr->getValues<APFloat>())
      roi.push_back(v.convertToDouble());
    if (int64_t(roi.size()) != 2 * rank)
      return ctx.emitError()
             << "roi has " << roi.size() << " entries for rank " << rank;
  }

  SmallVector<int64_t> resultShape;
  SmallVector<Sampling> samplings;
  for (int64_t d = 0; d < rank; ++d) {
    double roiStart = roi.empty() ? 0 : roi[d];
    double roiEnd = roi.empty() ? 1 : roi[rank + d];
    int64_t out;
    double scale;
    if (!sizes.empty()) {
      out = sizes[d];
      scale = shape[d] == 0 ? 1 : double(out) / shape[d];
    } else {
      scale = scales[d];
      if (!(scale > 0))
        return ctx.emitError() << "invalid scale " << scale;
      out = int64_t(std::floor(shape[d] * (roiEnd - roiStart) * scale));
    }
    if (out < 0)
      return ctx.emitError() << "negative output size";
    resultShape.push_back(out);
    samplings.push_back(sampleDimension(params, shape[d], out, scale, roiStart,
                                        roiEnd, sizes.empty()));
  }
  TensorOperand input = getOperand(ctx, 0);
  OnnxDType dtype = ctx.getInputDType(0);
  Type element = input.type.getElementType();
  if (RankedTensorType::get(resultShape, element).getNumElements() == 0 ||
      input.type.getNumElements() == 0) {
    if (RankedTensorType::get(resultShape, element).getNumElements() != 0)
      return ctx.emitError() << "cannot resize an empty tensor";
    setResult(ctx, 0, emptyResult(resultShape, element), dtype);
    return success();
  }

  if (params.mode == "nearest") {
    SmallVector<SmallVector<int64_t>> tables;
    for (int64_t d = 0; d < rank; ++d)
      tables.push_back(samplings[d].isIdentity(shape[d])
                           ? SmallVector<int64_t>()
                           : samplings[d].indices[0]);
    TypedAttr fill;
    if (isa<FloatType>(element))
      fill = ctx.getBuilder().getFloatAttr(element, extrapolation);
    else if (isa<IntegerType>(element))
      fill = ctx.getBuilder().getIntegerAttr(element, int64_t(extrapolation));
    setResult(ctx, 0, gatherTables(ctx, input, tables, fill), dtype);
    return success();
  }
  if (!isa<FloatType>(element))
    return ctx.unsupported(Twine(params.mode) + " resize of " +
                           getOnnxDTypeName(dtype));
  Value value = materialize(ctx, input);
  for (int64_t d = rank - 1; d >= 0; --d)
    if (!samplings[d].isIdentity(shape[d]))
      value = interpolateDimension(ctx, value, d, samplings[d], extrapolation);
  setResult(ctx, 0, TensorOperand::runtime(value), dtype);
  return success();
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

/// Whether `a` comes before `b` in TopK's order (descending for largest,
/// ascending otherwise; NaN after every number, as numpy sorts).
Value comesBefore(OpBuilder &b, Location loc, Value a, Value bValue,
                  OnnxDType dtype, bool largest) {
  if (isFloatDType(dtype)) {
    Value ordered = arith::CmpFOp::create(
        b, loc, largest ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT,
        a, bValue);
    Value aNumber =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, a, a);
    Value bNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO,
                                       bValue, bValue);
    Value beforeNaN = arith::AndIOp::create(b, loc, aNumber, bNaN);
    return arith::OrIOp::create(b, loc, ordered, beforeNaN);
  }
  bool isUnsigned = isUnsignedDType(dtype);
  arith::CmpIPredicate predicate =
      largest
          ? (isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
          : (isUnsigned ? arith::CmpIPredicate::ult
                        : arith::CmpIPredicate::slt);
  return arith::CmpIOp::create(b, loc, predicate, a, bValue);
}

/// Whether `a` and `b` tie (NaNs tie with each other).
Value ties(OpBuilder &b, Location loc, Value a, Value bValue, OnnxDType dtype) {
  if (!isFloatDType(dtype))
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, bValue);
  Value equal =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, a, bValue);
  Value aNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, a, a);
  Value bNaN =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, bValue, bValue);
  return arith::OrIOp::create(b, loc, equal,
                              arith::AndIOp::create(b, loc, aNaN, bNaN));
}

/// TopK without sorting: the rank of every element along the axis is the
/// number of elements before it (ties broken by index), then output r takes
/// the element of rank r. Both steps are generics with a reduction loop over
/// the axis.
LogicalResult convertTopK(NodeContext &ctx) {
  ArrayRef<int64_t> shape = ctx.getInputShape(0);
  int64_t rank = shape.size();
  OnnxDType dtype = ctx.getInputDType(0);
  if (!isFloatDType(dtype) && !isIntegerDType(dtype))
    return ctx.unsupported(Twine("TopK of ") + getOnnxDTypeName(dtype));
  if (rank == 0)
    return ctx.emitError() << "the input must have rank >= 1";
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getAttrInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  int64_t k;
  if (ctx.getSinceVersion() < 10) {
    FailureOr<int64_t> attr = ctx.getRequiredAttrInt("k");
    if (failed(attr))
      return failure();
    k = *attr;
  } else {
    FailureOr<SmallVector<int64_t>> kValues = ctx.requireConstantInts(1, "k");
    if (failed(kValues))
      return failure();
    if (kValues->size() != 1)
      return ctx.emitError() << "k must have one element";
    k = kValues->front();
  }
  int64_t n = shape[*axis];
  if (k < 0 || k > n)
    return ctx.emitError() << "k = " << k << " is out of range for an axis "
                           << "of size " << n;
  bool largest = ctx.getAttrInt("largest", 1) != 0;
  Type element = ctx.getInputType(0).getElementType();
  SmallVector<int64_t> resultShape(shape);
  resultShape[*axis] = k;
  Type i64 = ctx.getBuilder().getI64Type();
  auto resultType = RankedTensorType::get(resultShape, element);
  if (resultType.hasStaticShape() && resultType.getNumElements() == 0) {
    setResult(ctx, 0, emptyResult(resultShape, element), dtype);
    setResult(ctx, 1, emptyResult(resultShape, i64), onnx::TensorProto::INT64);
    return success();
  }
  MLIRContext *context = ctx.getContext();
  Value input = ctx.getInput(0);
  AffineMap identity = getDimsMap(context, rank + 1,
                                  llvm::to_vector(llvm::seq<int64_t>(0, rank)));
  AffineMap alongJ =
      getDimsMap(context, rank + 1, replacedDims(rank, *axis, rank));

  // ranks[i] = #{j : x[j] before x[i] or (x[j] ties x[i] and j < i)}.
  Value zeros = ctx.createFilled(shape, ctx.createScalar(i64, 0));
  Value ranks =
      buildLoopGeneric(
          ctx, rank + 1, {input, input}, {identity, alongJ}, zeros,
          [&](OpBuilder &b, Location loc, ValueRange args,
              ValueRange indices) -> SmallVector<Value> {
            Value xi = args[0], xj = args[1];
            Value earlier =
                arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                      indices[rank], indices[*axis]);
            Value before = arith::OrIOp::create(
                b, loc, comesBefore(b, loc, xj, xi, dtype, largest),
                arith::AndIOp::create(b, loc, ties(b, loc, xj, xi, dtype),
                                      earlier));
            Value one = arith::ExtUIOp::create(b, loc, i64, before);
            return {arith::AddIOp::create(b, loc, args[2], one)};
          })
          .front();

  // out[r] = x[j] and indices[r] = j where ranks[j] == r.
  Value valuesInit =
      ctx.createFilled(resultShape, ctx.createScalar(element, 0));
  Value indicesInit = ctx.createFilled(resultShape, ctx.createScalar(i64, 0));
  SmallVector<Value> results = buildLoopGeneric(
      ctx, rank + 1, {ranks, input}, {alongJ, alongJ},
      {valuesInit, indicesInit},
      [&](OpBuilder &b, Location loc, ValueRange args,
          ValueRange indices) -> SmallVector<Value> {
        Value r = arith::IndexCastOp::create(b, loc, i64, indices[*axis]);
        Value j = arith::IndexCastOp::create(b, loc, i64, indices[rank]);
        Value match =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, args[0], r);
        return {arith::SelectOp::create(b, loc, match, args[1], args[2]),
                arith::SelectOp::create(b, loc, match, j, args[3])};
      });
  setResult(ctx, 0, TensorOperand::runtime(results[0]), dtype);
  setResult(ctx, 1, TensorOperand::runtime(results[1]),
            onnx::TensorProto::INT64);
  return success();
}

} // namespace

void onnx_import::registerDataMovementConverters(ConverterRegistry &registry) {
  registry.add("Gather", {1, 11, 13}, convertGather);
  registry.add("GatherElements", {11, 13}, convertGatherElements);
  registry.add("GatherND", {11, 12, 13}, convertGatherND);
  registry.add("ScatterElements", {11, 13, 16}, convertScatterElements);
  registry.add("Scatter", {9, 11}, convertScatterElements);
  registry.add("ScatterND", {11, 13, 16}, convertScatterND);
  registry.add("Trilu", {14}, convertTrilu);
  registry.add("OneHot", {9, 11}, convertOneHot);
  registry.add("CumSum", {11, 14}, convertCumSum);
  registry.add("ReverseSequence", {10}, convertReverseSequence);
  registry.add("Compress", {9, 11}, convertCompress);
  registry.add("Resize", {10, 11, 13}, convertResize);
  registry.add("Upsample", {7, 9}, convertResize);
  registry.add("TopK", {1, 10, 11}, convertTopK);
}
