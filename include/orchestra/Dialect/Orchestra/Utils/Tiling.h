//===- Tiling.h - What a kernel's tiling can split --------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Shared by orchestra-outline-tasks (does a fusion root have a loop to tile
// at all?) and the backends' tagging passes (which loop to tile).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_UTILS_TILING_H
#define ORCHESTRA_DIALECT_ORCHESTRA_UTILS_TILING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::orchestra {

/// Whether loop `dim` of `op` can be split across tiles: a parallel loop of
/// trip count at least 2, or of a dynamic one (design/0017: the tiles are
/// static where the size allows, with a partial last one).
inline bool isTileableParallelLoop(linalg::LinalgOp op, unsigned dim) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  return dim < ranges.size() &&
         iterators[dim] == utils::IteratorType::parallel &&
         (ShapedType::isDynamic(ranges[dim]) || ranges[dim] >= 2);
}

} // namespace mlir::orchestra

#endif // ORCHESTRA_DIALECT_ORCHESTRA_UTILS_TILING_H
