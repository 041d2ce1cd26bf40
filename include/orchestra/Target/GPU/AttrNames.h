//===- AttrNames.h - Attributes shared by the GPU backends ------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The discardable attributes the GPU backends hand between their passes and
// their strategy scripts (strategies/gpu_common.mlir and the vendors'
// scripts match and read them by these names). Each is spelled here once;
// a backend's own attributes are in its AttrNames.h.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_GPU_ATTRNAMES_H
#define ORCHESTRA_TARGET_GPU_ATTRNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::orchestra::gpucommon::attr {

// The backends' select-recipes passes, on a kernel's fusion root and its
// matmul.
/// The recipe the strategy applies ("simt", or a matrix-unit recipe).
inline constexpr llvm::StringLiteral kRecipe = "orchestra.gpu_recipe";
/// The matmul that the matrix-unit contraction lowers.
inline constexpr llvm::StringLiteral kMma = "orchestra.gpu_mma";
/// The depth of the K loop's pipeline.
inline constexpr llvm::StringLiteral kKStages = "orchestra.gpu_k_stages";
/// The matmul whose accumulator starts at zero (its fill is dropped).
inline constexpr llvm::StringLiteral kZeroInit = "orchestra.gpu_zero_init";
/// The K loop of a SIMT reduction, and its tile.
inline constexpr llvm::StringLiteral kSimtKLoop = "orchestra.gpu_simt_k_loop";
inline constexpr llvm::StringLiteral kSimtKTile = "orchestra.gpu_simt_k_tile";
/// The block tile of an op with a row-major block shape.
inline constexpr llvm::StringLiteral kBlockRows = "orchestra.gpu_block_rows";
inline constexpr llvm::StringLiteral kBlockCols = "orchestra.gpu_block_cols";
/// The block, warp (wave) and copy shapes of a matrix-unit matmul.
inline constexpr llvm::StringLiteral kTileM = "orchestra.gpu_tile_m";
inline constexpr llvm::StringLiteral kTileN = "orchestra.gpu_tile_n";
inline constexpr llvm::StringLiteral kWarpM = "orchestra.gpu_warp_m";
inline constexpr llvm::StringLiteral kWarpN = "orchestra.gpu_warp_n";
inline constexpr llvm::StringLiteral kCopyRowsA = "orchestra.gpu_copy_rows_a";
inline constexpr llvm::StringLiteral kCopyRowsB = "orchestra.gpu_copy_rows_b";

// The passes after the strategy.
/// The attribute of a `gpu.module` that maps each of its kernels whose
/// shared-memory tiles live in dynamic shared memory to the bytes they take
/// (set by `orchestra-gpu-workgroup-allocations`, read by the backend's
/// emit-binary pass into the kernel's launches).
inline constexpr llvm::StringLiteral kDynamicSharedMemory =
    "orchestra.dynamic_shared_memory";

/// The argument of a task function that holds its branch counters
/// (orchestra-gpu-branch-counters; the launch table's ProfileCounters).
inline constexpr llvm::StringLiteral kBranchCounters =
    "orchestra.gpu_branch_counters";

} // namespace mlir::orchestra::gpucommon::attr

#endif // ORCHESTRA_TARGET_GPU_ATTRNAMES_H
