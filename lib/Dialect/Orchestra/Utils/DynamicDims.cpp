//===- DynamicDims.cpp - Named dynamic dimensions and their sizes ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Utils/DynamicDims.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/BuiltinAttributes.h"
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

FailureOr<AffineExpr> mlir::orchestra::getDimExpr(Value value, int64_t dim,
                                                  func::FuncOp func,
                                                  ArgDimResolver resolve) {
  auto type = cast<ShapedType>(value.getType());
  MLIRContext *ctx = value.getContext();
  if (!type.isDynamicDim(dim))
    return getAffineConstantExpr(type.getDimSize(dim), ctx);
  auto isArgument = [&](Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner()->getParentOp() == func.getOperation();
  };
  if (isArgument(value))
    return resolve(cast<BlockArgument>(value), dim);
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
