//===- Recipes.h - The strategy recipes the GPU backends share --*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// What the GPU backends' select-recipes passes share: finding a kernel's
// fusion root and matmuls, and marking the SIMT recipe that
// strategies/gpu_common.mlir applies to every kernel no matrix unit takes.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_GPU_RECIPES_H
#define ORCHESTRA_TARGET_GPU_RECIPES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::orchestra::gpucommon {

/// Gives every use of an empty tensor but the first its own copy, so that
/// fusion does not make two ops share a buffer (bufferization would then
/// copy a tile through a global-memory temporary inside the kernel).
void splitEmptyTensors(func::FuncOp func);

/// Gives each all-parallel structured op of `func` whose init is also one of
/// its inputs and is not read as the init (an elementwise epilogue written
/// over its own input) an empty tensor as that init instead, so that fusing
/// the op's producers into its tiles does not fuse the producer twice (once
/// for the input, once for the init).
void detachUnreadInits(func::FuncOp func);

/// The fusion root `orchestra-outline-tasks` tagged in `func` (null when
/// none) and the matmuls among the root and its fused producers.
Operation *findFusionRoot(func::FuncOp func,
                          SmallVectorImpl<linalg::MatmulOp> *matmuls = nullptr);

/// Whether a producer of `func` other than the accumulator fill of one of
/// `matmuls` is a `linalg.fill` (the matrix-unit recipes fuse the one fill
/// they find into the tiles: another would be taken for the accumulator's).
bool hasOtherFills(func::FuncOp func, ArrayRef<linalg::MatmulOp> matmuls);

/// The statically shaped tensor types of `matmul`'s operands, when it has
/// the default (row-major, untransposed) indexing maps.
bool getPlainMatmulTypes(linalg::MatmulOp matmul, RankedTensorType &lhs,
                         RankedTensorType &rhs, RankedTensorType &out);

/// Whether `root` is an elementwise epilogue over the result of `matmul`:
/// rank 2, all loops parallel, the same iteration space, identity outputs.
bool isEpilogueOf(linalg::LinalgOp root, linalg::MatmulOp matmul);

/// Marks `root` (the fusion root of `func`) with the SIMT recipe and the
/// tiles strategies/gpu_common.mlir reads: `orchestra.gpu_simt_k_loop` and
/// `orchestra.gpu_simt_k_tile` on f32 matmuls whose 32x64 block tiles
/// divide M and N (each thread steps through K 8, 4 or 2 at a time with its
/// 4x2 accumulators in registers), and `orchestra.gpu_block_rows`/`_cols`
/// on ops with three or more leading parallel loops, or two and a
/// reduction, whose 8x32-ish block tiles can divide their shape (so that
/// every thread's tile is static).
void markSimtRecipe(func::FuncOp func, Operation *root);

} // namespace mlir::orchestra::gpucommon

#endif // ORCHESTRA_TARGET_GPU_RECIPES_H
