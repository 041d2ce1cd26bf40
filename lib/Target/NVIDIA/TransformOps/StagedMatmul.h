//===- StagedMatmul.h - What the NVIDIA MMA transform ops share -*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Helpers of the NVIDIA transform ops (TMA K loops, warpgroup and tcgen05
// MMA, TMA tile stores): the K loop that nvidia_tma_k_loop stages, as the
// MMA ops match it, and the shared-memory buffers they reuse. Private to
// lib/Target/NVIDIA/TransformOps.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_LIB_TARGET_NVIDIA_TRANSFORMOPS_STAGEDMATMUL_H
#define ORCHESTRA_LIB_TARGET_NVIDIA_TRANSFORMOPS_STAGEDMATMUL_H

#include "orchestra/Target/NVIDIA/AttrNames.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace mlir::orchestra::nvidia {

/// Whether the thread is the first of the block (x, y and z all 0).
Value buildIsFirstThread(OpBuilder &b, Location loc);

/// Whether `op` is nested in a block-level (`#gpu.block`) scf.forall; sets
/// `outermost` to the outermost such forall.
bool findBlockForall(Operation *op, scf::ForallOp &outermost);

/// Appends to `users` the ops that use `buffer` or a view of it, the views
/// themselves excepted.
void collectUsersThroughViews(Value buffer,
                              SmallVectorImpl<Operation *> &users);

/// Erases the thread loops before `loop` that only zero `buffer` when an
/// MMA store after the loop overwrites all of it (and nothing else reads
/// it), and the barrier after them when nothing before it in the block
/// touches memory.
void eraseDeadZeroFills(RewriterBase &rewriter, scf::ForOp loop, Value buffer);

/// Whether `alloc` is a static workgroup allocation with the identity layout
/// in `block`.
bool isWorkgroupAllocIn(memref::AllocOp alloc, Block *block);

/// Places the stage buffers of the operands and the accumulator tile in the
/// same bytes, when the stages are used only up to the end of `loop` and the
/// accumulator tile only after it. Returns whether it did; the caller must
/// then keep the accumulator stores after every warpgroup's last MMA, behind
/// a barrier.
bool shareStagesWithAccumulator(RewriterBase &rewriter, scf::ForOp loop,
                                memref::AllocOp aStages,
                                memref::AllocOp bStages, Value &c);

/// The matmul of a K loop staged by `nvidia_tma_k_loop {swizzle_128b}`, as
/// the tensor-core MMA ops take it.
struct StagedMatmul {
  linalg::MatmulOp matmul;
  /// Its operands: stages of A (m x k) and B (k x n), and the accumulator.
  Value a, b, c;
  MemRefType aType, bType;
  memref::AllocOp aStages, bStages;
  /// The tensor maps of the TMA copies into the stages.
  Value aMap, bMap;
  Type element;
  int64_t m = 0, n = 0, k = 0;
  /// How many steps after a step its stage is refilled.
  int64_t lag = 0;
};

/// Matches the K loop `target` of a tensor-core MMA op: one zero-initialized
/// row-major f16 or bf16 matmul into f32, 128 x N x K with N a multiple of
/// `nMultiple` up to 256 and K of 16, whose operands are stages written by
/// swizzled TMA copies. With `shareAccumulator`, an accumulator tile in
/// shared memory must be able to take the stages' bytes. Sets `why` when
/// it does not match.
std::optional<StagedMatmul> matchStagedMatmul(Operation *target,
                                              int64_t nMultiple,
                                              bool shareAccumulator,
                                              std::string &why);

/// Whether the offset `offset` of a view made in `forall` is its induction
/// variable `dim` times `size`.
bool isIvTimes(OpFoldResult offset, scf::ForallOp forall, int dim,
               int64_t size);

} // namespace mlir::orchestra::nvidia

#endif // ORCHESTRA_LIB_TARGET_NVIDIA_TRANSFORMOPS_STAGEDMATMUL_H
