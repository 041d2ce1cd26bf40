//===- DynamicDims.cpp - Named dynamic dimensions and their sizes ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Utils/DynamicDims.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

using namespace mlir;
using namespace mlir::orchestra;

FailureOr<DynamicDim> mlir::orchestra::parseDimOption(StringRef option,
                                                      std::string &error) {
  auto [name, range] = option.split('=');
  auto [sizes, opt] = range.split('@');
  auto [min, max] = sizes.split("..");
  DynamicDim dim;
  dim.name = name.str();
  bool bad = name.empty() || min.getAsInteger(10, dim.min) || dim.min < 0;
  if (!bad && !sizes.contains(".."))
    dim.max = dim.min;
  else if (!bad)
    bad = max.getAsInteger(10, dim.max) || dim.max < dim.min;
  dim.opt = dim.max;
  if (!bad && range.contains('@'))
    bad =
        opt.getAsInteger(10, dim.opt) || dim.opt < dim.min || dim.opt > dim.max;
  if (bad) {
    error = "--dim expects NAME=SIZE or NAME=MIN..MAX[@OPT] with 0 <= MIN "
            "<= OPT <= MAX, got '" +
            option.str() + "'";
    return failure();
  }
  return dim;
}

FailureOr<SmallVector<DynamicDim>>
mlir::orchestra::getDynamicDims(func::FuncOp entry) {
  SmallVector<DynamicDim> dims;
  Attribute attr = entry->getAttr(attr::kDims);
  if (!attr)
    return dims;
  auto dict = dyn_cast<DictionaryAttr>(attr);
  if (!dict)
    return entry.emitError() << "'" << attr::kDims
                             << "' must be a dictionary of dims, got " << attr;
  for (NamedAttribute named : dict) {
    auto bounds = dyn_cast<DenseI64ArrayAttr>(named.getValue());
    if (!bounds || bounds.size() != 3 || bounds[0] < 0 ||
        bounds[0] > bounds[1] || bounds[2] < bounds[0] || bounds[2] > bounds[1])
      return entry.emitError()
             << "'" << attr::kDims << "' entry '" << named.getName().getValue()
             << "' must be array<i64: min, max, opt> with 0 <= min <= opt <= "
                "max, got "
             << named.getValue();
    dims.push_back({named.getName().str(), bounds[0], bounds[1], bounds[2]});
  }
  return dims;
}

FailureOr<AffineExpr> mlir::orchestra::resolveEntryArgDim(BlockArgument arg,
                                                          int64_t dim) {
  MLIRContext *ctx = arg.getContext();
  auto type = cast<ShapedType>(arg.getType());
  if (!type.isDynamicDim(dim))
    return getAffineConstantExpr(type.getDimSize(dim), ctx);
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!func)
    return failure();
  auto names =
      func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), attr::kDimNames);
  auto dims = func->getAttrOfType<DictionaryAttr>(attr::kDims);
  if (!names || !dims || static_cast<int64_t>(names.size()) <= dim)
    return failure();
  auto name = dyn_cast<StringAttr>(names[dim]);
  if (!name)
    return failure();
  for (auto [i, named] : llvm::enumerate(dims))
    if (named.getName() == name)
      return getAffineSymbolExpr(i, ctx);
  return failure();
}

namespace {
/// Derives sizes structurally, through the ops that define them: shapes
/// flow from inits, empties, reshapes, slices and index arithmetic. Unlike
/// the value bounds (a linear constraint set), this keeps products of dims
/// (`batch * seq` after a collapse), which the plan and the runtime
/// evaluate like any other expression.
class SizeDeriver {
public:
  SizeDeriver(func::FuncOp func, ArgDimResolver resolve)
      : func(func), resolve(resolve) {}

  FailureOr<AffineExpr> dim(Value value, int64_t dim);
  FailureOr<AffineExpr> index(Value value);
  FailureOr<AffineExpr> mixed(OpFoldResult size) {
    if (auto attr = dyn_cast<Attribute>(size))
      return getAffineConstantExpr(cast<IntegerAttr>(attr).getInt(),
                                   func.getContext());
    return index(cast<Value>(size));
  }

private:
  bool isArgument(Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner()->getParentOp() == func.getOperation();
  }
  FailureOr<AffineExpr> derive(Value value, int64_t dim);
  FailureOr<AffineExpr> deriveIndex(Value value);

  func::FuncOp func;
  ArgDimResolver resolve;
  DenseMap<std::pair<Value, int64_t>, AffineExpr> dims;
  DenseMap<Value, AffineExpr> indices;
};
} // namespace

FailureOr<AffineExpr> SizeDeriver::dim(Value value, int64_t d) {
  auto type = dyn_cast<ShapedType>(value.getType());
  if (!type || !type.hasRank() || d < 0 || d >= type.getRank())
    return failure();
  if (!type.isDynamicDim(d))
    return getAffineConstantExpr(type.getDimSize(d), value.getContext());
  auto key = std::make_pair(value, d);
  auto it = dims.find(key);
  if (it != dims.end())
    return it->second;
  FailureOr<AffineExpr> expr = derive(value, d);
  if (succeeded(expr))
    dims[key] = *expr;
  return expr;
}

FailureOr<AffineExpr> SizeDeriver::derive(Value value, int64_t d) {
  if (isArgument(value))
    return resolve(cast<BlockArgument>(value), d);
  Operation *op = value.getDefiningOp();
  if (!op)
    return failure();
  auto result = cast<OpResult>(value);
  if (auto empty = dyn_cast<tensor::EmptyOp>(op))
    return mixed(empty.getMixedSizes()[d]);
  if (auto cast = dyn_cast<tensor::CastOp>(op))
    return dim(cast.getSource(), d);
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    AffineExpr product = getAffineConstantExpr(1, op->getContext());
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    for (int64_t source : groups[d]) {
      FailureOr<AffineExpr> size = dim(collapse.getSrc(), source);
      if (failed(size))
        return failure();
      product = product * *size;
    }
    return product;
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
    return mixed(expand.getMixedOutputShape()[d]);
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    int64_t kept = -1;
    for (auto [i, size] : llvm::enumerate(slice.getMixedSizes()))
      if (!dropped.test(i) && ++kept == d)
        return mixed(size);
    return failure();
  }
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    FailureOr<AffineExpr> source = dim(pad.getSource(), d);
    FailureOr<AffineExpr> low = mixed(pad.getMixedLowPad()[d]);
    FailureOr<AffineExpr> high = mixed(pad.getMixedHighPad()[d]);
    if (failed(source) || failed(low) || failed(high))
      return failure();
    return *source + *low + *high;
  }
  if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
    if (static_cast<int64_t>(concat.getDim()) != d)
      return dim(concat.getInputs().front(), d);
    AffineExpr sum = getAffineConstantExpr(0, op->getContext());
    for (Value input : concat.getInputs()) {
      FailureOr<AffineExpr> size = dim(input, d);
      if (failed(size))
        return failure();
      sum = sum + *size;
    }
    return sum;
  }
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
    Value init = dps.getDpsInitOperand(result.getResultNumber())->get();
    auto initType = dyn_cast<RankedTensorType>(init.getType());
    if (dps.hasPureTensorSemantics() && initType &&
        initType.getRank() == cast<ShapedType>(value.getType()).getRank())
      return dim(init, d);
  }
  return failure();
}

FailureOr<AffineExpr> SizeDeriver::index(Value value) {
  auto it = indices.find(value);
  if (it != indices.end())
    return it->second;
  FailureOr<AffineExpr> expr = deriveIndex(value);
  if (succeeded(expr))
    indices[value] = *expr;
  return expr;
}

FailureOr<AffineExpr> SizeDeriver::deriveIndex(Value value) {
  MLIRContext *ctx = value.getContext();
  Operation *op = value.getDefiningOp();
  APInt constant;
  if (op && !op->hasAttr(attr::kUnresolvedSize) &&
      matchPattern(value, m_ConstantInt(&constant)))
    return getAffineConstantExpr(constant.getSExtValue(), ctx);
  // A size the ONNX importer has yet to resolve.
  if (!op || op->hasAttr(attr::kUnresolvedSize))
    return failure();
  if (auto dimOp = dyn_cast<tensor::DimOp>(op)) {
    std::optional<int64_t> d = dimOp.getConstantIndex();
    if (!d)
      return failure();
    return dim(dimOp.getSource(), *d);
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op))
    return index(op->getOperand(0));
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    SmallVector<AffineExpr> operands;
    for (Value operand : apply.getMapOperands()) {
      FailureOr<AffineExpr> expr = index(operand);
      if (failed(expr))
        return failure();
      operands.push_back(*expr);
    }
    AffineMap map = apply.getAffineMap();
    ArrayRef<AffineExpr> all = operands;
    return map.getResult(0).replaceDimsAndSymbols(
        all.take_front(map.getNumDims()), all.drop_front(map.getNumDims()));
  }
  if (op->getNumOperands() != 2)
    return failure();
  FailureOr<AffineExpr> lhs = index(op->getOperand(0));
  FailureOr<AffineExpr> rhs = index(op->getOperand(1));
  if (failed(lhs) || failed(rhs))
    return failure();
  // Division and remainder only by a positive constant (sizes are not
  // negative, so truncating and flooring agree).
  auto divisor = dyn_cast<AffineConstantExpr>(*rhs);
  bool byConstant = divisor && divisor.getValue() > 0;
  if (isa<arith::AddIOp>(op))
    return *lhs + *rhs;
  if (isa<arith::SubIOp>(op))
    return *lhs - *rhs;
  if (isa<arith::MulIOp>(op))
    return *lhs * *rhs;
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp>(op) &&
      byConstant)
    return lhs->floorDiv(*rhs);
  if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(op) && byConstant)
    return lhs->ceilDiv(*rhs);
  if (isa<arith::RemSIOp, arith::RemUIOp>(op) && byConstant)
    return *lhs % *rhs;
  return failure();
}

FailureOr<AffineExpr> mlir::orchestra::getDimExpr(Value value, int64_t dim,
                                                  func::FuncOp func,
                                                  ArgDimResolver resolve) {
  auto type = cast<ShapedType>(value.getType());
  MLIRContext *ctx = value.getContext();
  if (!type.isDynamicDim(dim))
    return getAffineConstantExpr(type.getDimSize(dim), ctx);
  SizeDeriver deriver(func, resolve);
  FailureOr<AffineExpr> derived = deriver.dim(value, dim);
  if (succeeded(derived))
    return derived;
  // Through ops the structure does not know (loops, ...): the value
  // bounds, which stop at the function's arguments.
  auto isArgument = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner()->getParentOp() == func.getOperation();
  };
  AffineMap map;
  ValueDimList operands;
  if (failed(ValueBoundsConstraintSet::computeBound(
          map, operands, presburger::BoundType::EQ,
          ValueBoundsConstraintSet::Variable(value, dim),
          [&](Value v, std::optional<int64_t>, ValueBoundsConstraintSet &) {
            return isArgument(v);
          })))
    return failure();
  SmallVector<AffineExpr> replacements;
  for (auto &[operand, operandDim] : operands) {
    if (!operandDim || !isArgument(operand))
      return failure();
    FailureOr<AffineExpr> expr =
        resolve(cast<BlockArgument>(operand), *operandDim);
    if (failed(expr))
      return failure();
    replacements.push_back(*expr);
  }
  ArrayRef<AffineExpr> all = replacements;
  return map.getResult(0).replaceDimsAndSymbols(
      all.take_front(map.getNumDims()), all.drop_front(map.getNumDims()));
}

FailureOr<AffineExpr> mlir::orchestra::getIndexExpr(Value value,
                                                    func::FuncOp func,
                                                    ArgDimResolver resolve) {
  return SizeDeriver(func, resolve).index(value);
}

FailureOr<SmallVector<AffineExpr>>
mlir::orchestra::getShapeExprs(Value value, func::FuncOp func,
                               ArgDimResolver resolve) {
  SmallVector<AffineExpr> exprs;
  auto type = cast<ShapedType>(value.getType());
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    FailureOr<AffineExpr> expr = getDimExpr(value, dim, func, resolve);
    if (failed(expr))
      return failure();
    exprs.push_back(*expr);
  }
  return exprs;
}

namespace {
/// The values an expression takes over the dims' ranges, as [lo, hi].
struct Interval {
  int64_t lo, hi;
};
} // namespace

static std::optional<Interval> getRange(AffineExpr expr,
                                        ArrayRef<DynamicDim> dims) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return Interval{constant.getValue(), constant.getValue()};
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr)) {
    if (symbol.getPosition() >= dims.size())
      return std::nullopt;
    const DynamicDim &dim = dims[symbol.getPosition()];
    return Interval{dim.min, dim.max};
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return std::nullopt;
  std::optional<Interval> lhs = getRange(binary.getLHS(), dims);
  std::optional<Interval> rhs = getRange(binary.getRHS(), dims);
  if (!lhs || !rhs)
    return std::nullopt;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return Interval{lhs->lo + rhs->lo, lhs->hi + rhs->hi};
  case AffineExprKind::Mul: {
    int64_t products[] = {lhs->lo * rhs->lo, lhs->lo * rhs->hi,
                          lhs->hi * rhs->lo, lhs->hi * rhs->hi};
    return Interval{*llvm::min_element(products), *llvm::max_element(products)};
  }
  case AffineExprKind::FloorDiv:
  case AffineExprKind::CeilDiv: {
    // Only by a positive constant, which is monotone.
    if (rhs->lo != rhs->hi || rhs->lo <= 0)
      return std::nullopt;
    auto divide = [&](int64_t v) {
      return expr.getKind() == AffineExprKind::FloorDiv
                 ? llvm::divideFloorSigned(v, rhs->lo)
                 : llvm::divideCeilSigned(v, rhs->lo);
    };
    return Interval{divide(lhs->lo), divide(lhs->hi)};
  }
  case AffineExprKind::Mod:
    if (rhs->lo != rhs->hi || rhs->lo <= 0)
      return std::nullopt;
    return Interval{0, rhs->lo - 1};
  default:
    return std::nullopt;
  }
}

std::optional<int64_t>
mlir::orchestra::getUpperBound(AffineExpr expr, ArrayRef<DynamicDim> dims) {
  std::optional<Interval> range = getRange(expr, dims);
  if (!range)
    return std::nullopt;
  return range->hi;
}

std::optional<int64_t>
mlir::orchestra::getLowerBound(AffineExpr expr, ArrayRef<DynamicDim> dims) {
  std::optional<Interval> range = getRange(expr, dims);
  if (!range)
    return std::nullopt;
  return range->lo;
}

FailureOr<SmallVector<int64_t>>
mlir::orchestra::getUpperBoundShape(ArrayRef<AffineExpr> exprs,
                                    ArrayRef<DynamicDim> dims) {
  SmallVector<int64_t> shape;
  for (AffineExpr expr : exprs) {
    std::optional<int64_t> bound = getUpperBound(expr, dims);
    if (!bound || *bound < 0)
      return failure();
    shape.push_back(*bound);
  }
  return shape;
}

int64_t mlir::orchestra::evaluateDimExpr(AffineExpr expr,
                                         ArrayRef<int64_t> sizes) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr))
    return constant.getValue();
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
    return sizes[symbol.getPosition()];
  auto binary = cast<AffineBinaryOpExpr>(expr);
  int64_t lhs = evaluateDimExpr(binary.getLHS(), sizes);
  int64_t rhs = evaluateDimExpr(binary.getRHS(), sizes);
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    return lhs + rhs;
  case AffineExprKind::Mul:
    return lhs * rhs;
  case AffineExprKind::FloorDiv:
    return llvm::divideFloorSigned(lhs, rhs);
  case AffineExprKind::CeilDiv:
    return llvm::divideCeilSigned(lhs, rhs);
  case AffineExprKind::Mod:
    return lhs - rhs * llvm::divideFloorSigned(lhs, rhs);
  default:
    llvm_unreachable("dims expressions have no dims");
  }
}
