//===- Builders.cpp - Builders shared by the ONNX converters --------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The IR every converter family builds with (Converter.h): elementwise
// generics with broadcasting, casts, operands known at compile time or
// materialized, reshapes, transposes, slices, concatenations and pads of
// operands, indexed (gather-like) generics, reductions over axes.
//
// Size: about 1,100 lines, over the project's 1,000: these are the shared
// vocabulary of the converters, kept in one place so that a family file
// never grows its own copy; the indexed generics and the reductions are the
// first candidates to move to files of their own.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

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
      // A dynamic size broadcast with a static one takes that size (a
      // dynamic dimension is not broadcast: design/0017).
      if (out == 1 || ShapedType::isDynamic(out)) {
        out = dim;
        continue;
      }
      if (ShapedType::isDynamic(dim))
        continue;
      auto diag = ctx.emitError() << "operand shapes";
      for (ArrayRef<int64_t> s : shapes)
        diag << " [" << llvm::make_range(s.begin(), s.end()) << "]";
      diag << " do not broadcast";
      return failure();
    }
  }
  return result;
}

LogicalResult onnx_import::checkDynamicBroadcast(NodeContext &ctx,
                                                 ValueRange inputs) {
  if (llvm::all_of(inputs, [](Value input) {
        return cast<RankedTensorType>(input.getType()).hasStaticShape();
      }))
    return success();
  int64_t rank = 0;
  for (Value input : inputs)
    rank = std::max(rank, cast<RankedTensorType>(input.getType()).getRank());
  // Per result dimension, the first size other than a static 1: every other
  // one must be the same expression. A dynamic size is not broadcast (it
  // may not be 1), and one that differs from another at run time would be
  // read out of bounds.
  for (int64_t d = 0; d < rank; ++d) {
    std::optional<std::pair<AffineExpr, unsigned>> first;
    for (auto [i, input] : llvm::enumerate(inputs)) {
      auto type = cast<RankedTensorType>(input.getType());
      int64_t axis = d - (rank - type.getRank());
      if (axis < 0 || type.getDimSize(axis) == 1)
        continue;
      FailureOr<AffineExpr> size = ctx.getDimExpr(input, axis);
      if (failed(size))
        return failure();
      if (!first) {
        first = {*size, i};
        continue;
      }
      if (!areEqualSizes(*size, first->first))
        return ctx.emitError()
               << "unsupported: dimension " << d << " of the broadcast is "
               << ctx.printSize(first->first) << " in input " << first->second
               << " and " << ctx.printSize(*size) << " in input " << i
               << ", which may differ at run time (a dynamic size is not "
                  "broadcast); name them alike (dim_param) or pin them "
                  "with --dim NAME=SIZE";
    }
  }
  return success();
}

FailureOr<Value> onnx_import::buildElementwise(NodeContext &ctx,
                                               ValueRange inputs,
                                               Type resultElementType,
                                               ScalarBodyFn body) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value input : inputs)
    shapes.push_back(cast<RankedTensorType>(input.getType()).getShape());
  FailureOr<SmallVector<int64_t>> shape = getBroadcastShape(ctx, shapes);
  if (failed(shape) || failed(checkDynamicBroadcast(ctx, inputs)))
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

//===----------------------------------------------------------------------===//
// Data-movement builders
//===----------------------------------------------------------------------===//

TensorOperand TensorOperand::runtime(Value value) {
  TensorOperand operand;
  operand.type = cast<RankedTensorType>(value.getType());
  operand.value = value;
  return operand;
}

TensorOperand TensorOperand::folded(DenseElementsAttr constant) {
  TensorOperand operand;
  operand.type = cast<RankedTensorType>(constant.getType());
  operand.constant = constant;
  return operand;
}

TensorOperand onnx_import::getOperand(NodeContext &ctx, unsigned index) {
  if (DenseElementsAttr constant = ctx.getConstantInput(index))
    return TensorOperand::folded(constant);
  return TensorOperand::runtime(ctx.getInput(index));
}

Value onnx_import::materialize(NodeContext &ctx, const TensorOperand &operand) {
  if (operand.value)
    return operand.value;
  return arith::ConstantOp::create(ctx.getBuilder(), ctx.getLoc(),
                                   operand.constant);
}

/// The empty constant of `type` (no elements), or null when `type` has
/// elements. Results without elements never need IR.
static DenseElementsAttr getEmptyConstant(RankedTensorType type) {
  if (!type.hasStaticShape() || type.getNumElements() != 0)
    return nullptr;
  return DenseElementsAttr::get(type, ArrayRef<Attribute>{});
}

void onnx_import::setResult(NodeContext &ctx, unsigned index,
                            const TensorOperand &result, OnnxDType dtype) {
  if (result.constant)
    ctx.setConstantOutput(index, result.constant, dtype);
  else if (DenseElementsAttr empty = getEmptyConstant(result.type))
    ctx.setConstantOutput(index, empty, dtype);
  else
    ctx.setOutput(index, result.value, dtype);
}

void onnx_import::forEachIndex(ArrayRef<int64_t> shape,
                               function_ref<void(ArrayRef<int64_t>)> fn) {
  if (llvm::is_contained(shape, 0))
    return;
  SmallVector<int64_t> index(shape.size(), 0);
  while (true) {
    fn(index);
    int64_t d = shape.size() - 1;
    for (; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// Row-major strides of `shape`.
static SmallVector<int64_t> getStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

DenseElementsAttr
onnx_import::foldByIndex(DenseElementsAttr input, RankedTensorType type,
                         function_ref<int64_t(ArrayRef<int64_t>)> source,
                         Attribute fill) {
  auto values = input.getValues<Attribute>();
  SmallVector<Attribute> result;
  result.reserve(type.getNumElements());
  forEachIndex(type.getShape(), [&](ArrayRef<int64_t> index) {
    int64_t position = source(index);
    result.push_back(position < 0 ? fill : values[position]);
  });
  return DenseElementsAttr::get(type, result);
}

static Value reshapeValue(NodeContext &ctx, Value value,
                          ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getShape() == shape)
    return value;
  auto target = RankedTensorType::get(shape, type.getElementType());
  OpBuilder &b = ctx.getBuilder();
  Location loc = ctx.getLoc();
  // Rank 0 from or to all-ones shapes: no reassociation groups.
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, target, value,
                                         ArrayRef<ReassociationIndices>{});
  if (target.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, target, value,
                                           ArrayRef<ReassociationIndices>{});
  if (target.getRank() < type.getRank()) {
    if (auto groups =
            getReassociationIndicesForCollapse(type.getShape(), shape))
      return tensor::CollapseShapeOp::create(b, loc, target, value, *groups);
  } else if (target.getRank() > type.getRank()) {
    if (auto groups =
            getReassociationIndicesForCollapse(shape, type.getShape()))
      return tensor::ExpandShapeOp::create(b, loc, target, value, *groups);
  }
  // Otherwise through the flat tensor.
  auto all = [](int64_t rank) {
    return SmallVector<ReassociationIndices>{
        llvm::to_vector(llvm::seq<int64_t>(0, rank))};
  };
  Value flat = value;
  if (type.getRank() != 1)
    flat = tensor::CollapseShapeOp::create(
        b, loc,
        RankedTensorType::get({type.getNumElements()}, type.getElementType()),
        value, all(type.getRank()));
  if (target.getRank() == 1)
    return flat;
  return tensor::ExpandShapeOp::create(b, loc, target, flat,
                                       all(target.getRank()));
}

TensorOperand onnx_import::reshapeOperand(NodeContext &ctx,
                                          const TensorOperand &input,
                                          ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get(shape, input.type.getElementType());
  assert(type.getNumElements() == input.type.getNumElements() &&
         "reshape changes the number of elements");
  if (input.constant)
    return TensorOperand::folded(
        DenseElementsAttr(input.constant).reshape(type));
  if (DenseElementsAttr empty = getEmptyConstant(type))
    return TensorOperand::folded(empty);
  return TensorOperand::runtime(reshapeValue(ctx, input.value, shape));
}

TensorOperand onnx_import::transposeOperand(NodeContext &ctx,
                                            const TensorOperand &input,
                                            ArrayRef<int64_t> perm) {
  ArrayRef<int64_t> shape = input.type.getShape();
  SmallVector<int64_t> resultShape;
  for (int64_t p : perm)
    resultShape.push_back(shape[p]);
  auto type = RankedTensorType::get(resultShape, input.type.getElementType());
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return input;
  if (input.constant) {
    SmallVector<int64_t> strides = getStrides(shape);
    return TensorOperand::folded(
        foldByIndex(input.constant, type, [&](ArrayRef<int64_t> index) {
          int64_t position = 0;
          for (auto [i, p] : llvm::enumerate(perm))
            position += index[i] * strides[p];
          return position;
        }));
  }
  if (DenseElementsAttr empty = getEmptyConstant(type))
    return TensorOperand::folded(empty);
  Value init = ctx.createEmpty(resultShape, type.getElementType());
  return TensorOperand::runtime(
      linalg::TransposeOp::create(ctx.getBuilder(), ctx.getLoc(), input.value,
                                  init, perm)
          .getResult()[0]);
}

TensorOperand onnx_import::sliceOperand(NodeContext &ctx,
                                        const TensorOperand &input,
                                        ArrayRef<int64_t> offsets,
                                        ArrayRef<int64_t> sizes,
                                        ArrayRef<int64_t> strides) {
  ArrayRef<int64_t> shape = input.type.getShape();
  auto type = RankedTensorType::get(sizes, input.type.getElementType());
  bool whole = true;
  for (size_t d = 0; d < shape.size(); ++d)
    whole &= offsets[d] == 0 && sizes[d] == shape[d] &&
             (strides[d] == 1 || sizes[d] <= 1);
  if (whole)
    return input;
  if (input.constant) {
    SmallVector<int64_t> inputStrides = getStrides(shape);
    return TensorOperand::folded(
        foldByIndex(input.constant, type, [&](ArrayRef<int64_t> index) {
          int64_t position = 0;
          for (size_t d = 0; d < index.size(); ++d)
            position += (offsets[d] + index[d] * strides[d]) * inputStrides[d];
          return position;
        }));
  }
  if (DenseElementsAttr empty = getEmptyConstant(type))
    return TensorOperand::folded(empty);
  if (llvm::any_of(strides, [](int64_t s) { return s < 0; })) {
    // Backwards: read each index through a table.
    SmallVector<SmallVector<int64_t>> tables;
    for (size_t d = 0; d < shape.size(); ++d) {
      SmallVector<int64_t> &table = tables.emplace_back();
      if (offsets[d] == 0 && sizes[d] == shape[d] && strides[d] == 1)
        continue;
      for (int64_t i = 0; i < sizes[d]; ++i)
        table.push_back(offsets[d] + i * strides[d]);
    }
    return gatherTables(ctx, input, tables);
  }
  MLIRContext *context = ctx.getContext();
  return TensorOperand::runtime(tensor::ExtractSliceOp::create(
      ctx.getBuilder(), ctx.getLoc(), type, input.value,
      getAsIndexOpFoldResult(context, offsets),
      getAsIndexOpFoldResult(context, sizes),
      getAsIndexOpFoldResult(context, strides)));
}

TensorOperand onnx_import::concatOperands(NodeContext &ctx,
                                          ArrayRef<TensorOperand> inputs,
                                          int64_t axis) {
  SmallVector<int64_t> shape(inputs.front().type.getShape());
  shape[axis] = 0;
  SmallVector<TensorOperand> parts;
  bool allConstant = true;
  for (const TensorOperand &input : inputs) {
    shape[axis] += input.type.getDimSize(axis);
    if (input.type.getNumElements() == 0)
      continue;
    parts.push_back(input);
    allConstant &= bool(input.constant);
  }
  auto type =
      RankedTensorType::get(shape, inputs.front().type.getElementType());
  if (DenseElementsAttr empty = getEmptyConstant(type))
    return TensorOperand::folded(empty);
  if (parts.size() == 1)
    return parts.front();
  if (allConstant) {
    // Row-major: for each outer index, the inner blocks of every part.
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d)
      outer *= shape[d];
    SmallVector<Attribute> values;
    values.reserve(type.getNumElements());
    for (int64_t o = 0; o < outer; ++o) {
      for (const TensorOperand &part : parts) {
        int64_t block = part.type.getNumElements() / outer;
        auto partValues = part.constant.getValues<Attribute>();
        for (int64_t i = 0; i < block; ++i)
          values.push_back(partValues[o * block + i]);
      }
    }
    return TensorOperand::folded(DenseElementsAttr::get(type, values));
  }
  SmallVector<Value> values;
  for (const TensorOperand &part : parts)
    values.push_back(materialize(ctx, part));
  return TensorOperand::runtime(
      tensor::ConcatOp::create(ctx.getBuilder(), ctx.getLoc(), axis, values));
}

TensorOperand onnx_import::broadcastOperand(NodeContext &ctx,
                                            const TensorOperand &input,
                                            ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> inputShape = input.type.getShape();
  if (inputShape == shape)
    return input;
  auto type = RankedTensorType::get(shape, input.type.getElementType());
  int64_t offset = shape.size() - inputShape.size();
  if (input.constant) {
    SmallVector<int64_t> strides = getStrides(inputShape);
    return TensorOperand::folded(
        foldByIndex(input.constant, type, [&](ArrayRef<int64_t> index) {
          int64_t position = 0;
          for (auto [d, dim] : llvm::enumerate(inputShape))
            if (dim != 1)
              position += index[offset + d] * strides[d];
          return position;
        }));
  }
  if (DenseElementsAttr empty = getEmptyConstant(type))
    return TensorOperand::folded(empty);
  MLIRContext *context = ctx.getContext();
  SmallVector<AffineExpr> exprs;
  for (auto [d, dim] : llvm::enumerate(inputShape))
    exprs.push_back(dim == 1 ? getAffineConstantExpr(0, context)
                             : getAffineDimExpr(offset + d, context));
  AffineMap map = AffineMap::get(shape.size(), 0, exprs, context);
  return TensorOperand::runtime(
      buildIndexedGeneric(ctx, shape, type.getElementType(), input.value, map,
                          [](OpBuilder &, Location, ValueRange args,
                             ValueRange) { return args[0]; }));
}

TensorOperand onnx_import::gatherTables(NodeContext &ctx,
                                        const TensorOperand &input,
                                        ArrayRef<SmallVector<int64_t>> tables,
                                        TypedAttr fill) {
  ArrayRef<int64_t> inputShape = input.type.getShape();
  SmallVector<int64_t> shape;
  bool identity = true, fills = false;
  for (auto [d, table] : llvm::enumerate(tables)) {
    shape.push_back(table.empty() ? inputShape[d] : int64_t(table.size()));
    if (!table.empty() &&
        !llvm::equal(table, llvm::seq<int64_t>(0, inputShape[d])))
      identity = false;
    fills |= llvm::any_of(table, [](int64_t i) { return i < 0; });
  }
  if (identity)
    return input;
  auto type = RankedTensorType::get(shape, input.type.getElementType());
  // Folded only when the result is no larger than the input or small: a
  // tiny constant tiled or padded to a huge result is computed at run time,
  // not spelled out by the importer.
  if (input.constant &&
      type.getNumElements() <=
          std::max<int64_t>(kMaxFoldElements, input.type.getNumElements())) {
    SmallVector<int64_t> strides = getStrides(inputShape);
    return TensorOperand::folded(foldByIndex(
        input.constant, type,
        [&](ArrayRef<int64_t> index) {
          int64_t position = 0;
          for (auto [d, table] : llvm::enumerate(tables)) {
            int64_t i = table.empty() ? index[d] : table[index[d]];
            if (i < 0)
              return int64_t(-1);
            position += i * strides[d];
          }
          return position;
        },
        fill));
  }
  if (DenseElementsAttr empty = getEmptyConstant(type))
    return TensorOperand::folded(empty);
  MLIRContext *context = ctx.getContext();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  for (auto [d, table] : llvm::enumerate(tables)) {
    if (table.empty())
      continue;
    inputs.push_back(createI64Tensor(ctx, table));
    maps.push_back(
        AffineMap::get(shape.size(), 0, getAffineDimExpr(d, context), context));
  }
  Value source = materialize(ctx, input);
  return TensorOperand::runtime(buildIndexedGeneric(
      ctx, shape, type.getElementType(), inputs, maps,
      [&](OpBuilder &b, Location loc, ValueRange args,
          ValueRange indices) -> Value {
        SmallVector<Value> position;
        Value valid;
        unsigned next = 0;
        Value zero =
            fills ? arith::ConstantIndexOp::create(b, loc, 0) : Value();
        for (auto [d, table] : llvm::enumerate(tables)) {
          if (table.empty()) {
            position.push_back(indices[d]);
            continue;
          }
          Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                               args[next++]);
          if (fills) {
            Value inRange = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::sge, i, zero);
            valid =
                valid ? arith::AndIOp::create(b, loc, valid, inRange) : inRange;
            i = arith::MaxSIOp::create(b, loc, i, zero);
          }
          position.push_back(i);
        }
        Value element = tensor::ExtractOp::create(b, loc, source, position);
        if (!valid)
          return element;
        Value fillValue = arith::ConstantOp::create(b, loc, fill);
        return arith::SelectOp::create(b, loc, valid, element, fillValue);
      }));
}

Value onnx_import::buildIndexedGeneric(NodeContext &ctx,
                                       ArrayRef<int64_t> shape,
                                       Type elementType, ValueRange inputs,
                                       ArrayRef<AffineMap> inputMaps,
                                       IndexedBodyFn body) {
  OpBuilder &b = ctx.getBuilder();
  MLIRContext *context = ctx.getContext();
  if (shape.empty()) {
    // A 0-d generic whose body extracts is vectorized into an invalid
    // vector.gather: compute one element over a 1-d loop and collapse it.
    SmallVector<AffineMap> maps;
    for (AffineMap map : inputMaps)
      maps.push_back(AffineMap::get(1, 0, map.getResults(), context));
    Value single = buildIndexedGeneric(
        ctx, {1}, elementType, inputs, maps,
        [&](OpBuilder &nested, Location loc, ValueRange args, ValueRange) {
          return body(nested, loc, args, ValueRange{});
        });
    return reshapeOperand(ctx, TensorOperand::runtime(single), {}).value;
  }
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(AffineMap::getMultiDimIdentityMap(shape.size(), context));
  SmallVector<utils::IteratorType> iterators(shape.size(),
                                             utils::IteratorType::parallel);
  Value init = ctx.createEmpty(shape, elementType);
  auto generic = linalg::GenericOp::create(
      b, ctx.getLoc(), init.getType(), inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nested, Location loc, ValueRange args) {
        SmallVector<Value> indices;
        for (size_t d = 0; d < shape.size(); ++d)
          indices.push_back(linalg::IndexOp::create(nested, loc, d));
        Value result = body(nested, loc, args.drop_back(), indices);
        linalg::YieldOp::create(nested, loc, result);
        for (Value index : indices)
          if (index.use_empty())
            index.getDefiningOp()->erase();
      });
  return generic.getResult(0);
}

Value onnx_import::createI64Tensor(NodeContext &ctx, ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({int64_t(values.size())},
                                    ctx.getBuilder().getI64Type());
  return arith::ConstantOp::create(ctx.getBuilder(), ctx.getLoc(),
                                   DenseElementsAttr::get(type, values));
}

Value onnx_import::normalizeIndex(OpBuilder &b, Location loc, Value index,
                                  int64_t size) {
  if (!index.getType().isIndex())
    index = arith::IndexCastOp::create(b, loc, b.getIndexType(), index);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, index, zero);
  Value wrapped = arith::AddIOp::create(
      b, loc, index, arith::ConstantIndexOp::create(b, loc, size));
  index = arith::SelectOp::create(b, loc, negative, wrapped, index);
  index = arith::MaxSIOp::create(b, loc, index, zero);
  return arith::MinSIOp::create(
      b, loc, index,
      arith::ConstantIndexOp::create(b, loc, std::max<int64_t>(size - 1, 0)));
}

//===----------------------------------------------------------------------===//
// Reduction builders
//===----------------------------------------------------------------------===//

AffineMap onnx_import::getDimsMap(MLIRContext *context, int64_t rank,
                                  ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> exprs;
  for (int64_t dim : dims)
    exprs.push_back(getAffineDimExpr(dim, context));
  return AffineMap::get(rank, 0, exprs, context);
}

SmallVector<int64_t> onnx_import::getKeptDims(int64_t rank,
                                              ArrayRef<int64_t> axes) {
  SmallVector<int64_t> kept;
  for (int64_t dim = 0; dim < rank; ++dim)
    if (!llvm::is_contained(axes, dim))
      kept.push_back(dim);
  return kept;
}

SmallVector<int64_t> onnx_import::getReducedShape(ArrayRef<int64_t> shape,
                                                  ArrayRef<int64_t> axes,
                                                  bool keepDims) {
  SmallVector<int64_t> result;
  for (auto [dim, size] : llvm::enumerate(shape)) {
    if (!llvm::is_contained(axes, int64_t(dim)))
      result.push_back(size);
    else if (keepDims)
      result.push_back(1);
  }
  return result;
}

FailureOr<SmallVector<int64_t>>
onnx_import::normalizeAxes(NodeContext &ctx, ArrayRef<int64_t> axes,
                           int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t axis : axes) {
    FailureOr<int64_t> normalized = normalizeAxis(ctx, axis, rank);
    if (failed(normalized))
      return failure();
    if (llvm::is_contained(result, *normalized)) {
      ctx.emitError() << "axis " << axis << " is repeated";
      return failure();
    }
    result.push_back(*normalized);
  }
  llvm::sort(result);
  return result;
}

/// A `linalg.generic` over `domain` whose loops in `axes` are reductions;
/// `outputs` are indexed by the other loops.
static linalg::GenericOp
createGenericOverDomain(NodeContext &ctx, ArrayRef<int64_t> domain,
                        ArrayRef<int64_t> axes, ValueRange inputs,
                        ArrayRef<AffineMap> inputMaps, ValueRange outputs,
                        ReductionBodyFn body) {
  int64_t rank = domain.size();
  SmallVector<AffineMap> maps(inputMaps);
  maps.append(outputs.size(),
              getDimsMap(ctx.getContext(), rank, getKeptDims(rank, axes)));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  for (int64_t axis : axes)
    iterators[axis] = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
      ctx.getBuilder(), ctx.getLoc(), ValueRange(outputs).getTypes(), inputs,
      outputs, maps, iterators,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        SmallVector<Value> results =
            body(nested, loc, args.take_front(inputs.size()),
                 args.drop_front(inputs.size()));
        linalg::YieldOp::create(nested, loc, results);
      });
}

SmallVector<Value>
onnx_import::buildReduction(NodeContext &ctx, ArrayRef<int64_t> domain,
                            ArrayRef<int64_t> axes, ValueRange inputs,
                            ArrayRef<AffineMap> inputMaps, ValueRange inits,
                            ReductionBodyFn body) {
  SmallVector<int64_t> shape = getReducedShape(domain, axes, false);
  SmallVector<Value> outputs;
  for (Value init : inits)
    outputs.push_back(ctx.createFilled(shape, init));
  return createGenericOverDomain(ctx, domain, axes, inputs, inputMaps, outputs,
                                 body)
      .getResults();
}

Value onnx_import::buildParallel(NodeContext &ctx, ArrayRef<int64_t> domain,
                                 ValueRange inputs,
                                 ArrayRef<AffineMap> inputMaps,
                                 Type resultElementType, ScalarBodyFn body) {
  Value init = ctx.createEmpty(domain, resultElementType);
  return createGenericOverDomain(ctx, domain, {}, inputs, inputMaps, init,
                                 [&](OpBuilder &b, Location loc,
                                     ValueRange args,
                                     ValueRange) -> SmallVector<Value> {
                                   return {body(b, loc, args)};
                                 })
      .getResult(0);
}

/// `input` read elementwise, then `reducedOperands` read along the loops
/// not in `axes`.
static std::pair<SmallVector<Value>, SmallVector<AffineMap>>
getFullAndReducedOperands(MLIRContext *context, Value full,
                          ValueRange reducedOperands, ArrayRef<int64_t> axes) {
  int64_t rank = cast<RankedTensorType>(full.getType()).getRank();
  SmallVector<Value> inputs{full};
  SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(rank, context)};
  AffineMap reducedMap = getDimsMap(context, rank, getKeptDims(rank, axes));
  for (Value operand : reducedOperands) {
    inputs.push_back(operand);
    maps.push_back(reducedMap);
  }
  return {inputs, maps};
}

Value onnx_import::reduceOverAxes(NodeContext &ctx, Value input,
                                  ArrayRef<int64_t> axes, Value init,
                                  ValueRange reducedOperands,
                                  CombineFn combine) {
  auto [inputs, maps] =
      getFullAndReducedOperands(ctx.getContext(), input, reducedOperands, axes);
  return buildReduction(
      ctx, cast<RankedTensorType>(input.getType()).getShape(), axes, inputs,
      maps, init,
      [&](OpBuilder &b, Location loc, ValueRange args,
          ValueRange accs) -> SmallVector<Value> {
        return {combine(b, loc, args[0], args.drop_front(), accs[0])};
      })[0];
}

Value onnx_import::mapWithReduced(NodeContext &ctx, Value full,
                                  ValueRange reducedOperands,
                                  ArrayRef<int64_t> axes,
                                  Type resultElementType, ScalarBodyFn body) {
  auto [inputs, maps] =
      getFullAndReducedOperands(ctx.getContext(), full, reducedOperands, axes);
  return buildParallel(ctx, cast<RankedTensorType>(full.getType()).getShape(),
                       inputs, maps, resultElementType, body);
}

Value onnx_import::expandReducedDims(NodeContext &ctx, Value reduced,
                                     ArrayRef<int64_t> domain,
                                     ArrayRef<int64_t> axes) {
  if (axes.empty())
    return reduced;
  // Each kept dimension is grouped with the unit dimensions before it; the
  // trailing ones join the last group (a 0-d source has no groups).
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t dim = 0, rank = domain.size(); dim < rank; ++dim) {
    pending.push_back(dim);
    if (!llvm::is_contained(axes, dim)) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!groups.empty())
    llvm::append_range(groups.back(), pending);
  auto type = RankedTensorType::get(
      getReducedShape(domain, axes, true),
      cast<RankedTensorType>(reduced.getType()).getElementType());
  return tensor::ExpandShapeOp::create(ctx.getBuilder(), ctx.getLoc(), type,
                                       reduced, groups);
}

//===----------------------------------------------------------------------===//
// Elementwise ops with constant folding
//===----------------------------------------------------------------------===//

/// Builds `body` on the constant scalars `args` in `scratch` and folds the
/// ops it built, in order (each sees constant operands once its producers
/// have folded). Returns the result as an integer or float attribute, or
/// null when it does not fold. Leaves `scratch` empty. `numOps` is set to
/// the number of ops the body built.
static TypedAttr foldScalarBody(OpBuilder &b, Block &scratch, Location loc,
                                ArrayRef<Attribute> args, ScalarBodyFn body,
                                size_t &numOps) {
  b.setInsertionPointToEnd(&scratch);
  SmallVector<Value> operands;
  for (Attribute arg : args)
    operands.push_back(arith::ConstantOp::create(b, loc, cast<TypedAttr>(arg)));
  Value result = body(b, loc, operands);
  numOps = scratch.getOperations().size() - args.size();
  for (Operation &op : llvm::make_early_inc_range(scratch)) {
    if (op.hasTrait<OpTrait::ConstantLike>() || op.getNumResults() == 0)
      continue;
    b.setInsertionPoint(&op);
    SmallVector<Value> folded;
    if (failed(b.tryFold(&op, folded)) || folded.empty() ||
        folded.front() == op.getResult(0))
      continue;
    for (auto [old, replacement] : llvm::zip(op.getResults(), folded))
      if (result == old)
        result = replacement;
    op.replaceAllUsesWith(folded);
    op.erase();
  }
  TypedAttr attr;
  if (auto constant = result.getDefiningOp<arith::ConstantOp>())
    if (isa<IntegerAttr, FloatAttr>(constant.getValue()))
      attr = constant.getValue();
  scratch.dropAllDefinedValueUses();
  scratch.clear();
  return attr;
}

/// The most scalar ops that folding one elementwise op may build.
constexpr int64_t kMaxFoldOps = int64_t(1) << 19;

DenseElementsAttr
onnx_import::foldElementwise(Location loc, ArrayRef<DenseElementsAttr> inputs,
                             ArrayRef<int64_t> shape, Type resultElementType,
                             ScalarBodyFn body) {
  auto type = RankedTensorType::get(shape, resultElementType);
  if (DenseElementsAttr empty = getEmptyConstant(type))
    return empty;
  bool allSplats = llvm::all_of(
      inputs, [](DenseElementsAttr input) { return input.isSplat(); });
  if (!allSplats && type.getNumElements() > kMaxFoldElements)
    return nullptr;

  OpBuilder b(loc.getContext());
  Block scratch;
  size_t numOps = 0;
  auto fold = [&](ArrayRef<Attribute> args) -> TypedAttr {
    TypedAttr attr = foldScalarBody(b, scratch, loc, args, body, numOps);
    return attr && attr.getType() == resultElementType ? attr : nullptr;
  };
  if (allSplats) {
    SmallVector<Attribute> args;
    for (DenseElementsAttr input : inputs)
      args.push_back(input.getSplatValue<Attribute>());
    TypedAttr attr = fold(args);
    return attr ? DenseElementsAttr::get(type, attr) : nullptr;
  }

  // Each input's elements and its strides in the broadcast index space (0
  // along broadcast dimensions).
  int64_t rank = shape.size();
  SmallVector<SmallVector<Attribute>> values;
  SmallVector<SmallVector<int64_t>> strides;
  for (DenseElementsAttr input : inputs) {
    ArrayRef<int64_t> inputShape = input.getType().getShape();
    SmallVector<int64_t> inputStrides(rank, 0);
    if (input.isSplat()) {
      values.push_back({input.getSplatValue<Attribute>()});
    } else {
      values.push_back(llvm::to_vector(input.getValues<Attribute>()));
      SmallVector<int64_t> rowMajor = getStrides(inputShape);
      int64_t offset = rank - inputShape.size();
      for (auto [d, dim] : llvm::enumerate(inputShape))
        if (dim != 1)
          inputStrides[offset + d] = rowMajor[d];
    }
    strides.push_back(std::move(inputStrides));
  }
  SmallVector<Attribute> results;
  results.reserve(type.getNumElements());
  bool folded = true;
  SmallVector<Attribute> args(inputs.size());
  forEachIndex(shape, [&](ArrayRef<int64_t> index) {
    if (!folded)
      return;
    for (auto [i, inputValues] : llvm::enumerate(values)) {
      int64_t position = 0;
      for (int64_t d = 0; d < rank; ++d)
        position += index[d] * strides[i][d];
      args[i] = inputValues[position];
    }
    TypedAttr attr = fold(args);
    // Folding costs about a microsecond per scalar op: large results of
    // large bodies (integer Pow) are left to run time.
    folded = attr && (results.size() > 0 ||
                      int64_t(numOps) * type.getNumElements() <= kMaxFoldOps);
    results.push_back(attr);
  });
  return folded ? DenseElementsAttr::get(type, results) : nullptr;
}

FailureOr<TensorOperand> onnx_import::buildElementwiseOperands(
    NodeContext &ctx, ArrayRef<TensorOperand> inputs, Type resultElementType,
    ScalarBodyFn body) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (const TensorOperand &input : inputs)
    shapes.push_back(input.type.getShape());
  FailureOr<SmallVector<int64_t>> shape = getBroadcastShape(ctx, shapes);
  if (failed(shape))
    return failure();
  if (llvm::all_of(inputs,
                   [](const TensorOperand &input) { return input.constant; })) {
    SmallVector<DenseElementsAttr> constants;
    for (const TensorOperand &input : inputs)
      constants.push_back(input.constant);
    if (DenseElementsAttr folded = foldElementwise(
            ctx.getLoc(), constants, *shape, resultElementType, body))
      return TensorOperand::folded(folded);
  }
  SmallVector<Value> values;
  for (const TensorOperand &input : inputs)
    values.push_back(materialize(ctx, input));
  FailureOr<Value> result =
      buildElementwise(ctx, values, resultElementType, body);
  if (failed(result))
    return failure();
  return TensorOperand::runtime(*result);
}

LogicalResult
onnx_import::convertElementwiseNode(NodeContext &ctx, ArrayRef<unsigned> inputs,
                                    OnnxDType resultDType, ScalarBodyFn body,
                                    std::optional<int64_t> alignAxis) {
  FailureOr<Type> resultType = ctx.getElementTypeOrError(resultDType);
  if (failed(resultType))
    return failure();
  SmallVector<TensorOperand> operands;
  for (unsigned index : inputs)
    operands.push_back(getOperand(ctx, index));
  // Legacy broadcasting (opset < 7): without an axis it is numpy's suffix
  // matching; with one, the second operand's dimensions start there.
  if (!alignAxis && ctx.getAttr("broadcast") &&
      ctx.getAttrInt("broadcast", 0) != 0 && ctx.hasAttr("axis"))
    alignAxis = ctx.getAttrInt("axis", 0);
  if (alignAxis && operands.size() >= 2 && operands[1].type.getRank() != 0) {
    ArrayRef<int64_t> first = operands[0].type.getShape();
    ArrayRef<int64_t> second = operands[1].type.getShape();
    int64_t rank = first.size();
    int64_t axis = *alignAxis < 0 ? *alignAxis + rank : *alignAxis;
    if (axis < 0 || axis + int64_t(second.size()) > rank)
      return ctx.emitError() << "operand shape ["
                             << llvm::make_range(second.begin(), second.end())
                             << "] does not fit into ["
                             << llvm::make_range(first.begin(), first.end())
                             << "] from axis " << *alignAxis;
    SmallVector<int64_t> aligned(second);
    aligned.resize(rank - axis, 1);
    operands[1] = reshapeOperand(ctx, operands[1], aligned);
  }
  FailureOr<TensorOperand> result =
      buildElementwiseOperands(ctx, operands, *resultType, body);
  if (failed(result))
    return failure();
  setResult(ctx, 0, *result, resultDType);
  return success();
}

FailureOr<OnnxDType>
onnx_import::getCommonInputDType(NodeContext &ctx, ArrayRef<unsigned> inputs) {
  OnnxDType dtype = ctx.getInputDType(inputs.front());
  for (unsigned index : inputs.drop_front()) {
    if (ctx.getInputDType(index) == dtype)
      continue;
    ctx.emitError() << "operands have different element types ("
                    << getOnnxDTypeName(dtype) << ", "
                    << getOnnxDTypeName(ctx.getInputDType(index)) << ")";
    return failure();
  }
  return dtype;
}

//===----------------------------------------------------------------------===//
// Sliding windows
//===----------------------------------------------------------------------===//

Value onnx_import::buildPad(NodeContext &ctx, Value input,
                            ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                            Value padValue) {
  auto isZero = [](int64_t value) { return value == 0; };
  if (llvm::all_of(low, isZero) && llvm::all_of(high, isZero))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape;
  for (auto [dim, size] : llvm::enumerate(type.getShape()))
    shape.push_back(size + low[dim] + high[dim]);
  MLIRContext *context = ctx.getContext();
  return tensor::PadOp::create(
      ctx.getBuilder(), ctx.getLoc(),
      RankedTensorType::get(shape, type.getElementType()), input,
      getAsIndexOpFoldResult(context, low),
      getAsIndexOpFoldResult(context, high), padValue);
}

FailureOr<SmallVector<int64_t>>
onnx_import::getWindowAttr(NodeContext &ctx, StringRef name, size_t count) {
  SmallVector<int64_t> values = ctx.getAttrInts(name);
  if (values.empty())
    values.assign(count, 1);
  if (values.size() != count) {
    ctx.emitError() << "expects " << count << " values in '" << name
                    << "', got " << values.size();
    return failure();
  }
  if (llvm::any_of(values, [](int64_t value) { return value < 1; })) {
    ctx.emitError() << "'" << name << "' must be positive";
    return failure();
  }
  return values;
}

FailureOr<WindowGeometry>
onnx_import::getWindowGeometry(NodeContext &ctx, ArrayRef<int64_t> inputSpatial,
                               ArrayRef<int64_t> kernel, bool ceilMode) {
  size_t rank = inputSpatial.size();
  WindowGeometry geometry;
  geometry.kernel.assign(kernel.begin(), kernel.end());
  if (kernel.size() != rank ||
      llvm::any_of(kernel, [](int64_t size) { return size < 1; })) {
    ctx.emitError() << "kernel shape ["
                    << llvm::make_range(kernel.begin(), kernel.end())
                    << "] does not fit " << rank << " spatial dimensions";
    return failure();
  }
  FailureOr<SmallVector<int64_t>> strides = getWindowAttr(ctx, "strides", rank);
  FailureOr<SmallVector<int64_t>> dilations =
      getWindowAttr(ctx, "dilations", rank);
  if (failed(strides) || failed(dilations))
    return failure();
  geometry.strides = *strides;
  geometry.dilations = *dilations;

  std::string autoPad = ctx.getAttrString("auto_pad", "NOTSET");
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  SmallVector<int64_t> pads(2 * rank, 0);
  if (autoPad == "NOTSET") {
    if (ctx.hasAttr("pads"))
      pads = ctx.getAttrInts("pads");
    if (pads.size() != 2 * rank) {
      ctx.emitError() << "expects " << 2 * rank << " values in 'pads', got "
                      << pads.size();
      return failure();
    }
    if (llvm::any_of(pads, [](int64_t pad) { return pad < 0; })) {
      (void)ctx.unsupported("negative pads");
      return failure();
    }
  } else if (!same && autoPad != "VALID") {
    (void)ctx.unsupported("auto_pad '" + autoPad + "'");
    return failure();
  }

  for (size_t i = 0; i < rank; ++i) {
    int64_t input = inputSpatial[i], stride = (*strides)[i];
    int64_t extent = (kernel[i] - 1) * (*dilations)[i] + 1;
    int64_t begin = pads[i], end = pads[rank + i], output;
    if (same) {
      // The output covers ceil(input / stride) positions; SAME_UPPER puts
      // the odd padding element at the end, SAME_LOWER at the beginning.
      output = llvm::divideCeil(input, stride);
      int64_t total =
          std::max<int64_t>(0, (output - 1) * stride + extent - input);
      begin = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
      end = total - begin;
    } else {
      int64_t span = input + begin + end - extent;
      if (span < 0) {
        ctx.emitError() << "the window (extent " << extent
                        << ") is larger than the padded input (" << input
                        << " + " << begin + end << ") along spatial axis " << i;
        return failure();
      }
      output = span / stride + 1;
      if (ceilMode && autoPad == "NOTSET") {
        // Round up, but (like PyTorch and onnxruntime) never start a window
        // in the end padding.
        output = llvm::divideCeil(span, stride) + 1;
        if ((output - 1) * stride >= input + begin)
          --output;
      }
    }
    geometry.padsBegin.push_back(begin);
    geometry.padsEnd.push_back(end);
    geometry.output.push_back(output);
    geometry.overhang.push_back(std::max<int64_t>(
        0, (output - 1) * stride + extent - (input + begin + end)));
  }
  return geometry;
}
