//===- BranchProbes.h - Branch probes as warp votes -------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// What the GPU backends share to lower `orchestra.branch_probe` (design/0019,
// decision 7): a vote of the warp's active lanes on the condition, and the
// warp's lowest active lane adding the then and else lanes, one warp, and one
// divergent warp (when the lanes disagree) to the kernel's counters. A
// backend gives the two vendor operations: its active-lane mask and its
// ballot.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_GPU_BRANCHPROBES_H
#define ORCHESTRA_TARGET_GPU_BRANCHPROBES_H

#include "mlir/IR/Builders.h"

#include <functional>

namespace mlir::orchestra::gpucommon {

/// How a GPU votes across its warp (wave).
struct WarpVote {
  /// The lanes of a warp: 32 or 64; the masks are integers of this width.
  unsigned width = 32;
  /// The mask of the warp's lanes that execute this point.
  std::function<Value(OpBuilder &, Location)> activeLanes;
  /// The mask of the active lanes `active` whose `condition` holds.
  std::function<Value(OpBuilder &, Location, Value condition, Value active)>
      ballot;
};

/// Lowers every `orchestra.branch_probe` under `root` (device code, before
/// the GPU-to-vendor conversion: the lowering uses `gpu.lane_id`, LLVM's bit
/// counting intrinsics and `memref.atomic_rmw`). Each probe must have its
/// counters; an error otherwise.
LogicalResult lowerBranchProbes(Operation *root, const WarpVote &vote);

} // namespace mlir::orchestra::gpucommon

#endif // ORCHESTRA_TARGET_GPU_BRANCHPROBES_H
