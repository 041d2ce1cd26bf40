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

#include "orchestra/Target/GPU/AttrNames.h"

#include "llvm/ADT/StringRef.h"

namespace mlir::orchestra::nvidia::attr {

// The attributes every GPU backend uses (orchestra.gpu_recipe, ...), under
// the same names here.
using namespace mlir::orchestra::gpucommon::attr;

/// Whether the K loop of a tensor-core matmul loads its tiles with TMA.
inline constexpr llvm::StringLiteral kTma = "orchestra.gpu_tma";

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

} // namespace mlir::orchestra::nvidia::attr

#endif // ORCHESTRA_TARGET_NVIDIA_ATTRNAMES_H
