//===- Sizes.cpp - Shape computations on dynamic sizes --------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// PyTorch exports compute the targets of reshapes from shapes at run time:
// Shape -> Gather -> Mul -> Unsqueeze -> Concat -> Reshape. With static
// shapes these chains fold to constants (ShapeOps.cpp). With dynamic
// dimensions they fold to sizes: expressions whose symbols are the model's
// dynamic dims (design/0017), kept in ImportedValue::sizes. Reshape, Slice,
// ConstantOfShape and Expand read them and build ops with dynamic sizes; a
// size tensor is built only when something computes with it at run time.
//
// Reshapes of dynamic shapes are grouped by comparing sizes as monomials
// (a constant times a product of dims): [seq * batch, 64] -> [seq, batch,
// 64] expands its first dimension, as a static reshape would.
//
//===----------------------------------------------------------------------===//

#include "Converter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "orchestra/Support/Limits.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::onnx_import;

namespace {

//===----------------------------------------------------------------------===//
// Monomials
//===----------------------------------------------------------------------===//

/// A constant times a product of dims (with repeats), the form of every
/// size a reshape of dynamic dimensions produces.
struct Monomial {
  int64_t coefficient = 1;
  SmallVector<unsigned> dims; // sorted

  bool operator==(const Monomial &other) const {
    return coefficient == other.coefficient && dims == other.dims;
  }
  /// this * other; none when the coefficient overflows.
  std::optional<Monomial> multiply(const Monomial &other) const {
    Monomial product{0, dims};
    if (llvm::MulOverflow(coefficient, other.coefficient, product.coefficient))
      return std::nullopt;
    product.dims.append(other.dims);
    llvm::sort(product.dims);
    return product;
  }
  /// this / other when exact.
  std::optional<Monomial> divide(const Monomial &other) const {
    if (other.coefficient == 0 ||
        (other.coefficient == -1 &&
         coefficient == std::numeric_limits<int64_t>::min()) ||
        coefficient % other.coefficient != 0)
      return std::nullopt;
    Monomial quotient{coefficient / other.coefficient, {}};
    SmallVector<unsigned> rest(dims);
    for (unsigned d : other.dims) {
      auto *it = llvm::find(rest, d);
      if (it == rest.end())
        return std::nullopt;
      rest.erase(it);
    }
    quotient.dims = rest;
    return quotient;
  }
  AffineExpr toExpr(MLIRContext *context) const {
    AffineExpr expr = getAffineConstantExpr(coefficient, context);
    for (unsigned d : dims)
      expr = expr * getAffineSymbolExpr(d, context);
    return expr;
  }
};

std::optional<Monomial> getMonomial(AffineExpr expr) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return Monomial{constant.getValue(), {}};
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return Monomial{1, {symbol.getPosition()}};
  if (expr.getKind() != AffineExprKind::Mul)
    return std::nullopt;
  auto binary = cast<AffineBinaryOpExpr>(expr);
  std::optional<Monomial> lhs = getMonomial(binary.getLHS());
  std::optional<Monomial> rhs = getMonomial(binary.getRHS());
  if (!lhs || !rhs)
    return std::nullopt;
  return lhs->multiply(*rhs);
}

std::optional<Monomial> getProduct(ArrayRef<AffineExpr> exprs) {
  Monomial product;
  for (AffineExpr expr : exprs) {
    std::optional<Monomial> factor = getMonomial(expr);
    std::optional<Monomial> next =
        factor ? product.multiply(*factor) : std::nullopt;
    if (!next)
      return std::nullopt;
    product = *next;
  }
  return product;
}

/// `expr` with its linear parts combined (seq - (seq - 1) is 1).
AffineExpr simplify(AffineExpr expr) {
  unsigned symbols = 0;
  expr.walk([&](AffineExpr e) {
    if (auto symbol = dyn_cast<AffineSymbolExpr>(e))
      symbols = std::max(symbols, symbol.getPosition() + 1);
  });
  return simplifyAffineExpr(expr, 0, symbols);
}

RankedTensorType getSizedType(ArrayRef<AffineExpr> sizes, Type element) {
  SmallVector<int64_t> shape;
  for (AffineExpr size : sizes) {
    auto constant = dyn_cast<AffineConstantExpr>(size);
    shape.push_back(constant ? constant.getValue() : ShapedType::kDynamic);
  }
  return RankedTensorType::get(shape, element);
}

/// Groups `from` and `to` into runs of equal products, each a run of one
/// side matching a run of the other, as a static reshape groups its
/// dimensions; failure when the sizes do not group (or are not monomials).
LogicalResult groupReshape(ArrayRef<AffineExpr> from, ArrayRef<AffineExpr> to,
                           SmallVectorImpl<ReassociationIndices> &fromGroups,
                           SmallVectorImpl<ReassociationIndices> &toGroups) {
  size_t i = 0, j = 0;
  auto one = Monomial{1, {}};
  while (i < from.size() && j < to.size()) {
    ReassociationIndices &fromGroup = fromGroups.emplace_back();
    ReassociationIndices &toGroup = toGroups.emplace_back();
    std::optional<Monomial> lhs = getMonomial(from[i]);
    std::optional<Monomial> rhs = getMonomial(to[j]);
    if (!lhs || !rhs)
      return failure();
    fromGroup.push_back(i++);
    toGroup.push_back(j++);
    while (!(*lhs == *rhs)) {
      if (rhs->divide(*lhs) && i < from.size()) {
        std::optional<Monomial> next = getMonomial(from[i]);
        lhs = next ? lhs->multiply(*next) : std::nullopt;
        if (!lhs)
          return failure();
        fromGroup.push_back(i++);
      } else if (lhs->divide(*rhs) && j < to.size()) {
        std::optional<Monomial> next = getMonomial(to[j]);
        rhs = next ? rhs->multiply(*next) : std::nullopt;
        if (!rhs)
          return failure();
        toGroup.push_back(j++);
      } else {
        return failure();
      }
    }
  }
  // Trailing unit dimensions join the last group.
  for (; i < from.size(); ++i) {
    if (!(getMonomial(from[i]) == std::optional<Monomial>(one)) ||
        fromGroups.empty())
      return failure();
    fromGroups.back().push_back(i);
  }
  for (; j < to.size(); ++j) {
    if (!(getMonomial(to[j]) == std::optional<Monomial>(one)) ||
        toGroups.empty())
      return failure();
    toGroups.back().push_back(j);
  }
  return success();
}

/// The slice bound `value` (a start or an end) of a dimension of size
/// `dim`, with ONNX's negative indices and clamping to [0, dim], when the
/// dims' ranges decide the clamp.
FailureOr<AffineExpr> getSliceBound(NodeContext &ctx, AffineExpr value,
                                    AffineExpr dim, StringRef what) {
  if (auto constant = dyn_cast<AffineConstantExpr>(value)) {
    int64_t c = constant.getValue();
    std::optional<int64_t> upper = ctx.getUpperBound(dim);
    if (upper && c >= *upper)
      return dim;
    if (c < 0) {
      if (upper && c <= -*upper)
        return getAffineConstantExpr(0, ctx.getContext());
      value = dim + c;
    }
  }
  value = simplify(value);
  std::optional<int64_t> lower = ctx.getLowerBound(value);
  std::optional<int64_t> excess = ctx.getUpperBound(simplify(value - dim));
  if (!lower || *lower < 0 || !excess || *excess > 0)
    return ctx.emitError()
           << "unsupported: the slice " << what << " " << ctx.printSize(value)
           << " is not within [0, " << ctx.printSize(dim)
           << "] for every size the dims may take (bound them with --dim "
              "NAME=MIN..MAX)";
  return value;
}

//===----------------------------------------------------------------------===//
// Folding shape computations into sizes
//===----------------------------------------------------------------------===//

FailureOr<bool> foldShape(NodeContext &ctx) {
  RankedTensorType type = ctx.getInputType(0);
  if (type.hasStaticShape())
    return false;
  int64_t rank = type.getRank();
  auto clampBound = [&](int64_t bound) {
    if (bound < 0)
      bound += rank;
    return std::clamp<int64_t>(bound, 0, rank);
  };
  int64_t start = clampBound(ctx.getAttrInt("start", 0));
  int64_t end =
      ctx.hasAttr("end") ? clampBound(ctx.getAttrInt("end", rank)) : rank;
  FailureOr<SmallVector<AffineExpr>> sizes = ctx.getInputSizes(0);
  if (failed(sizes))
    return failure();
  ctx.setSizeOutput(
      0, ArrayRef<AffineExpr>(*sizes).slice(start, std::max(end - start, 0l)),
      /*scalar=*/false, onnx::TensorProto::INT64);
  return true;
}

} // namespace

FailureOr<bool> onnx_import::foldSizeComputation(NodeContext &ctx) {
  if (!ctx.getDomain().empty())
    return false;
  StringRef op = ctx.getOpType();
  if (op == "Shape")
    return foldShape(ctx);
  if (op == "Size" && !ctx.getInputType(0).hasStaticShape()) {
    FailureOr<SmallVector<AffineExpr>> sizes = ctx.getInputSizes(0);
    if (failed(sizes))
      return failure();
    AffineExpr count = getAffineConstantExpr(1, ctx.getContext());
    for (AffineExpr size : *sizes)
      count = count * size;
    ctx.setSizeOutput(0, count, /*scalar=*/true, onnx::TensorProto::INT64);
    return true;
  }
  // The others fold when an input is a computed size and the rest are sizes
  // or small constants.
  bool computed = false;
  for (unsigned i = 0, e = ctx.getNumInputs(); i < e; ++i)
    computed |= ctx.hasInput(i) && !ctx.getImportedInput(i).sizes.empty();
  if (!computed || !ctx.hasOutput(0))
    return false;
  std::optional<SmallVector<AffineExpr>> data = ctx.getSizeInput(0);
  if (!data)
    return false;
  bool scalar = ctx.getInputRank(0) == 0;
  OnnxDType dtype = ctx.getInputDType(0);
  MLIRContext *context = ctx.getContext();

  if (op == "Identity") {
    ctx.setSizeOutput(0, *data, scalar, dtype);
    return true;
  }
  if (op == "Cast") {
    OnnxDType to = ctx.getAttrInt("to", 0);
    if (!isIntegerDType(to))
      return false; // computed at run time from the materialized sizes
    ctx.setSizeOutput(0, *data, scalar, to);
    return true;
  }
  if (op == "Unsqueeze" || op == "Squeeze" || op == "Reshape") {
    // Between a scalar and one element, or a vector kept a vector.
    int64_t rank;
    if (op == "Reshape") {
      DenseElementsAttr target = ctx.getConstantInput(1);
      if (!target)
        return false;
      rank = target.getNumElements();
      int64_t extent = rank == 1 ? getIntValues(target).front() : -1;
      if (extent != -1 && extent != int64_t(data->size()) &&
          !(extent == 0 && !scalar && ctx.getAttrInt("allowzero", 0) == 0))
        return false;
    } else if (op == "Unsqueeze") {
      auto axes = ctx.getSinceVersion() < 13 ? ctx.getAttrInts("axes")
                                             : SmallVector<int64_t>();
      if (ctx.getSinceVersion() >= 13) {
        DenseElementsAttr constant = ctx.getConstantInput(1);
        if (!constant)
          return false;
        axes = getIntValues(constant);
      }
      rank = ctx.getInputRank(0) + axes.size();
    } else if (op == "Squeeze") {
      rank = data->size() == 1 ? 0 : 1;
    } else {
      return false;
    }
    if (rank > 1 || (rank == 0 && data->size() != 1))
      return false;
    ctx.setSizeOutput(0, *data, rank == 0, dtype);
    return true;
  }
  if (op == "Gather") {
    DenseElementsAttr indices = ctx.getConstantInput(1);
    int64_t axis = ctx.getAttrInt("axis", 0);
    if (!indices || scalar || (axis != 0 && axis != -1) ||
        cast<ShapedType>(indices.getType()).getRank() > 1)
      return false;
    SmallVector<AffineExpr> result;
    int64_t n = data->size();
    for (int64_t index : getIntValues(indices)) {
      if (index < -n || index >= n)
        return ctx.emitError() << "index " << index << " is out of range for "
                               << n << " elements";
      result.push_back((*data)[index < 0 ? index + n : index]);
    }
    ctx.setSizeOutput(
        0, result, cast<ShapedType>(indices.getType()).getRank() == 0, dtype);
    return true;
  }
  if (op == "Concat") {
    SmallVector<AffineExpr> result;
    for (unsigned i = 0, e = ctx.getNumInputs(); i < e; ++i) {
      std::optional<SmallVector<AffineExpr>> part = ctx.getSizeInput(i);
      if (!part || ctx.getInputRank(i) != 1)
        return false;
      result.append(*part);
    }
    ctx.setSizeOutput(0, result, /*scalar=*/false, dtype);
    return true;
  }
  if (op == "Slice" && ctx.getSinceVersion() >= 10 && !scalar) {
    SmallVector<SmallVector<int64_t>> params;
    for (unsigned i = 1; i < 5; ++i) {
      if (!ctx.hasInput(i)) {
        params.emplace_back();
        continue;
      }
      DenseElementsAttr constant = ctx.getConstantInput(i);
      if (!constant)
        return false;
      params.push_back(getIntValues(constant));
    }
    if (params[0].size() != 1 || params[1].size() != 1 ||
        (!params[2].empty() && params[2] != SmallVector<int64_t>{0} &&
         params[2] != SmallVector<int64_t>{-1}))
      return false;
    int64_t n = data->size();
    int64_t step = params[3].empty() ? 1 : params[3][0];
    if (step == 0)
      return false;
    auto clampIndex = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0)
        v = v < -n ? -n - 1 : v + n;
      return std::clamp(v, lo, hi);
    };
    int64_t start = clampIndex(params[0][0], 0, step > 0 ? n : n - 1);
    int64_t end =
        clampIndex(params[1][0], step > 0 ? 0 : -1, step > 0 ? n : n - 1);
    SmallVector<AffineExpr> result;
    for (int64_t i = start; step > 0 ? i < end : i > end; i += step)
      result.push_back((*data)[i]);
    ctx.setSizeOutput(0, result, /*scalar=*/false, dtype);
    return true;
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    std::optional<SmallVector<AffineExpr>> rhs = ctx.getSizeInput(1);
    if (!rhs || data->empty() || rhs->empty())
      return false;
    size_t n = std::max(data->size(), rhs->size());
    if ((data->size() != n && data->size() != 1) ||
        (rhs->size() != n && rhs->size() != 1))
      return false;
    SmallVector<AffineExpr> result;
    for (size_t i = 0; i < n; ++i) {
      AffineExpr a = (*data)[data->size() == 1 ? 0 : i];
      AffineExpr b = (*rhs)[rhs->size() == 1 ? 0 : i];
      if (op == "Add") {
        result.push_back(simplify(a + b));
      } else if (op == "Sub") {
        result.push_back(simplify(a - b));
      } else if (op == "Mul") {
        result.push_back(simplify(a * b));
      } else {
        // Integer division truncates; sizes are not negative, so it floors.
        std::optional<int64_t> lower = ctx.getLowerBound(a);
        if (!lower || *lower < 0)
          return false;
        if (auto divisor = dyn_cast<AffineConstantExpr>(b)) {
          if (divisor.getValue() <= 0)
            return false;
          result.push_back(a.floorDiv(divisor.getValue()));
          continue;
        }
        std::optional<Monomial> num = getMonomial(a), den = getMonomial(b);
        std::optional<Monomial> quotient =
            num && den ? num->divide(*den) : std::nullopt;
        if (!quotient)
          return false;
        result.push_back(quotient->toExpr(context));
      }
    }
    ctx.setSizeOutput(0, result, scalar && ctx.getInputRank(1) == 0, dtype);
    return true;
  }
  return false;
}

//===----------------------------------------------------------------------===//
// Ops with dynamic sizes
//===----------------------------------------------------------------------===//

Value onnx_import::createEmptyOfSizes(NodeContext &ctx,
                                      ArrayRef<AffineExpr> sizes,
                                      Type elementType) {
  OpBuilder &b = ctx.getBuilder();
  Location loc = ctx.getLoc();
  RankedTensorType type = getSizedType(sizes, elementType);
  SmallVector<Value> dynamicSizes;
  for (auto [size, extent] : llvm::zip(sizes, type.getShape()))
    if (ShapedType::isDynamic(extent))
      dynamicSizes.push_back(
          getValueOrCreateConstantIndexOp(b, loc, ctx.buildSize(size)));
  return tensor::EmptyOp::create(b, loc, type, dynamicSizes);
}

bool onnx_import::areEqualSizes(AffineExpr lhs, AffineExpr rhs) {
  if (lhs == rhs || simplify(lhs) == simplify(rhs))
    return true;
  std::optional<Monomial> a = getMonomial(lhs), b = getMonomial(rhs);
  return a && b && *a == *b;
}

FailureOr<Value> onnx_import::reshapeToSizes(NodeContext &ctx, Value input,
                                             ArrayRef<AffineExpr> from,
                                             ArrayRef<AffineExpr> to) {
  OpBuilder &b = ctx.getBuilder();
  Location loc = ctx.getLoc();
  auto inputType = cast<RankedTensorType>(input.getType());
  RankedTensorType type = getSizedType(to, inputType.getElementType());
  if (from == to)
    return input;
  std::optional<Monomial> fromCount = getProduct(from);
  std::optional<Monomial> toCount = getProduct(to);
  if (!fromCount || !toCount || !(*fromCount == *toCount)) {
    auto diag = ctx.emitError() << "cannot reshape [";
    llvm::interleaveComma(from, diag,
                          [&](AffineExpr e) { diag << ctx.printSize(e); });
    diag << "] to [";
    llvm::interleaveComma(to, diag,
                          [&](AffineExpr e) { diag << ctx.printSize(e); });
    diag << "]: the numbers of elements differ for some sizes of the dims";
    return failure();
  }
  SmallVector<ReassociationIndices> fromGroups, toGroups;
  if (from.empty() || to.empty() ||
      failed(groupReshape(from, to, fromGroups, toGroups))) {
    // Through one dimension.
    fromGroups.assign(1, llvm::to_vector(llvm::seq<int64_t>(0, from.size())));
    toGroups.assign(1, llvm::to_vector(llvm::seq<int64_t>(0, to.size())));
  }
  Value collapsed = input;
  if (fromGroups.size() != from.size())
    collapsed = tensor::CollapseShapeOp::create(b, loc, input, fromGroups);
  if (toGroups.size() == to.size()) {
    if (collapsed.getType() == type)
      return collapsed;
    return tensor::CastOp::create(b, loc, type, collapsed).getResult();
  }
  return tensor::ExpandShapeOp::create(b, loc, type, collapsed, toGroups,
                                       ctx.buildSizes(to))
      .getResult();
}

LogicalResult onnx_import::convertDynamicReshape(NodeContext &ctx,
                                                 ArrayRef<AffineExpr> shape) {
  FailureOr<SmallVector<AffineExpr>> from = ctx.getInputSizes(0);
  if (failed(from))
    return failure();
  bool allowZero = ctx.getAttrInt("allowzero", 0) != 0;
  SmallVector<AffineExpr> to(shape);
  int64_t inferred = -1;
  for (auto [i, size] : llvm::enumerate(to)) {
    auto constant = dyn_cast<AffineConstantExpr>(size);
    if (!constant)
      continue;
    if (constant.getValue() == 0 && !allowZero) {
      if (i >= from->size())
        return ctx.emitError() << "target dimension " << i
                               << " copies an input dimension that does not "
                                  "exist (the input has rank "
                               << from->size() << ")";
      size = (*from)[i];
    } else if (constant.getValue() == -1) {
      if (inferred >= 0)
        return ctx.emitError() << "the target shape has more than one -1";
      inferred = i;
    } else if (constant.getValue() < 0) {
      return ctx.emitError()
             << "invalid target dimension " << constant.getValue();
    }
  }
  // The constant part of the target is bounded as in the static reshape
  // (found by the ONNX fuzzer: its product overflowed).
  int64_t known = 1;
  for (auto [i, size] : llvm::enumerate(to)) {
    auto constant = dyn_cast<AffineConstantExpr>(size);
    int64_t dim = constant ? constant.getValue() : 0;
    if (dim <= 0)
      continue;
    if (known > kMaxTensorElements / dim)
      return ctx.emitError() << "the target shape has more than 2^40 "
                                "elements (its dimension "
                             << i << " is " << dim << ")";
    known *= dim;
  }
  if (inferred >= 0) {
    SmallVector<AffineExpr> known(to);
    known.erase(known.begin() + inferred);
    std::optional<Monomial> count = getProduct(*from);
    std::optional<Monomial> product = getProduct(known);
    std::optional<Monomial> quotient =
        count && product ? count->divide(*product) : std::nullopt;
    if (!quotient)
      return ctx.emitError()
             << "cannot infer the -1 dimension of the target shape: the "
                "input's elements do not divide by the other dimensions "
                "for every size of the dims";
    to[inferred] = quotient->toExpr(ctx.getContext());
  }
  FailureOr<Value> result = reshapeToSizes(ctx, ctx.getInput(0), *from, to);
  if (failed(result))
    return failure();
  ctx.setOutput(0, *result, ctx.getInputDType(0));
  return success();
}

LogicalResult onnx_import::convertDynamicSlice(NodeContext &ctx) {
  FailureOr<SmallVector<AffineExpr>> shape = ctx.getInputSizes(0);
  if (failed(shape))
    return failure();
  int64_t rank = shape->size();
  std::optional<SmallVector<AffineExpr>> starts = ctx.getSizeInput(1);
  std::optional<SmallVector<AffineExpr>> ends = ctx.getSizeInput(2);
  if (!starts || !ends)
    return ctx.emitError() << "unsupported: the starts and ends of a slice of "
                              "dynamic sizes must be constants or sizes";
  SmallVector<int64_t> axes, steps;
  if (ctx.hasInput(3)) {
    FailureOr<SmallVector<int64_t>> a = ctx.requireConstantInts(3, "axes");
    if (failed(a))
      return failure();
    axes = *a;
  }
  if (ctx.hasInput(4)) {
    FailureOr<SmallVector<int64_t>> s = ctx.requireConstantInts(4, "steps");
    if (failed(s))
      return failure();
    steps = *s;
  }
  if (axes.empty())
    axes = llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
  if (steps.empty())
    steps.assign(starts->size(), 1);
  if (starts->size() != ends->size() || starts->size() != axes.size() ||
      starts->size() != steps.size())
    return ctx.emitError() << "starts, ends, axes and steps differ in length";
  MLIRContext *context = ctx.getContext();
  SmallVector<AffineExpr> offsets(rank, getAffineConstantExpr(0, context));
  SmallVector<AffineExpr> sizes(*shape);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    if (axis < -rank || axis >= rank)
      return ctx.emitError()
             << "axis " << axis << " is out of range for rank " << rank;
    if (axis < 0)
      axis += rank;
    if (steps[i] != 1)
      return ctx.emitError() << "unsupported: a step of " << steps[i]
                             << " on a dynamic slice (only 1)";
    AffineExpr dim = (*shape)[axis];
    FailureOr<AffineExpr> start =
        getSliceBound(ctx, (*starts)[i], dim, "start");
    FailureOr<AffineExpr> end = getSliceBound(ctx, (*ends)[i], dim, "end");
    if (failed(start) || failed(end))
      return failure();
    AffineExpr size = simplify(*end - *start);
    std::optional<int64_t> lower = ctx.getLowerBound(size);
    if (!lower || *lower < 0)
      return ctx.emitError()
             << "unsupported: the slice end " << ctx.printSize(*end)
             << " may come before its start " << ctx.printSize(*start);
    offsets[axis] = *start;
    sizes[axis] = size;
  }
  Value input = ctx.getInput(0);
  RankedTensorType type = getSizedType(
      sizes, cast<RankedTensorType>(input.getType()).getElementType());
  SmallVector<OpFoldResult> strides(rank, ctx.getBuilder().getIndexAttr(1));
  Value slice = tensor::ExtractSliceOp::create(
      ctx.getBuilder(), ctx.getLoc(), type, input, ctx.buildSizes(offsets),
      ctx.buildSizes(sizes), strides);
  ctx.setOutput(0, slice, ctx.getInputDType(0));
  return success();
}

LogicalResult
onnx_import::convertDynamicConstantOfShape(NodeContext &ctx,
                                           ArrayRef<AffineExpr> shape,
                                           TypedAttr value, OnnxDType dtype) {
  OpBuilder &b = ctx.getBuilder();
  Location loc = ctx.getLoc();
  for (AffineExpr size : shape)
    if (std::optional<int64_t> lower = ctx.getLowerBound(size);
        !lower || *lower < 0)
      return ctx.emitError() << "unsupported: the dimension "
                             << ctx.printSize(size) << " may be negative";
  Value empty = createEmptyOfSizes(ctx, shape, value.getType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  Value filled = linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
  ctx.setOutput(0, filled, dtype);
  return success();
}

LogicalResult onnx_import::convertDynamicExpand(NodeContext &ctx) {
  std::optional<SmallVector<AffineExpr>> target = ctx.getSizeInput(1);
  if (!target)
    return ctx.emitError() << "unsupported: the target shape of an Expand of "
                              "dynamic sizes must be a constant or computed "
                              "from shapes";
  FailureOr<SmallVector<AffineExpr>> input = ctx.getInputSizes(0);
  if (failed(input))
    return failure();
  MLIRContext *context = ctx.getContext();
  AffineExpr one = getAffineConstantExpr(1, context);
  int64_t rank = std::max(input->size(), target->size());
  int64_t inputOffset = rank - input->size();
  int64_t targetOffset = rank - target->size();
  SmallVector<AffineExpr> sizes, reads;
  for (int64_t d = 0; d < rank; ++d) {
    AffineExpr a = d >= inputOffset ? (*input)[d - inputOffset] : one;
    AffineExpr b = d >= targetOffset ? (*target)[d - targetOffset] : one;
    AffineExpr size = a == one ? b : (b == one || b == a) ? a : AffineExpr();
    if (!size)
      return ctx.emitError()
             << "cannot broadcast dimension " << d << " of size "
             << ctx.printSize(a) << " to " << ctx.printSize(b);
    sizes.push_back(size);
    if (d >= inputOffset)
      reads.push_back(a == one && size != one
                          ? getAffineConstantExpr(0, context)
                          : getAffineDimExpr(d, context));
  }
  OpBuilder &b = ctx.getBuilder();
  Location loc = ctx.getLoc();
  Value source = ctx.getInput(0);
  auto sourceType = cast<RankedTensorType>(source.getType());
  Value init = createEmptyOfSizes(ctx, sizes, sourceType.getElementType());
  auto type = cast<RankedTensorType>(init.getType());
  SmallVector<AffineMap> maps{AffineMap::get(rank, 0, reads, context),
                              AffineMap::getMultiDimIdentityMap(rank, context)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value result =
      linalg::GenericOp::create(
          b, loc, type, source, init, maps, iterators,
          [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
            linalg::YieldOp::create(nested, nestedLoc, args[0]);
          })
          .getResult(0);
  ctx.setOutput(0, result, ctx.getInputDType(0));
  return success();
}

LogicalResult onnx_import::convertDynamicRange(NodeContext &ctx) {
  SmallVector<AffineExpr> operands;
  for (unsigned i = 0; i < 3; ++i) {
    std::optional<SmallVector<AffineExpr>> value = ctx.getSizeInput(i);
    if (!value || value->size() != 1)
      return ctx.emitError() << "unsupported: a Range of dynamic size whose "
                                "operand "
                             << i << " is not a scalar size or constant";
    operands.push_back(value->front());
  }
  auto delta = dyn_cast<AffineConstantExpr>(operands[2]);
  if (!delta || delta.getValue() <= 0)
    return ctx.emitError() << "unsupported: a Range of dynamic size needs a "
                              "positive constant delta";
  AffineExpr span = simplify(operands[1] - operands[0]);
  std::optional<int64_t> lower = ctx.getLowerBound(span);
  if (!lower || *lower < 0)
    return ctx.emitError() << "unsupported: the Range's limit "
                           << ctx.printSize(operands[1])
                           << " may be below its start "
                           << ctx.printSize(operands[0]);
  AffineExpr count = simplify(span.ceilDiv(delta.getValue()));
  OpBuilder &b = ctx.getBuilder();
  Location loc = ctx.getLoc();
  auto element = cast<IntegerType>(ctx.getInputType(0).getElementType());
  Value init = createEmptyOfSizes(ctx, {count}, element);
  auto type = cast<RankedTensorType>(init.getType());
  Value start =
      getValueOrCreateConstantIndexOp(b, loc, ctx.buildSize(operands[0]));
  Value step = arith::ConstantIndexOp::create(b, loc, delta.getValue());
  MLIRContext *context = ctx.getContext();
  Value result =
      linalg::GenericOp::create(
          b, loc, type, ValueRange{}, init,
          AffineMap::getMultiDimIdentityMap(1, context),
          utils::IteratorType::parallel,
          [&](OpBuilder &nested, Location nestedLoc, ValueRange) {
            Value i = linalg::IndexOp::create(nested, nestedLoc, 0);
            Value offset = arith::MulIOp::create(nested, nestedLoc, i, step);
            Value value =
                arith::AddIOp::create(nested, nestedLoc, start, offset);
            linalg::YieldOp::create(
                nested, nestedLoc,
                arith::IndexCastOp::create(nested, nestedLoc, element, value)
                    .getResult());
          })
          .getResult(0);
  ctx.setOutput(0, result, ctx.getInputDType(0));
  return success();
}
