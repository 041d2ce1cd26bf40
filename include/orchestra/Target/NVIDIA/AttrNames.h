//===- AttrNames.h - Attributes of the NVIDIA backend -----------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The discardable attributes the NVIDIA backend hands between its passes,
// its transform ops and its strategy scripts (strategies/nvidia_*.mlir match
// and read them by these names). Each is spelled here once.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_NVIDIA_ATTRNAMES_H
#define ORCHESTRA_TARGET_NVIDIA_ATTRNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlir::orchestra::nvidia::attr {

// orchestra-nvidia-select-recipes, on a kernel's fusion root and its matmul.
/// The recipe the strategy applies ("simt", "mma", "wgmma", ...).
inline constexpr llvm::StringLiteral kRecipe = "orchestra.gpu_recipe";
/// The matmul that the tensor-core contraction lowers.
inline constexpr llvm::StringLiteral kMma = "orchestra.gpu_mma";
/// The depth of the K loop's pipeline, and whether its loads use TMA.
inline constexpr llvm::StringLiteral kKStages = "orchestra.gpu_k_stages";
inline constexpr llvm::StringLiteral kTma = "orchestra.gpu_tma";
/// The matmul whose accumulator starts at zero (its fill is dropped).
inline constexpr llvm::StringLiteral kZeroInit = "orchestra.gpu_zero_init";
/// The K loop of a SIMT reduction, and its tile.
inline constexpr llvm::StringLiteral kSimtKLoop = "orchestra.gpu_simt_k_loop";
inline constexpr llvm::StringLiteral kSimtKTile = "orchestra.gpu_simt_k_tile";
/// The block tile of an op with a row-major block shape.
inline constexpr llvm::StringLiteral kBlockRows = "orchestra.gpu_block_rows";
inline constexpr llvm::StringLiteral kBlockCols = "orchestra.gpu_block_cols";
/// The block, warp and copy shapes of a tensor-core matmul.
inline constexpr llvm::StringLiteral kTileM = "orchestra.gpu_tile_m";
inline constexpr llvm::StringLiteral kTileN = "orchestra.gpu_tile_n";
inline constexpr llvm::StringLiteral kWarpM = "orchestra.gpu_warp_m";
inline constexpr llvm::StringLiteral kWarpN = "orchestra.gpu_warp_n";
inline constexpr llvm::StringLiteral kCopyRowsA = "orchestra.gpu_copy_rows_a";
inline constexpr llvm::StringLiteral kCopyRowsB = "orchestra.gpu_copy_rows_b";

// The transform ops.
/// The attribute `nvidia_tma_k_loop` leaves on the loop it staged: how many
/// steps after a step its stage is refilled.
inline constexpr llvm::StringLiteral kRefillLag = "orchestra.tma_refill_lag";
/// Marks the inline asm that waits for the tcgen05.ld of
/// `nvidia_tcgen05_mma` (it touches registers only).
inline constexpr llvm::StringLiteral kTcgen05Wait = "orchestra.tcgen05_wait";
/// Marks the stores of `nvidia_tcgen05_mma` after the K loop: together, the
/// block's threads write every element of the accumulator buffer with them.
inline constexpr llvm::StringLiteral kTileStore = "orchestra.gpu_tile_store";

// The passes after the strategy.
/// The attribute of a `gpu.module` that maps each of its kernels whose
/// shared-memory tiles live in dynamic shared memory to the bytes they take
/// (set by `orchestra-nvidia-workgroup-allocations`, read by
/// `orchestra-nvidia-emit-binary` into the kernel's launches).
inline constexpr llvm::StringLiteral kDynamicSharedMemory =
    "orchestra.dynamic_shared_memory";

} // namespace mlir::orchestra::nvidia::attr

#endif // ORCHESTRA_TARGET_NVIDIA_ATTRNAMES_H
