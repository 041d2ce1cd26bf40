//===- Contraction.cpp - ONNX contraction converters ----------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Matrix products (MatMul, Gemm, MatMulInteger, QLinearMatMul, Einsum) and
// convolutions (Conv, ConvInteger, QLinearConv, ConvTranspose). The QLinear
// ops end with `requantize` (Quantization.cpp).
//
// The common cases become named linalg ops, which the CPU strategy tiles:
// linalg.matmul (2-D products, batches with a shared right operand stacked
// into rows, Gemm's transposes as indexing maps), linalg.batch_matmul
// (batches without broadcasting) and linalg.conv_* (2-D/3-D, grouped 2-D,
// depthwise). The rest (broadcast batches, 1-D and grouped 3-D
// convolutions, Einsum) is a sum-of-products linalg.generic. Integer
// products wrap like the ONNX reference.
//
// Size: about 1,250 lines, kept in one file because the products and the
// convolutions share the layout helpers (transposes as indexing maps, batch
// stacking, the integer variants' zero points) and the QDQ forms below
// build on both (about 200 lines; the scalar arithmetic of quantization is
// in Quantization.cpp); the next contraction family goes into a file of
// its own.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

namespace {

//===----------------------------------------------------------------------===//
// Shared builders
//===----------------------------------------------------------------------===//

RankedTensorType getTensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

Value createZeros(NodeContext &ctx, ArrayRef<int64_t> shape, Type elementType) {
  return ctx.createFilled(shape, ctx.createScalar(elementType, 0));
}

Value createMul(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::MulFOp::create(b, loc, lhs, rhs);
  return arith::MulIOp::create(b, loc, lhs, rhs);
}

Value createAdd(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (isa<FloatType>(lhs.getType()))
    return arith::AddFOp::create(b, loc, lhs, rhs);
  return arith::AddIOp::create(b, loc, lhs, rhs);
}

int64_t getProduct(ArrayRef<int64_t> values) {
  int64_t product = 1;
  for (int64_t value : values)
    product *= value;
  return product;
}

/// The reassociation of a rank-`rank` shape in which dimensions [first,
/// first + count) form one group and every other dimension its own.
SmallVector<ReassociationIndices> groupDims(int64_t rank, int64_t first,
                                            int64_t count) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (dim > first && dim < first + count)
      groups.back().push_back(dim);
    else
      groups.push_back({dim});
  }
  return groups;
}

/// Merges dimensions [first, first + count) of `value` into one.
Value collapseDims(NodeContext &ctx, Value value, int64_t first,
                   int64_t count) {
  if (count == 1)
    return value;
  return tensor::CollapseShapeOp::create(
      ctx.getBuilder(), ctx.getLoc(), value,
      groupDims(getTensorType(value).getRank(), first, count));
}

/// Splits dimension `dim` of `value` into dimensions of `sizes`.
Value expandDim(NodeContext &ctx, Value value, int64_t dim,
                ArrayRef<int64_t> sizes) {
  if (sizes.size() == 1)
    return value;
  RankedTensorType type = getTensorType(value);
  SmallVector<int64_t> shape(type.getShape().take_front(dim));
  shape.append(sizes.begin(), sizes.end());
  llvm::append_range(shape, type.getShape().drop_front(dim + 1));
  return tensor::ExpandShapeOp::create(
      ctx.getBuilder(), ctx.getLoc(),
      RankedTensorType::get(shape, type.getElementType()), value,
      groupDims(shape.size(), dim, sizes.size()));
}

/// Removes the unit dimensions `dims` of `value`.
Value dropUnitDims(NodeContext &ctx, Value value, ArrayRef<int64_t> dims) {
  if (dims.empty())
    return value;
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices pending;
  for (int64_t dim = 0, rank = getTensorType(value).getRank(); dim < rank;
       ++dim) {
    pending.push_back(dim);
    if (!llvm::is_contained(dims, dim)) {
      groups.push_back(pending);
      pending.clear();
    }
  }
  if (!groups.empty())
    groups.back().append(pending.begin(), pending.end());
  return tensor::CollapseShapeOp::create(ctx.getBuilder(), ctx.getLoc(), value,
                                         groups);
}

/// A `linalg.generic` over `numLoops` loops accumulating the product of
/// `inputs` (read through `inputMaps`) into `init`, which is indexed by the
/// first loops; the remaining loops are reductions. Without reduction loops
/// the product is stored as it is.
Value buildSumOfProducts(NodeContext &ctx, ValueRange inputs,
                         ArrayRef<AffineMap> inputMaps, Value init,
                         int64_t numLoops) {
  MLIRContext *context = ctx.getContext();
  int64_t outputRank = getTensorType(init).getRank();
  SmallVector<AffineMap> maps(inputMaps);
  SmallVector<AffineExpr> outputExprs;
  for (int64_t dim = 0; dim < outputRank; ++dim)
    outputExprs.push_back(getAffineDimExpr(dim, context));
  maps.push_back(AffineMap::get(numLoops, 0, outputExprs, context));
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::parallel);
  for (int64_t dim = outputRank; dim < numLoops; ++dim)
    iterators[dim] = utils::IteratorType::reduction;
  bool accumulate = numLoops > outputRank;
  auto generic = linalg::GenericOp::create(
      ctx.getBuilder(), ctx.getLoc(), init.getType(), inputs, init, maps,
      iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value product = args[0];
        for (Value arg : args.drop_front().drop_back())
          product = createMul(b, loc, product, arg);
        linalg::YieldOp::create(
            b, loc,
            accumulate ? createAdd(b, loc, args.back(), product) : product);
      });
  return generic.getResult(0);
}

/// Checks that the node's operands `indices` have the same ONNX type and
/// that it is a float type (or, with `allowInteger`, an integer type).
FailureOr<OnnxDType> getCommonDType(NodeContext &ctx,
                                    ArrayRef<unsigned> indices,
                                    bool allowInteger) {
  OnnxDType dtype = ctx.getInputDType(indices.front());
  for (unsigned index : indices)
    if (ctx.hasInput(index) && ctx.getInputDType(index) != dtype) {
      ctx.emitError() << "operands have different element types ("
                      << getOnnxDTypeName(dtype) << ", "
                      << getOnnxDTypeName(ctx.getInputDType(index)) << ")";
      return failure();
    }
  if (!isFloatDType(dtype) && !(allowInteger && isIntegerDType(dtype))) {
    (void)ctx.unsupported(Twine("element type ") + getOnnxDTypeName(dtype));
    return failure();
  }
  return dtype;
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

Value createMatmul(NodeContext &ctx, Value lhs, Value rhs, Value init,
                   ArrayRef<NamedAttribute> attributes = {}) {
  return linalg::MatmulOp::create(ctx.getBuilder(), ctx.getLoc(),
                                  init.getType(), ValueRange{lhs, rhs}, init,
                                  attributes)
      .getResult(0);
}

/// [batch..., R, C] as [P, R, C] with P the batch size.
Value toSingleBatch(NodeContext &ctx, Value value) {
  int64_t rank = getTensorType(value).getRank();
  if (rank == 2)
    return expandDim(ctx, value, 0, {1, getTensorType(value).getDimSize(0)});
  return collapseDims(ctx, value, 0, rank - 2);
}

/// numpy.matmul of `lhs` and `rhs` (same element type): 1-D operands are
/// promoted to matrices and the promoted dimension removed from the result;
/// batch dimensions broadcast.
/// A zero-filled tensor of `sizes` (dynamic where not constant).
Value createZeros(NodeContext &ctx, ArrayRef<AffineExpr> sizes,
                  Type elementType) {
  return linalg::FillOp::create(ctx.getBuilder(), ctx.getLoc(),
                                ctx.createScalar(elementType, 0),
                                createEmptyOfSizes(ctx, sizes, elementType))
      .getResult(0);
}

/// MatMul of operands with dynamic sizes (design/0017), both of rank 2 or
/// more: one weight matrix takes the left operand's leading dimensions as
/// rows; equal batches make one batch_matmul. Broadcast batches are not
/// supported.
FailureOr<Value> buildDynamicMatMul(NodeContext &ctx, Value lhs, Value rhs) {
  RankedTensorType lhsType = getTensorType(lhs), rhsType = getTensorType(rhs);
  if (lhsType.getRank() < 2 || rhsType.getRank() < 2)
    return ctx.emitError() << "unsupported: a MatMul of dynamic sizes with "
                              "an operand of rank 1";
  SmallVector<AffineExpr> lhsSizes, rhsSizes;
  for (auto [value, sizes] :
       {std::make_pair(lhs, &lhsSizes), std::make_pair(rhs, &rhsSizes)})
    for (int64_t d = 0; d < getTensorType(value).getRank(); ++d) {
      FailureOr<AffineExpr> size = ctx.getDimExpr(value, d);
      if (failed(size))
        return failure();
      sizes->push_back(*size);
    }
  auto print = [&](ArrayRef<AffineExpr> sizes) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << "[";
    llvm::interleaveComma(sizes, os,
                          [&](AffineExpr e) { os << ctx.printSize(e); });
    os << "]";
    return text;
  };
  AffineExpr m = lhsSizes[lhsSizes.size() - 2], k = lhsSizes.back();
  AffineExpr n = rhsSizes.back();
  ArrayRef<AffineExpr> lhsBatch = ArrayRef(lhsSizes).drop_back(2);
  ArrayRef<AffineExpr> rhsBatch = ArrayRef(rhsSizes).drop_back(2);
  if (rhsSizes[rhsSizes.size() - 2] != k ||
      (!rhsBatch.empty() && lhsBatch != rhsBatch))
    return ctx.emitError() << "unsupported: operands of sizes "
                           << print(lhsSizes) << " and " << print(rhsSizes)
                           << " (a MatMul of dynamic sizes needs equal "
                              "contraction sizes and batches, or one right "
                              "matrix)";
  Type elementType = lhsType.getElementType();
  MLIRContext *context = ctx.getContext();
  SmallVector<AffineExpr> resultSizes(lhsBatch);
  resultSizes.append({m, n});
  AffineExpr rows = m;
  for (AffineExpr size : lhsBatch)
    rows = rows * size;
  if (rhsBatch.empty()) {
    // Rows of the left operand times one matrix.
    SmallVector<AffineExpr> matrixSizes{rows, k};
    FailureOr<Value> matrix = reshapeToSizes(ctx, lhs, lhsSizes, matrixSizes);
    if (failed(matrix))
      return failure();
    Value product = createMatmul(ctx, *matrix, rhs,
                                 createZeros(ctx, {rows, n}, elementType));
    return reshapeToSizes(ctx, product, {rows, n}, resultSizes);
  }
  AffineExpr batch = getAffineConstantExpr(1, context);
  for (AffineExpr size : lhsBatch)
    batch = batch * size;
  SmallVector<AffineExpr> lhs3{batch, m, k}, rhs3{batch, k, n},
      result3{batch, m, n};
  FailureOr<Value> left = reshapeToSizes(ctx, lhs, lhsSizes, lhs3);
  FailureOr<Value> right = reshapeToSizes(ctx, rhs, rhsSizes, rhs3);
  if (failed(left) || failed(right))
    return failure();
  Value product = linalg::BatchMatmulOp::create(
                      ctx.getBuilder(), ctx.getLoc(), ValueRange{*left, *right},
                      createZeros(ctx, result3, elementType))
                      .getResult(0);
  return reshapeToSizes(ctx, product, result3, resultSizes);
}

FailureOr<Value> buildMatMul(NodeContext &ctx, Value lhs, Value rhs) {
  if (!getTensorType(lhs).hasStaticShape() ||
      !getTensorType(rhs).hasStaticShape())
    return buildDynamicMatMul(ctx, lhs, rhs);
  int64_t lhsRank = getTensorType(lhs).getRank();
  int64_t rhsRank = getTensorType(rhs).getRank();
  if (lhsRank == 0 || rhsRank == 0)
    return ctx.emitError() << "operands must have rank 1 or more (got "
                           << lhsRank << " and " << rhsRank << ")";
  if (lhsRank == 1)
    lhs = expandDim(ctx, lhs, 0, {1, getTensorType(lhs).getDimSize(0)});
  if (rhsRank == 1)
    rhs = expandDim(ctx, rhs, 0, {getTensorType(rhs).getDimSize(0), 1});
  ArrayRef<int64_t> lhsShape = getTensorType(lhs).getShape();
  ArrayRef<int64_t> rhsShape = getTensorType(rhs).getShape();
  int64_t m = lhsShape[lhsShape.size() - 2], k = lhsShape.back();
  int64_t n = rhsShape.back();
  if (rhsShape[rhsShape.size() - 2] != k)
    return ctx.emitError() << "operand shapes ["
                           << llvm::make_range(lhsShape.begin(), lhsShape.end())
                           << "] and ["
                           << llvm::make_range(rhsShape.begin(), rhsShape.end())
                           << "] do not fit a matrix product";
  ArrayRef<int64_t> lhsBatch = lhsShape.drop_back(2);
  ArrayRef<int64_t> rhsBatch = rhsShape.drop_back(2);
  FailureOr<SmallVector<int64_t>> batch =
      getBroadcastShape(ctx, {lhsBatch, rhsBatch});
  if (failed(batch))
    return failure();
  int64_t numBatch = batch->size(), batchSize = getProduct(*batch);
  SmallVector<int64_t> shape(*batch);
  shape.append({m, n});
  Type elementType = getTensorType(lhs).getElementType();

  Value result;
  if (getProduct(rhsBatch) == 1) {
    // One right matrix: the left batch stacks into rows of one matmul.
    Value rows = collapseDims(ctx, lhs, 0, lhsShape.size() - 1);
    Value matrix = collapseDims(ctx, rhs, 0, rhsShape.size() - 1);
    result = createMatmul(ctx, rows, matrix,
                          createZeros(ctx, {batchSize * m, n}, elementType));
    if (numBatch > 0)
      result = expandDim(ctx, result, 0, ArrayRef(shape).drop_back());
  } else if (getProduct(lhsBatch) == batchSize &&
             getProduct(rhsBatch) == batchSize) {
    // No broadcasting: one batch_matmul over the flattened batch.
    Value product =
        linalg::BatchMatmulOp::create(
            ctx.getBuilder(), ctx.getLoc(),
            ValueRange{toSingleBatch(ctx, lhs), toSingleBatch(ctx, rhs)},
            createZeros(ctx, {batchSize, m, n}, elementType))
            .getResult(0);
    result = expandDim(ctx, product, 0, *batch);
  } else {
    // Broadcast batches: loops (batch..., m, n, k).
    MLIRContext *context = ctx.getContext();
    int64_t numLoops = numBatch + 3;
    auto operandMap = [&](ArrayRef<int64_t> operandBatch, int64_t row,
                          int64_t col) {
      SmallVector<AffineExpr> exprs;
      int64_t offset = numBatch - operandBatch.size();
      for (auto [i, size] : llvm::enumerate(operandBatch))
        exprs.push_back(size == 1 && (*batch)[offset + i] != 1
                            ? getAffineConstantExpr(0, context)
                            : getAffineDimExpr(offset + i, context));
      exprs.push_back(getAffineDimExpr(row, context));
      exprs.push_back(getAffineDimExpr(col, context));
      return AffineMap::get(numLoops, 0, exprs, context);
    };
    result =
        buildSumOfProducts(ctx, {lhs, rhs},
                           {operandMap(lhsBatch, numBatch, numBatch + 2),
                            operandMap(rhsBatch, numBatch + 2, numBatch + 1)},
                           createZeros(ctx, shape, elementType), numLoops);
  }
  SmallVector<int64_t> promoted;
  if (lhsRank == 1)
    promoted.push_back(numBatch);
  if (rhsRank == 1)
    promoted.push_back(numBatch + 1);
  return dropUnitDims(ctx, result, promoted);
}

FailureOr<bool> convertQuantizedMatMul(NodeContext &ctx, bool isGemm);

LogicalResult convertMatMul(NodeContext &ctx) {
  if (FailureOr<bool> done = convertQuantizedMatMul(ctx, /*isGemm=*/false);
      failed(done) || *done)
    return failure(failed(done));
  FailureOr<OnnxDType> dtype = getCommonDType(ctx, {0, 1}, true);
  if (failed(dtype))
    return failure();
  FailureOr<Value> result = buildMatMul(ctx, ctx.getInput(0), ctx.getInput(1));
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result, *dtype);
  return success();
}

/// Gemm: alpha * A' * B' + beta * C with A', B' optionally transposed (as
/// matmul indexing maps) and C broadcast to the result (unidirectionally).
LogicalResult convertGemm(NodeContext &ctx) {
  if (FailureOr<bool> done = convertQuantizedMatMul(ctx, /*isGemm=*/true);
      failed(done) || *done)
    return failure(failed(done));
  FailureOr<OnnxDType> dtype = getCommonDType(ctx, {0, 1, 2}, true);
  if (failed(dtype))
    return failure();
  if (ctx.getInputRank(0) != 2 || ctx.getInputRank(1) != 2)
    return ctx.emitError() << "A and B must be matrices (got ranks "
                           << ctx.getInputRank(0) << " and "
                           << ctx.getInputRank(1) << ")";
  bool transA = ctx.getAttrInt("transA", 0) != 0;
  bool transB = ctx.getAttrInt("transB", 0) != 0;
  ArrayRef<int64_t> aShape = ctx.getInputShape(0),
                    bShape = ctx.getInputShape(1);
  int64_t m = aShape[transA ? 1 : 0], k = aShape[transA ? 0 : 1];
  int64_t n = bShape[transB ? 0 : 1];
  if (bShape[transB ? 1 : 0] != k)
    return ctx.emitError() << "A' [" << m << ", " << k << "] and B' ["
                           << bShape[transB ? 1 : 0] << ", " << n
                           << "] do not fit a matrix product";
  double alpha = ctx.getAttrFloat("alpha", 1.0);
  double beta = ctx.getAttrFloat("beta", 1.0);
  bool isFloat = isFloatDType(*dtype);
  if (!isFloat && (alpha != std::trunc(alpha) || beta != std::trunc(beta)))
    return ctx.unsupported("non-integral alpha or beta with integer operands");
  Value c;
  if (ctx.hasInput(2)) {
    ArrayRef<int64_t> cShape = ctx.getInputShape(2);
    int64_t target[2] = {m, n};
    bool fits = cShape.size() <= 2;
    for (size_t i = 0; fits && i < cShape.size(); ++i) {
      int64_t size = cShape[cShape.size() - 1 - i];
      fits = size == 1 || size == target[1 - i];
    }
    if (!fits)
      return ctx.emitError()
             << "C of shape [" << llvm::make_range(cShape.begin(), cShape.end())
             << "] does not broadcast to [" << m << ", " << n << "]";
    c = ctx.getInput(2);
  }

  MLIRContext *context = ctx.getContext();
  OpBuilder &builder = ctx.getBuilder();
  Type elementType = ctx.getInputType(0).getElementType();
  auto scale = [&](OpBuilder &b, Location loc, Value value, double factor) {
    if (factor == 1.0)
      return value;
    Value constant =
        isFloat
            ? arith::ConstantOp::create(b, loc,
                                        b.getFloatAttr(elementType, factor))
                  .getResult()
            : arith::ConstantOp::create(
                  b, loc,
                  b.getIntegerAttr(elementType, static_cast<int64_t>(factor)))
                  .getResult();
    return createMul(b, loc, value, constant);
  };
  // C (times beta) broadcast to [M, N]: the accumulator of the product when
  // alpha is 1.
  auto cMap = [&](int64_t rank) {
    SmallVector<AffineExpr> exprs;
    ArrayRef<int64_t> cShape = ctx.getInputShape(2);
    for (auto [i, size] : llvm::enumerate(cShape)) {
      int64_t dim = rank - cShape.size() + i;
      exprs.push_back(size == 1 ? getAffineConstantExpr(0, context)
                                : getAffineDimExpr(dim, context));
    }
    return AffineMap::get(rank, 0, exprs, context);
  };
  Value init;
  if (c && alpha == 1.0)
    init = buildParallel(ctx, {m, n}, c, cMap(2), elementType,
                         [&](OpBuilder &b, Location loc, ValueRange args) {
                           return scale(b, loc, args[0], beta);
                         });
  else
    init = createZeros(ctx, {m, n}, elementType);

  // Loops (m, n, k); transposed operands swap their map's results.
  AffineExpr dm = getAffineDimExpr(0, context),
             dn = getAffineDimExpr(1, context),
             dk = getAffineDimExpr(2, context);
  SmallVector<NamedAttribute> attributes;
  if (transA || transB) {
    SmallVector<SmallVector<AffineExpr, 2>> operandExprs{
        transA ? SmallVector<AffineExpr, 2>{dk, dm}
               : SmallVector<AffineExpr, 2>{dm, dk},
        transB ? SmallVector<AffineExpr, 2>{dn, dk}
               : SmallVector<AffineExpr, 2>{dk, dn},
        {dm, dn}};
    SmallVector<Attribute> maps;
    for (ArrayRef<AffineExpr> exprs : operandExprs)
      maps.push_back(AffineMapAttr::get(AffineMap::get(3, 0, exprs, context)));
    attributes.push_back(
        builder.getNamedAttr("indexing_maps", builder.getArrayAttr(maps)));
  }
  Value result =
      createMatmul(ctx, ctx.getInput(0), ctx.getInput(1), init, attributes);
  if (alpha != 1.0) {
    SmallVector<Value> operands{result};
    SmallVector<AffineMap> maps{AffineMap::getMultiDimIdentityMap(2, context)};
    if (c) {
      operands.push_back(c);
      maps.push_back(cMap(2));
    }
    result = buildParallel(ctx, {m, n}, operands, maps, elementType,
                           [&](OpBuilder &b, Location loc, ValueRange args) {
                             Value value = scale(b, loc, args[0], alpha);
                             if (args.size() == 1)
                               return value;
                             return createAdd(b, loc, value,
                                              scale(b, loc, args[1], beta));
                           });
  }
  ctx.setOutput(0, result, *dtype);
  return success();
}

/// Input `index` (int8 or uint8) minus its zero point (input `zeroPoint`,
/// optional) as i32. A 1-D zero point of a tensor of rank 2 or more holds
/// one value per index of dimension `axis` (negative: from the end).
FailureOr<Value> subtractZeroPoint(NodeContext &ctx, unsigned index,
                                   unsigned zeroPoint, int64_t axis) {
  OnnxDType dtype = ctx.getInputDType(index);
  if (dtype != onnx::TensorProto::INT8 && dtype != onnx::TensorProto::UINT8) {
    (void)ctx.unsupported(Twine("element type ") + getOnnxDTypeName(dtype) +
                          " (expects int8 or uint8)");
    return failure();
  }
  Value input = ctx.getInput(index);
  if (!ctx.hasInput(zeroPoint))
    return castTensor(ctx, input, dtype, onnx::TensorProto::INT32);
  if (ctx.getInputDType(zeroPoint) != dtype) {
    ctx.emitError() << "zero point of type "
                    << getOnnxDTypeName(ctx.getInputDType(zeroPoint))
                    << " for an input of type " << getOnnxDTypeName(dtype);
    return failure();
  }
  Value zero = ctx.getInput(zeroPoint);
  int64_t rank = ctx.getInputRank(index);
  ArrayRef<int64_t> zeroShape = ctx.getInputShape(zeroPoint);
  if (zeroShape.size() == 1 && rank >= 2) {
    SmallVector<int64_t> sizes{zeroShape[0]};
    sizes.append(axis < 0 ? -axis - 1 : rank - 1 - axis, 1);
    zero = expandDim(ctx, zero, 0, sizes);
  }
  ArrayRef<int64_t> shape = ctx.getInputShape(index);
  ArrayRef<int64_t> alignedShape = getTensorType(zero).getShape();
  FailureOr<SmallVector<int64_t>> broadcast =
      getBroadcastShape(ctx, {shape, alignedShape});
  if (failed(broadcast))
    return failure();
  if (ArrayRef<int64_t>(*broadcast) != shape) {
    ctx.emitError() << "zero point of shape ["
                    << llvm::make_range(zeroShape.begin(), zeroShape.end())
                    << "] does not fit an input of shape ["
                    << llvm::make_range(shape.begin(), shape.end()) << "]";
    return failure();
  }
  Type i32 = ctx.getBuilder().getI32Type();
  return buildElementwise(
      ctx, {input, zero}, i32,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        return arith::SubIOp::create(
            b, loc,
            castScalar(b, loc, args[0], dtype, onnx::TensorProto::INT32),
            castScalar(b, loc, args[1], dtype, onnx::TensorProto::INT32));
      });
}

/// The i32 product of MatMulInteger's (and QLinearMatMul's) operands on
/// their 8-bit values, when B is a constant int8 matrix whose zero point is
/// 0 and A's zero point is one value (of any origin): a uint8 A shifted to
/// int8 (a ^ 0x80 = a - 128), the i8 x i8 -> i32 matmul, plus B's column
/// sums (a constant) times (128 - za), or -za for an int8 A. Since
/// sum (a - za) b = sum (a - 128) b + (128 - za) sum b, this is exactly the
/// product of the zero-point-adjusted operands in i32 (both wrap alike);
/// the matmul reads bytes, not 32-bit integers, and runs on the CPU's
/// dot-product instructions where it has them. Value() when the operands
/// are not of that form.
FailureOr<Value> buildByteMatMul(NodeContext &ctx, unsigned lhs,
                                 unsigned lhsZero, unsigned rhs,
                                 unsigned rhsZero) {
  OnnxDType lhsType = ctx.getInputDType(lhs);
  if ((lhsType != onnx::TensorProto::UINT8 &&
       lhsType != onnx::TensorProto::INT8) ||
      ctx.getInputDType(rhs) != onnx::TensorProto::INT8 ||
      !ctx.getImportedInput(rhs).constant || ctx.getInputRank(rhs) != 2 ||
      ctx.getInputRank(lhs) < 2)
    return Value();
  // B's values, whatever its size (its column sums are all that is
  // computed here).
  QuantizedOrigin origin;
  origin.kind = QuantizedOrigin::Kind::Dequantized;
  origin.integer = ctx.getImportedInputRecord(rhs);
  origin.scale = DenseElementsAttr::get(
      RankedTensorType::get({1}, ctx.getBuilder().getF32Type()), 1.0f);
  std::optional<std::vector<int32_t>> weights = getZeroAdjustedValues(origin);
  if (!weights)
    return Value();
  if (ctx.hasInput(rhsZero)) {
    DenseElementsAttr zero = ctx.getConstantInput(rhsZero);
    if (!zero || ctx.getInputDType(rhsZero) != onnx::TensorProto::INT8 ||
        llvm::any_of(zero.getValues<APInt>(),
                     [](const APInt &value) { return !value.isZero(); }))
      return Value();
  }
  bool hasLhsZero = ctx.hasInput(lhsZero);
  if (hasLhsZero && (ctx.getInputType(lhsZero).getNumElements() != 1 ||
                     ctx.getInputDType(lhsZero) != lhsType))
    return Value();
  ArrayRef<int64_t> lhsShape = ctx.getInputShape(lhs);
  ArrayRef<int64_t> rhsShape = ctx.getInputShape(rhs);
  int64_t k = rhsShape[0], n = rhsShape[1];
  if (lhsShape.back() != k)
    return Value();

  SmallVector<int32_t> columnSums(n, 0);
  for (auto [index, value] : llvm::enumerate(*weights))
    columnSums[index % n] += value;
  OpBuilder &b = ctx.getBuilder();
  Type i32 = b.getI32Type();
  bool isUnsigned = lhsType == onnx::TensorProto::UINT8;
  Value input = ctx.getInput(lhs);
  if (isUnsigned) {
    FailureOr<Value> shifted = shiftToSigned(ctx, input);
    if (failed(shifted))
      return failure();
    input = *shifted;
  }
  Value rows = collapseDims(ctx, input, 0, lhsShape.size() - 1);
  Value product = createMatmul(
      ctx, rows, ctx.getInput(rhs),
      createZeros(ctx, {getTensorType(rows).getDimSize(0), n}, i32));
  if (lhsShape.size() > 2)
    product = expandDim(ctx, product, 0, lhsShape.drop_back());

  // + (128 - za) * sum b (uint8 A), - za * sum b (int8 A).
  Value sums = arith::ConstantOp::create(
      b, ctx.getLoc(),
      DenseElementsAttr::get(RankedTensorType::get({n}, i32),
                             ArrayRef(columnSums)));
  if (!hasLhsZero && !isUnsigned)
    return product;
  SmallVector<Value> operands = {product, sums};
  if (hasLhsZero)
    operands.push_back(ctx.getInput(lhsZero));
  return buildElementwise(
      ctx, operands, i32,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value offset = arith::ConstantOp::create(
            b, loc, b.getI32IntegerAttr(isUnsigned ? 128 : 0));
        if (hasLhsZero)
          offset = arith::SubIOp::create(
              b, loc, offset,
              castScalar(b, loc, args[2], lhsType, onnx::TensorProto::INT32));
        Value correction = arith::MulIOp::create(b, loc, offset, args[1]);
        return arith::AddIOp::create(b, loc, args[0], correction);
      });
}

/// The i32 product of MatMulInteger's (and QLinearMatMul's) operands with
/// their zero points subtracted (per row of A, per column of B): on the
/// 8-bit values where buildByteMatMul can, else in i32.
FailureOr<Value> buildIntegerMatMul(NodeContext &ctx, unsigned lhs,
                                    unsigned lhsZero, unsigned rhs,
                                    unsigned rhsZero) {
  if (FailureOr<Value> bytes = buildByteMatMul(ctx, lhs, lhsZero, rhs, rhsZero);
      failed(bytes) || *bytes)
    return bytes;
  FailureOr<Value> lhsValue = subtractZeroPoint(ctx, lhs, lhsZero, -2);
  if (failed(lhsValue))
    return failure();
  FailureOr<Value> rhsValue = subtractZeroPoint(ctx, rhs, rhsZero, -1);
  if (failed(rhsValue))
    return failure();
  return buildMatMul(ctx, *lhsValue, *rhsValue);
}

LogicalResult convertMatMulInteger(NodeContext &ctx) {
  FailureOr<Value> result = buildIntegerMatMul(ctx, 0, 2, 1, 3);
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result, onnx::TensorProto::INT32);
  return success();
}

/// QLinearMatMul: the i32 product of the zero-point-adjusted operands,
/// requantized (`requantize`). B's scale and zero point may hold one value
/// per column.
LogicalResult convertQLinearMatMul(NodeContext &ctx) {
  for (unsigned index : {1u, 4u, 6u, 7u})
    if (!ctx.hasInput(index))
      return ctx.emitError() << "input " << index << " is missing";
  if (ctx.getInputType(1).getNumElements() != 1 ||
      ctx.getInputType(2).getNumElements() != 1)
    return ctx.unsupported("a per-row scale or zero point of A");
  FailureOr<Value> acc = buildIntegerMatMul(ctx, 0, 2, 3, 5);
  if (failed(acc))
    return failure();
  FailureOr<Value> result =
      requantize(ctx, *acc, {1, 4}, getTensorType(*acc).getRank() - 1, 6, 7);
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result, ctx.getInputDType(7));
  return success();
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

/// One term of an Einsum equation: its labels, and where the ellipsis
/// stands among them (-1: none).
struct EinsumTerm {
  SmallVector<char> labels;
  int64_t ellipsis = -1;
};

FailureOr<EinsumTerm> parseEinsumTerm(NodeContext &ctx, StringRef text) {
  EinsumTerm term;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (llvm::isAlpha(c)) {
      term.labels.push_back(c);
      continue;
    }
    if (text.substr(i).starts_with("...") && term.ellipsis < 0) {
      term.ellipsis = term.labels.size();
      i += 2;
      continue;
    }
    ctx.emitError() << "malformed Einsum term '" << text << "'";
    return failure();
  }
  return term;
}

/// Einsum as one sum-of-products linalg.generic: loops over the output
/// dimensions (in output order), then over the summed labels.
LogicalResult convertEinsum(NodeContext &ctx) {
  SmallVector<unsigned> indices;
  for (unsigned i = 0; i < ctx.getNumInputs(); ++i)
    indices.push_back(i);
  if (indices.empty())
    return ctx.emitError() << "expects at least one input";
  FailureOr<OnnxDType> dtype = getCommonDType(ctx, indices, true);
  if (failed(dtype))
    return failure();
  std::string equation;
  for (char c : ctx.getAttrString("equation", ""))
    if (!llvm::isSpace(c))
      equation.push_back(c);
  auto [lhs, rhs] = StringRef(equation).split("->");
  bool explicitOutput = StringRef(equation).contains("->");
  SmallVector<StringRef> inputTexts;
  lhs.split(inputTexts, ',');
  if (inputTexts.size() != indices.size())
    return ctx.emitError() << "equation '" << equation << "' has "
                           << inputTexts.size() << " input terms for "
                           << indices.size() << " inputs";

  // Label sizes and the broadcast shape of the ellipsis.
  SmallVector<EinsumTerm> terms;
  std::map<char, int64_t> sizes, counts;
  SmallVector<SmallVector<int64_t>> ellipsisShapes;
  for (auto [index, text] : llvm::enumerate(inputTexts)) {
    FailureOr<EinsumTerm> term = parseEinsumTerm(ctx, text);
    if (failed(term))
      return failure();
    ArrayRef<int64_t> shape = ctx.getInputShape(index);
    int64_t ellipsisRank = int64_t(shape.size()) - term->labels.size();
    if (ellipsisRank < 0 || (term->ellipsis < 0 && ellipsisRank != 0))
      return ctx.emitError() << "term '" << text << "' does not fit input "
                             << index << " of rank " << shape.size();
    int64_t start = std::max<int64_t>(term->ellipsis, 0);
    ellipsisShapes.emplace_back(shape.slice(start, ellipsisRank));
    for (auto [i, label] : llvm::enumerate(term->labels)) {
      int64_t size = shape[i < size_t(start) ? i : i + ellipsisRank];
      auto [it, inserted] = sizes.try_emplace(label, size);
      if (!inserted && it->second != size)
        return ctx.emitError() << "label '" << label << "' has sizes "
                               << it->second << " and " << size;
      ++counts[label];
    }
    terms.push_back(*term);
  }
  SmallVector<ArrayRef<int64_t>> ellipsisRefs(ellipsisShapes.begin(),
                                              ellipsisShapes.end());
  FailureOr<SmallVector<int64_t>> ellipsisShape =
      getBroadcastShape(ctx, ellipsisRefs);
  if (failed(ellipsisShape))
    return failure();
  int64_t ellipsisRank = ellipsisShape->size();

  // The output term: explicit, or the ellipsis then the labels used once,
  // in alphabetical order.
  EinsumTerm output;
  if (explicitOutput) {
    FailureOr<EinsumTerm> term = parseEinsumTerm(ctx, rhs);
    if (failed(term))
      return failure();
    output = *term;
    for (auto [i, label] : llvm::enumerate(output.labels))
      if (!sizes.count(label) ||
          llvm::is_contained(ArrayRef(output.labels).take_front(i), label))
        return ctx.emitError() << "output label '" << label
                               << "' is repeated or not an input label";
  } else {
    output.ellipsis = ellipsisRank > 0 ? 0 : -1;
    for (auto [label, count] : counts)
      if (count == 1)
        output.labels.push_back(label);
  }

  // Loops: output dimensions, then summed ellipsis dimensions and labels.
  std::map<char, int64_t> labelLoop;
  SmallVector<int64_t> ellipsisLoop(ellipsisRank, -1), outputShape;
  int64_t numLoops = 0;
  auto addEllipsisLoops = [&]() {
    for (int64_t i = 0; i < ellipsisRank; ++i) {
      ellipsisLoop[i] = numLoops++;
      outputShape.push_back((*ellipsisShape)[i]);
    }
  };
  for (auto [i, label] : llvm::enumerate(output.labels)) {
    if (int64_t(i) == output.ellipsis)
      addEllipsisLoops();
    labelLoop[label] = numLoops++;
    outputShape.push_back(sizes[label]);
  }
  if (output.ellipsis == int64_t(output.labels.size()))
    addEllipsisLoops();
  for (int64_t &loop : ellipsisLoop)
    if (loop < 0)
      loop = numLoops++;
  for (const EinsumTerm &term : terms)
    for (char label : term.labels)
      if (!labelLoop.count(label))
        labelLoop[label] = numLoops++;

  MLIRContext *context = ctx.getContext();
  SmallVector<AffineMap> maps;
  SmallVector<Value> inputs;
  for (auto [index, term] : llvm::enumerate(terms)) {
    SmallVector<AffineExpr> exprs;
    ArrayRef<int64_t> shape = ellipsisShapes[index];
    auto addEllipsis = [&]() {
      int64_t offset = ellipsisRank - shape.size();
      for (auto [i, size] : llvm::enumerate(shape))
        exprs.push_back(
            size == 1 && (*ellipsisShape)[offset + i] != 1
                ? getAffineConstantExpr(0, context)
                : getAffineDimExpr(ellipsisLoop[offset + i], context));
    };
    for (auto [i, label] : llvm::enumerate(term.labels)) {
      if (int64_t(i) == term.ellipsis)
        addEllipsis();
      exprs.push_back(getAffineDimExpr(labelLoop[label], context));
    }
    if (term.ellipsis == int64_t(term.labels.size()))
      addEllipsis();
    maps.push_back(AffineMap::get(numLoops, 0, exprs, context));
    inputs.push_back(ctx.getInput(index));
  }
  Value init =
      createZeros(ctx, outputShape, ctx.getInputType(0).getElementType());
  ctx.setOutput(0, buildSumOfProducts(ctx, inputs, maps, init, numLoops),
                *dtype);
  return success();
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

/// The grouped convolution of `input` [N, C, spatial...] (already padded)
/// with `filter` [M, C/group, kernel...], accumulated into `init`
/// [N, M, output...].
Value buildConvolution(NodeContext &ctx, Value input, Value filter, Value init,
                       int64_t group, ArrayRef<int64_t> strides,
                       ArrayRef<int64_t> dilations) {
  OpBuilder &b = ctx.getBuilder();
  Location loc = ctx.getLoc();
  int64_t spatial = strides.size();
  int64_t channels = getTensorType(input).getDimSize(1);
  int64_t outChannels = getTensorType(filter).getDimSize(0);
  Attribute stridesAttr = b.getI64TensorAttr(strides);
  Attribute dilationsAttr = b.getI64TensorAttr(dilations);
  auto create = [&](auto op, Value lhs, Value rhs, Value out) -> Value {
    return decltype(op)::create(b, loc, out.getType(), ValueRange{lhs, rhs},
                                out, stridesAttr, dilationsAttr)
        .getResult(0);
  };
  // 1-D convolutions are generics: the strategy does not tile convolutions
  // and the 1-D convolution vectorizer unrolls the kernel over vectors as
  // wide as the whole output (minutes of compile time for long signals).
  if (group == 1) {
    if (spatial == 2)
      return create(linalg::Conv2DNchwFchwOp(), input, filter, init);
    if (spatial == 3)
      return create(linalg::Conv3DNcdhwFcdhwOp(), input, filter, init);
  } else if (group == channels && outChannels == channels &&
             (spatial == 2 || spatial == 3)) {
    // Depthwise: one filter per channel, [C, 1, kernel...] -> [C, kernel...].
    Value depthwise = collapseDims(ctx, filter, 0, 2);
    if (spatial == 2)
      return create(linalg::DepthwiseConv2DNchwChwOp(), input, depthwise, init);
    return create(linalg::DepthwiseConv3DNcdhwCdhwOp(), input, depthwise, init);
  }

  // Grouped: [N, G, C/G, spatial...] * [G, M/G, C/G, kernel...] into
  // [N, G, M/G, output...].
  Value groupedInput = expandDim(ctx, input, 1, {group, channels / group});
  Value groupedFilter = expandDim(ctx, filter, 0, {group, outChannels / group});
  Value groupedInit = expandDim(ctx, init, 1, {group, outChannels / group});
  Value result;
  if (spatial == 2) {
    result = create(linalg::Conv2DNgchwGfchwOp(), groupedInput, groupedFilter,
                    groupedInit);
  } else {
    // Loops (n, g, f, output..., c, kernel...).
    MLIRContext *context = ctx.getContext();
    int64_t numLoops = 4 + 2 * spatial;
    auto dim = [&](int64_t i) { return getAffineDimExpr(i, context); };
    SmallVector<AffineExpr> inputExprs{dim(0), dim(1), dim(3 + spatial)};
    SmallVector<AffineExpr> filterExprs{dim(1), dim(2), dim(3 + spatial)};
    for (int64_t i = 0; i < spatial; ++i) {
      inputExprs.push_back(dim(3 + i) * strides[i] +
                           dim(4 + spatial + i) * dilations[i]);
      filterExprs.push_back(dim(4 + spatial + i));
    }
    result =
        buildSumOfProducts(ctx, {groupedInput, groupedFilter},
                           {AffineMap::get(numLoops, 0, inputExprs, context),
                            AffineMap::get(numLoops, 0, filterExprs, context)},
                           groupedInit, numLoops);
  }
  return collapseDims(ctx, result, 1, 2);
}

/// The initial value of a convolution result [N, M, output...]: the bias
/// [M] broadcast, or zeros.
Value buildConvolutionInit(NodeContext &ctx, ArrayRef<int64_t> shape,
                           Type elementType, Value bias) {
  if (!bias)
    return createZeros(ctx, shape, elementType);
  MLIRContext *context = ctx.getContext();
  return buildParallel(
      ctx, shape, bias,
      AffineMap::get(shape.size(), 0, getAffineDimExpr(1, context), context),
      elementType,
      [](OpBuilder &, Location, ValueRange args) -> Value { return args[0]; });
}

/// Checks the operand shapes of Conv/ConvTranspose: `input` [N, C, ...],
/// `filter` of the same rank with `filterChannels` input channels per group
/// along `channelDim`, and the optional `bias` [outChannels]. Returns the
/// kernel shape.
FailureOr<SmallVector<int64_t>>
checkConvolutionOperands(NodeContext &ctx, Value input,
                         RankedTensorType filterType, Value bias, int64_t group,
                         int64_t channelDim, int64_t outChannels) {
  ArrayRef<int64_t> inputShape = getTensorType(input).getShape();
  ArrayRef<int64_t> filterShape = filterType.getShape();
  if (inputShape.size() < 3 || filterShape.size() != inputShape.size()) {
    ctx.emitError() << "expects an input of rank 3 or more and a filter of "
                       "the same rank (got ranks "
                    << inputShape.size() << " and " << filterShape.size()
                    << ")";
    return failure();
  }
  int64_t channels = inputShape[1];
  int64_t expected = channelDim == 1 ? filterShape[1] * group : filterShape[0];
  if (group < 1 || channels != expected || channels % group != 0 ||
      outChannels % group != 0) {
    ctx.emitError() << "input channels (" << channels << "), filter shape ["
                    << llvm::make_range(filterShape.begin(), filterShape.end())
                    << "] and group " << group << " do not fit";
    return failure();
  }
  if (bias && (getTensorType(bias).getRank() != 1 ||
               getTensorType(bias).getDimSize(0) != outChannels)) {
    ctx.emitError() << "bias must have shape [" << outChannels << "]";
    return failure();
  }
  SmallVector<int64_t> kernel(filterShape.drop_front(2));
  if (ctx.hasAttr("kernel_shape") &&
      ctx.getAttrInts("kernel_shape") != kernel) {
    ctx.emitError() << "kernel_shape does not match the filter shape";
    return failure();
  }
  return kernel;
}

/// Conv (and ConvInteger, QLinearConv on the zero-point-adjusted i32
/// operands): pad with zeros (or `padValue`), then convolve into the
/// broadcast bias (of `accumulatorType`, by default the input's).
FailureOr<Value> buildConvolutionNode(NodeContext &ctx, Value input,
                                      Value filter, Value bias,
                                      Value padValue = {},
                                      Type accumulatorType = {}) {
  int64_t group = ctx.getAttrInt("group", 1);
  ArrayRef<int64_t> inputShape = getTensorType(input).getShape();
  // A filter of rank 0 is refused by checkConvolutionOperands (found by the
  // ONNX fuzzer: it used to be read out of bounds here).
  RankedTensorType filterType = getTensorType(filter);
  int64_t outChannels =
      filterType.getRank() >= 1 ? filterType.getDimSize(0) : 0;
  FailureOr<SmallVector<int64_t>> kernel = checkConvolutionOperands(
      ctx, input, getTensorType(filter), bias, group, 1, outChannels);
  if (failed(kernel))
    return failure();
  FailureOr<WindowGeometry> geometry = getWindowGeometry(
      ctx, inputShape.drop_front(2), *kernel, /*ceilMode=*/false);
  if (failed(geometry))
    return failure();
  Type elementType = getTensorType(input).getElementType();
  SmallVector<int64_t> low{0, 0}, high{0, 0};
  low.append(geometry->padsBegin);
  high.append(geometry->padsEnd);
  Value padded =
      buildPad(ctx, input, low, high,
               padValue ? padValue : ctx.createScalar(elementType, 0));
  SmallVector<int64_t> shape{inputShape[0], outChannels};
  shape.append(geometry->output);
  Value init = buildConvolutionInit(
      ctx, shape, accumulatorType ? accumulatorType : elementType, bias);
  return buildConvolution(ctx, padded, filter, init, group, geometry->strides,
                          geometry->dilations);
}

/// True when the integer constant `attr` (or null) holds only zeros.
bool isAllZero(DenseElementsAttr attr) {
  return !attr || llvm::all_of(attr.getValues<APInt>(),
                               [](const APInt &v) { return v.isZero(); });
}

bool isByteOrigin(const QuantizedOrigin *origin) {
  return origin->integer->dtype == onnx::TensorProto::INT8 ||
         origin->integer->dtype == onnx::TensorProto::UINT8;
}

/// The operands of a contraction in a QDQ group (design note 0018): the
/// activation (input 0) dequantized per tensor from int8/uint8, the weights
/// (input 1, rank `weightRank` or more) a constant dequantized with zero
/// point 0, per tensor or per index of `channelAxis`, the bias (input
/// `biasIndex`, if present) dequantized from int32 at the scale
/// x_scale * w_scale (as ONNX Runtime's quantizer writes it). Sets the
/// i32 operands and the output scales x_scale * w_scale[c]; false when the
/// node is not of that form.
struct QuantizedOperands {
  const QuantizedOrigin *input, *weights, *bias;
  SmallVector<float> scales;
  /// The operands minus their zero points, as i32 (the bias null when
  /// absent).
  FailureOr<std::tuple<Value, Value, Value>> getI32(NodeContext &ctx) const {
    FailureOr<Value> x = getZeroAdjustedI32(ctx, *input);
    FailureOr<Value> w = getZeroAdjustedI32(ctx, *weights);
    FailureOr<Value> b = bias ? getZeroAdjustedI32(ctx, *bias) : Value();
    if (failed(x) || failed(w) || failed(b))
      return failure();
    return std::make_tuple(*x, *w, *b);
  }
};
bool matchQuantizedContraction(NodeContext &ctx, int64_t weightRank,
                               int64_t channelAxis, unsigned biasIndex,
                               QuantizedOperands &operands) {
  using Kind = QuantizedOrigin::Kind;
  const QuantizedOrigin *x = ctx.getQuantizedOrigin(0, Kind::Dequantized);
  const QuantizedOrigin *w = ctx.getQuantizedOrigin(1, Kind::Dequantized);
  if (!x || !w || !isByteOrigin(x) || !isByteOrigin(w) || x->axis >= 0 ||
      !w->integer->constant || !isAllZero(w->zeroPoint) ||
      w->integer->type.getRank() < weightRank ||
      (w->axis >= 0 && w->axis != channelAxis))
    return false;
  float xScale = *x->scale.getValues<float>().begin();
  operands.scales.clear();
  for (float wScale : w->scale.getValues<float>())
    operands.scales.push_back(xScale * wScale);
  operands.input = x;
  operands.weights = w;
  operands.bias = nullptr;
  if (ctx.hasInput(biasIndex)) {
    const QuantizedOrigin *b =
        ctx.getQuantizedOrigin(biasIndex, Kind::Dequantized);
    if (!b || b->integer->dtype != onnx::TensorProto::INT32 ||
        !isAllZero(b->zeroPoint) || b->integer->type.getRank() != 1)
      return false;
    SmallVector<float> biasScales =
        llvm::to_vector(b->scale.getValues<float>());
    int64_t channels = w->integer->type.getDimSize(channelAxis);
    // One value per channel (a bias of another length is the float
    // converter's to diagnose), with |bias| < 2^30 (below).
    if (b->integer->type.getDimSize(0) != channels ||
        (biasScales.size() != 1 && int64_t(biasScales.size()) != channels))
      return false;
    std::optional<std::vector<int32_t>> biasValues = getZeroAdjustedValues(*b);
    if (!biasValues || llvm::any_of(*biasValues, [](int32_t v) {
          return v <= -(1 << 30) || v >= (1 << 30);
        }))
      return false;
    for (int64_t c = 0; c < channels; ++c) {
      float expected = operands.scales[operands.scales.size() == 1 ? 0 : c];
      float actual = biasScales[biasScales.size() == 1 ? 0 : c];
      if (!std::isfinite(expected) ||
          !(std::abs(actual - expected) <= 1e-6f * std::abs(expected)))
        return false;
    }
    operands.bias = b;
  }
  // The i32 sums must not wrap where the float graph does not: at most
  // 255 * 128 per product (2^30 for the bias) bounds the sums below 2^31
  // for up to 32,896 products per output.
  int64_t perOutput =
      w->integer->type.getNumElements() /
      std::max<int64_t>(1, w->integer->type.getDimSize(channelAxis));
  if (perOutput > 32896)
    return false;
  return true;
}

/// What the 8-bit contractions of a QDQ group take from its operands: the
/// int8 weights' values and the bias's, and the activation's zero point as
/// seen by its int8 form (a uint8 one's moved by -128).
struct ByteOperands {
  std::vector<int32_t> weights;
  std::optional<std::vector<int32_t>> bias;
  int32_t zero = 0;
  bool isUnsigned = false;
};

/// The ByteOperands of `operands` when the weights are int8 of `rank`
/// dimensions (and their values and the bias's are known); nullopt
/// otherwise.
std::optional<ByteOperands> getByteOperands(const QuantizedOperands &operands,
                                            int64_t rank) {
  const QuantizedOrigin &x = *operands.input;
  const QuantizedOrigin &w = *operands.weights;
  if (w.integer->dtype != onnx::TensorProto::INT8 ||
      w.integer->type.getRank() != rank)
    return std::nullopt;
  std::optional<std::vector<int32_t>> weights = getZeroAdjustedValues(w);
  ByteOperands result;
  if (operands.bias)
    result.bias = getZeroAdjustedValues(*operands.bias);
  if (!weights || (operands.bias && !result.bias))
    return std::nullopt;
  result.weights = std::move(*weights);
  result.isUnsigned = x.integer->dtype == onnx::TensorProto::UINT8;
  if (x.zeroPoint) {
    const APInt &value = *x.zeroPoint.getValues<APInt>().begin();
    result.zero =
        result.isUnsigned ? value.getZExtValue() : value.getSExtValue();
  }
  if (result.isUnsigned)
    result.zero -= 128;
  return result;
}

/// The activation of a QDQ group as int8 (a uint8 one shifted by x ^ 0x80).
FailureOr<Value> getSignedActivation(NodeContext &ctx,
                                     const QuantizedOrigin &x) {
  Value input = ctx.materialize(*x.integer);
  if (x.integer->dtype == onnx::TensorProto::UINT8)
    return shiftToSigned(ctx, input);
  return input;
}

/// The i32 sums of a 2-D QDQ convolution computed on the 8-bit integers
/// themselves (a quarter of the memory traffic of widened operands): the
/// activation as int8 (uint8 shifted by x ^ 0x80, its zero point by -128),
/// padded with its zero point zx, times the int8 weights, into the bias
/// minus zx * sum(w[m]) -- the zero point's share of every window, which
/// the padding makes the same at every output position. Null when the
/// operands are not of that form (uint8 weights, not 2-D).
FailureOr<Value> buildByteConvolution(NodeContext &ctx,
                                      const QuantizedOperands &operands) {
  std::optional<ByteOperands> bytes = getByteOperands(operands, 4);
  if (!bytes)
    return Value();
  const std::vector<int32_t> &weights = bytes->weights;
  const QuantizedOrigin &w = *operands.weights;
  int64_t channels = w.integer->type.getDimSize(0);
  int64_t perChannel = weights.size() / channels;
  SmallVector<int32_t> init(channels);
  for (int64_t m = 0; m < channels; ++m) {
    int64_t sum = 0;
    for (int64_t k = 0; k < perChannel; ++k)
      sum += weights[m * perChannel + k];
    // Below 2^31 in magnitude: matchQuantizedContraction bounds the bias
    // and the number of products.
    init[m] = static_cast<int32_t>((bytes->bias ? (*bytes->bias)[m] : 0) -
                                   int64_t(bytes->zero) * sum);
  }
  OpBuilder &b = ctx.getBuilder();
  Type i8 = b.getI8Type();
  FailureOr<Value> input = getSignedActivation(ctx, *operands.input);
  if (failed(input))
    return failure();
  auto initType = RankedTensorType::get({channels}, b.getI32Type());
  Value initBias = arith::ConstantOp::create(
      b, ctx.getLoc(), DenseElementsAttr::get(initType, ArrayRef(init)));
  return buildConvolutionNode(ctx, *input, ctx.materialize(*w.integer),
                              initBias, ctx.createScalar(i8, bytes->zero),
                              b.getI32Type());
}

/// A Conv of a QDQ group: the i32 convolution, whose float output is
/// acc * x_scale * w_scale[m] and which a QuantizeLinear requantizes as ONNX
/// Runtime's fused QLinearConv does. False (nothing built) when the
/// operands are not of that form.
FailureOr<bool> convertQuantizedConv(NodeContext &ctx) {
  QuantizedOperands operands;
  if (!matchQuantizedContraction(ctx, 3, 0, 2, operands))
    return false;
  if (FailureOr<Value> acc = buildByteConvolution(ctx, operands);
      failed(acc) || *acc) {
    if (failed(acc) ||
        failed(setAccumulatedOutput(ctx, *acc, operands.scales, 1)))
      return failure();
    return true;
  }
  FailureOr<std::tuple<Value, Value, Value>> i32 = operands.getI32(ctx);
  if (failed(i32))
    return failure();
  auto [input, weights, bias] = *i32;
  FailureOr<Value> acc = buildConvolutionNode(ctx, input, weights, bias);
  if (failed(acc) ||
      failed(setAccumulatedOutput(ctx, *acc, operands.scales, 1)))
    return failure();
  return true;
}

/// The i32 sums of a QDQ MatMul or Gemm on the 8-bit integers themselves,
/// as buildByteConvolution: the activation as int8 (a uint8 one shifted by
/// x ^ 0x80, its zero point by -128), the int8 weights as a [K, N] constant
/// (transposed here for transB), and the bias minus zx * sum(w[:, n]) added
/// to the product. Null when the weights are not int8.
FailureOr<Value> buildByteQuantizedMatMul(NodeContext &ctx,
                                          const QuantizedOperands &operands,
                                          bool transB) {
  std::optional<ByteOperands> operandBytes = getByteOperands(operands, 2);
  if (!operandBytes)
    return Value();
  const std::vector<int32_t> &weights = operandBytes->weights;
  const std::optional<std::vector<int32_t>> &bias = operandBytes->bias;
  int32_t zero = operandBytes->zero;
  ArrayRef<int64_t> lhsShape = getTensorType(ctx.getInput(0)).getShape();
  ArrayRef<int64_t> stored = operands.weights->integer->type.getShape();
  int64_t k = transB ? stored[1] : stored[0];
  int64_t n = transB ? stored[0] : stored[1];
  if (lhsShape.size() < 2 || lhsShape.back() != k)
    return Value();

  // The weights as [K, N] bytes, and bias - zx * (column sums).
  SmallVector<int8_t> bytes(k * n);
  SmallVector<int32_t> init(n);
  for (int64_t row = 0; row < k; ++row)
    for (int64_t column = 0; column < n; ++column) {
      int32_t value = weights[transB ? column * k + row : row * n + column];
      bytes[row * n + column] = static_cast<int8_t>(value);
      init[column] -= zero * value;
    }
  // Below 2^31 in magnitude: matchQuantizedContraction bounds the bias and
  // the number of products.
  if (bias)
    for (int64_t column = 0; column < n; ++column)
      init[column] += (*bias)[column];

  OpBuilder &b = ctx.getBuilder();
  Type i32 = b.getI32Type();
  FailureOr<Value> input = getSignedActivation(ctx, *operands.input);
  if (failed(input))
    return failure();
  Value rhs = arith::ConstantOp::create(
      b, ctx.getLoc(),
      DenseElementsAttr::get(RankedTensorType::get({k, n}, b.getI8Type()),
                             ArrayRef(bytes)));
  Value rows = collapseDims(ctx, *input, 0, lhsShape.size() - 1);
  Value product = createMatmul(
      ctx, rows, rhs,
      createZeros(ctx, {getTensorType(rows).getDimSize(0), n}, i32));
  if (lhsShape.size() > 2)
    product = expandDim(ctx, product, 0, lhsShape.drop_back());
  Value initValue = arith::ConstantOp::create(
      b, ctx.getLoc(),
      DenseElementsAttr::get(RankedTensorType::get({n}, i32), ArrayRef(init)));
  return buildElementwise(
      ctx, {product, initValue}, i32,
      [](OpBuilder &b, Location loc, ValueRange args) -> Value {
        return arith::AddIOp::create(b, loc, args[0], args[1]);
      });
}

/// A MatMul with 2-D weights, or a Gemm (alpha = beta = 1, A not
/// transposed), of a QDQ group: as convertQuantizedConv, the weights'
/// scales per column of the product.
FailureOr<bool> convertQuantizedMatMul(NodeContext &ctx, bool isGemm) {
  bool transB = false;
  if (isGemm) {
    if (ctx.getAttrFloat("alpha", 1) != 1 || ctx.getAttrFloat("beta", 1) != 1 ||
        ctx.getAttrInt("transA", 0) != 0 || ctx.getInputRank(0) != 2)
      return false;
    transB = ctx.getAttrInt("transB", 0) != 0;
  }
  if (ctx.getInputRank(1) != 2)
    return false;
  QuantizedOperands operands;
  if (!matchQuantizedContraction(ctx, 2, transB ? 0 : 1, isGemm ? 2 : ~0u,
                                 operands))
    return false;
  if (FailureOr<Value> acc = buildByteQuantizedMatMul(ctx, operands, transB);
      failed(acc) || *acc) {
    if (failed(acc) ||
        failed(setAccumulatedOutput(ctx, *acc, operands.scales,
                                    getTensorType(*acc).getRank() - 1)))
      return failure();
    return true;
  }
  FailureOr<std::tuple<Value, Value, Value>> i32 = operands.getI32(ctx);
  if (failed(i32))
    return failure();
  auto [input, weights, bias] = *i32;
  if (transB)
    weights = materialize(
        ctx, transposeOperand(ctx, TensorOperand::runtime(weights), {1, 0}));
  FailureOr<Value> acc = buildMatMul(ctx, input, weights);
  if (failed(acc))
    return failure();
  if (bias) {
    acc = buildElementwise(
        ctx, {*acc, bias}, ctx.getBuilder().getI32Type(),
        [](OpBuilder &b, Location loc, ValueRange args) -> Value {
          return arith::AddIOp::create(b, loc, args[0], args[1]);
        });
    if (failed(acc))
      return failure();
  }
  int64_t rank = getTensorType(*acc).getRank();
  if (failed(setAccumulatedOutput(ctx, *acc, operands.scales, rank - 1)))
    return failure();
  return true;
}

LogicalResult convertConv(NodeContext &ctx) {
  if (FailureOr<bool> done = convertQuantizedConv(ctx); failed(done) || *done)
    return failure(failed(done));
  FailureOr<OnnxDType> dtype = getCommonDType(ctx, {0, 1, 2}, false);
  if (failed(dtype))
    return failure();
  FailureOr<Value> result =
      buildConvolutionNode(ctx, ctx.getInput(0), ctx.getInput(1),
                           ctx.hasInput(2) ? ctx.getInput(2) : Value());
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result, *dtype);
  return success();
}

/// ConvInteger: (x - x_zero_point) * (w - w_zero_point) in i32; the
/// filter's zero point may be per output channel. Padding with zeros after
/// the subtraction is padding x with its zero point.
LogicalResult convertConvInteger(NodeContext &ctx) {
  FailureOr<Value> input = subtractZeroPoint(ctx, 0, 2, 0);
  if (failed(input))
    return failure();
  FailureOr<Value> filter = subtractZeroPoint(ctx, 1, 3, 0);
  if (failed(filter))
    return failure();
  FailureOr<Value> result = buildConvolutionNode(ctx, *input, *filter, Value());
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result, onnx::TensorProto::INT32);
  return success();
}

/// QLinearConv: ConvInteger's i32 convolution (x's zero point a scalar, w's
/// one per output channel or a scalar) plus the optional i32 bias,
/// requantized with x_scale * w_scale[m] / y_scale.
LogicalResult convertQLinearConv(NodeContext &ctx) {
  for (unsigned index : {1u, 2u, 4u, 5u, 6u, 7u})
    if (!ctx.hasInput(index))
      return ctx.emitError() << "input " << index << " is missing";
  if (ctx.getInputType(1).getNumElements() != 1 ||
      ctx.getInputType(2).getNumElements() != 1)
    return ctx.emitError() << "x_scale and x_zero_point must be scalars";
  if (ctx.hasInput(8) && ctx.getInputDType(8) != onnx::TensorProto::INT32)
    return ctx.emitError() << "the bias has type "
                           << getOnnxDTypeName(ctx.getInputDType(8))
                           << "; expects int32";
  FailureOr<Value> input = subtractZeroPoint(ctx, 0, 2, 0);
  if (failed(input))
    return failure();
  FailureOr<Value> filter = subtractZeroPoint(ctx, 3, 5, 0);
  if (failed(filter))
    return failure();
  FailureOr<Value> acc = buildConvolutionNode(
      ctx, *input, *filter, ctx.hasInput(8) ? ctx.getInput(8) : Value());
  if (failed(acc))
    return failure();
  FailureOr<Value> result = requantize(ctx, *acc, {1, 4}, 1, 6, 7);
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result, ctx.getInputDType(7));
  return success();
}

int64_t floorDiv(int64_t value, int64_t divisor) {
  return value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor);
}

/// ConvTranspose as a convolution with stride 1 of the input dilated by the
/// strides (zeros between its elements) and padded by extent - 1 - pads
/// (plus output_padding at the end), with the filter flipped and its
/// channel dimensions swapped per group. Negative paddings (pads larger
/// than the kernel extent) are computed as zero padding and cropped.
LogicalResult convertConvTranspose(NodeContext &ctx) {
  FailureOr<OnnxDType> dtype = getCommonDType(ctx, {0, 1, 2}, false);
  if (failed(dtype))
    return failure();
  Value input = ctx.getInput(0);
  Value bias = ctx.hasInput(2) ? ctx.getInput(2) : Value();
  int64_t group = ctx.getAttrInt("group", 1);
  ArrayRef<int64_t> inputShape = ctx.getInputShape(0);
  ArrayRef<int64_t> filterShape = ctx.getInputShape(1);
  int64_t outChannels = filterShape.size() >= 2 ? filterShape[1] * group : 0;
  FailureOr<SmallVector<int64_t>> kernel = checkConvolutionOperands(
      ctx, input, ctx.getInputType(1), bias, group, 0, outChannels);
  if (failed(kernel))
    return failure();
  size_t spatial = kernel->size();
  FailureOr<SmallVector<int64_t>> strides =
      getWindowAttr(ctx, "strides", spatial);
  FailureOr<SmallVector<int64_t>> dilations =
      getWindowAttr(ctx, "dilations", spatial);
  if (failed(strides) || failed(dilations))
    return failure();
  SmallVector<int64_t> outputPadding = ctx.getAttrInts("output_padding");
  if (outputPadding.empty())
    outputPadding.assign(spatial, 0);
  SmallVector<int64_t> outputShape = ctx.getAttrInts("output_shape");
  if (outputShape.size() == spatial + 2)
    outputShape.erase(outputShape.begin(), outputShape.begin() + 2);
  if (outputPadding.size() != spatial ||
      (!outputShape.empty() && outputShape.size() != spatial))
    return ctx.emitError() << "output_padding or output_shape does not have "
                           << spatial << " values";
  std::string autoPad = ctx.getAttrString("auto_pad", "NOTSET");
  bool same = autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER";
  if (!same && autoPad != "VALID" && autoPad != "NOTSET")
    return ctx.unsupported("auto_pad '" + autoPad + "'");
  SmallVector<int64_t> pads = ctx.getAttrInts("pads");
  if (pads.empty() || autoPad != "NOTSET")
    pads.assign(2 * spatial, 0);
  if (pads.size() != 2 * spatial)
    return ctx.emitError() << "expects " << 2 * spatial << " values in 'pads'";

  SmallVector<int64_t> low{0, 0}, high{0, 0}, crop{0, 0};
  SmallVector<int64_t> resultShape{inputShape[0], outChannels};
  SmallVector<int64_t> computedShape(resultShape);
  for (size_t i = 0; i < spatial; ++i) {
    int64_t extent = ((*kernel)[i] - 1) * (*dilations)[i] + 1;
    int64_t full =
        (*strides)[i] * (inputShape[2 + i] - 1) + outputPadding[i] + extent;
    int64_t begin = pads[i], end = pads[spatial + i];
    if (!outputShape.empty() || same) {
      // The padding that yields the requested size (SAME: input * stride);
      // SAME_UPPER puts the odd element at the end. Rounding is floor, so a
      // negative total (a larger output) extends the end.
      int64_t target = outputShape.empty() ? inputShape[2 + i] * (*strides)[i]
                                           : outputShape[i];
      int64_t total = full - target;
      if (autoPad == "SAME_UPPER") {
        begin = floorDiv(total, 2);
        end = total - begin;
      } else {
        end = floorDiv(total, 2);
        begin = total - end;
      }
    }
    int64_t size = full - begin - end;
    if (size < 1)
      return ctx.emitError()
             << "the output would be empty along spatial axis " << i;
    // The stretched input below has stride - 1 trailing zeros already.
    int64_t lo = extent - 1 - begin;
    int64_t hi = extent - 1 - end + outputPadding[i] - ((*strides)[i] - 1);
    low.push_back(std::max<int64_t>(lo, 0));
    high.push_back(std::max<int64_t>(hi, 0));
    crop.push_back(low.back() - lo);
    resultShape.push_back(size);
    computedShape.push_back(size + (low.back() - lo) + (high.back() - hi));
  }

  // The input with stride - 1 zeros after each element: each spatial
  // dimension split into [size, 1], padded to [size, stride] and merged
  // back; then padded.
  Type elementType = ctx.getInputType(0).getElementType();
  Value zero = ctx.createScalar(elementType, 0);
  Value stretched = input;
  if (llvm::any_of(*strides, [](int64_t s) { return s != 1; })) {
    SmallVector<int64_t> split(inputShape.take_front(2));
    SmallVector<int64_t> stretchLow(2 + 2 * spatial, 0),
        stretchHigh(stretchLow);
    SmallVector<ReassociationIndices> groups{{0}, {1}};
    for (size_t i = 0; i < spatial; ++i) {
      split.append({inputShape[2 + i], 1});
      stretchHigh[3 + 2 * i] = (*strides)[i] - 1;
      groups.push_back({int64_t(2 + 2 * i), int64_t(3 + 2 * i)});
    }
    Value expanded = tensor::ExpandShapeOp::create(
        ctx.getBuilder(), ctx.getLoc(),
        RankedTensorType::get(split, elementType), input, groups);
    stretched = tensor::CollapseShapeOp::create(
        ctx.getBuilder(), ctx.getLoc(),
        buildPad(ctx, expanded, stretchLow, stretchHigh, zero), groups);
  }
  Value dilated = buildPad(ctx, stretched, low, high, zero);

  // The filter [C, M/G, kernel...] as [M, C/G, kernel...], flipped:
  // [G, C/G, M/G, kernel...] transposed to [G, M/G, C/G, kernel...], the
  // kernel reversed by a gather (folded when the filter is a constant; an
  // affine map kernel - 1 - k would be mis-tiled by upstream tiling).
  int64_t channels = inputShape[1];
  SmallVector<int64_t> groupedShape{group, channels / group, filterShape[1]};
  groupedShape.append(*kernel);
  SmallVector<int64_t> perm{0, 2, 1};
  SmallVector<SmallVector<int64_t>> flips(3);
  for (size_t i = 0; i < spatial; ++i) {
    perm.push_back(3 + i);
    flips.push_back(
        llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, (*kernel)[i]))));
  }
  TensorOperand flipped = gatherTables(
      ctx,
      transposeOperand(
          ctx, reshapeOperand(ctx, getOperand(ctx, 1), groupedShape), perm),
      flips);
  SmallVector<int64_t> convFilterShape{outChannels, channels / group};
  convFilterShape.append(*kernel);
  Value convFilter =
      materialize(ctx, reshapeOperand(ctx, flipped, convFilterShape));
  MLIRContext *context = ctx.getContext();

  Value init = buildConvolutionInit(ctx, computedShape, elementType, bias);
  SmallVector<int64_t> ones(spatial, 1);
  Value result =
      buildConvolution(ctx, dilated, convFilter, init, group, ones, *dilations);
  if (computedShape != resultShape) {
    SmallVector<int64_t> unit(resultShape.size(), 1);
    result = tensor::ExtractSliceOp::create(
        ctx.getBuilder(), ctx.getLoc(), result,
        getAsIndexOpFoldResult(context, crop),
        getAsIndexOpFoldResult(context, resultShape),
        getAsIndexOpFoldResult(context, unit));
  }
  ctx.setOutput(0, result, *dtype);
  return success();
}

} // namespace

void onnx_import::registerContractionConverters(ConverterRegistry &registry) {
  registry.add("MatMul", {1, 9, 13}, convertMatMul);
  registry.add("Gemm", {6, 7, 9, 11, 13}, convertGemm);
  registry.add("MatMulInteger", {10}, convertMatMulInteger);
  registry.add("QLinearMatMul", {10}, convertQLinearMatMul);
  registry.add("Einsum", {12}, convertEinsum);
  registry.add("Conv", {1, 11}, convertConv);
  registry.add("ConvInteger", {10}, convertConvInteger);
  registry.add("QLinearConv", {10}, convertQLinearConv);
  registry.add("ConvTranspose", {1, 11}, convertConvTranspose);
}
