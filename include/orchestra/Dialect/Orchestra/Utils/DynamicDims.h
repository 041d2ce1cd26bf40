//===- DynamicDims.h - Named dynamic dimensions and their sizes -*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// A program compiled once for a range of sizes (design/0017) names each
// dynamic dimension of its entry function's arguments (`batch`, `seq`) and
// bounds it. Every other dynamic size of the program is an affine
// expression in those dims, whose symbols are the dims in the order the
// entry's `orchestra.dims` lists them: the plan sizes its buffers at the
// expressions' upper bounds and the runtime evaluates them for each run.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_UTILS_DYNAMICDIMS_H
#define ORCHESTRA_DIALECT_ORCHESTRA_UTILS_DYNAMICDIMS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AffineExpr.h"

#include <optional>
#include <string>

namespace mlir::orchestra {

/// A named dimension and the sizes it may take: [min, max], costed at opt.
struct DynamicDim {
  std::string name;
  int64_t min = 1;
  int64_t max = 1;
  int64_t opt = 1;
};

/// The upper bound a dimension gets when the compile is given none.
inline constexpr int64_t kDefaultDimUpperBound = 64;

/// Parses `NAME=SIZE` (a pin), `NAME=MIN..MAX` or `NAME=MIN..MAX@OPT` (the
/// `--dim` option); opt defaults to max. Sets `error` on failure.
FailureOr<DynamicDim> parseDimOption(StringRef option, std::string &error);

/// The dims of `entry` (its `orchestra.dims`), in symbol order; empty for a
/// program of static shapes. Fails with an error on a malformed attribute.
FailureOr<SmallVector<DynamicDim>> getDynamicDims(func::FuncOp entry);

/// Resolves a dynamic dimension of a function argument to an expression.
using ArgDimResolver =
    llvm::function_ref<FailureOr<AffineExpr>(BlockArgument, int64_t)>;

/// The size of dimension `dim` of the shaped `value`, defined in `func`, as
/// an expression: a constant for a static size, else derived down to
/// `func`'s arguments, which `resolve` names: through the ops that define
/// shapes (inits, empties, reshapes, slices, pads, concats, index
/// arithmetic), which keeps products of dims, else through the ops' value
/// bounds (linear). Fails where the size depends on data.
FailureOr<AffineExpr> getDimExpr(Value value, int64_t dim, func::FuncOp func,
                                 ArgDimResolver resolve);

/// The value of the index `value` (a size computed by index arithmetic) as
/// an expression, as getDimExpr derives sizes.
FailureOr<AffineExpr> getIndexExpr(Value value, func::FuncOp func,
                                   ArgDimResolver resolve);
/// The expressions of all dims of `value` (see getDimExpr).
FailureOr<SmallVector<AffineExpr>> getShapeExprs(Value value, func::FuncOp func,
                                                 ArgDimResolver resolve);

/// Names the entry's argument dims: the symbol of each dynamic dimension of
/// an argument of `entry`, from the arguments' `orchestra.dim_names`.
FailureOr<AffineExpr> resolveEntryArgDim(BlockArgument arg, int64_t dim);

/// The largest value `expr` takes over the dims' ranges, or nothing when
/// it cannot be bounded (a negative multiple of a product of dims, ...).
std::optional<int64_t> getUpperBound(AffineExpr expr,
                                     ArrayRef<DynamicDim> dims);

/// The smallest value `expr` takes over the dims' ranges, or nothing.
std::optional<int64_t> getLowerBound(AffineExpr expr,
                                     ArrayRef<DynamicDim> dims);
/// The shape of `type` at its upper bounds: `exprs` gives each dimension.
FailureOr<SmallVector<int64_t>> getUpperBoundShape(ArrayRef<AffineExpr> exprs,
                                                   ArrayRef<DynamicDim> dims);

/// `expr` with each dim replaced by its size in `sizes`.
int64_t evaluateDimExpr(AffineExpr expr, ArrayRef<int64_t> sizes);

} // namespace mlir::orchestra

#endif // ORCHESTRA_DIALECT_ORCHESTRA_UTILS_DYNAMICDIMS_H
