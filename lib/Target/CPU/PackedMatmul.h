//===- PackedMatmul.h - Float matmuls on B packed in blocks -----*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// What orchestra-cpu-pack-matmul-blocks (the layout of a constant B) and
// orchestra-cpu-tag-tiling (the variant that reads it) agree on, with the
// strategy's `@matmul_variant_b128x256_r6x64` (design note 0020).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_LIB_TARGET_CPU_PACKEDMATMUL_H
#define ORCHESTRA_LIB_TARGET_CPU_PACKEDMATMUL_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::orchestra::cpu {

/// The strategy variant whose cache blocks of B are the packed blocks.
inline constexpr llvm::StringLiteral kPackedMatmulVariant = "b128x256_r6x64";
/// Its cache blocks: columns of B (NC) and rows of K (KC).
inline constexpr int64_t kPackedMatmulBlockColumns = 128;
inline constexpr int64_t kPackedMatmulBlockDepth = 256;

/// Whether `matmul`'s B is the `linalg.unpack` of the blocks
/// orchestra-cpu-pack-matmul-blocks asks for.
inline bool readsPackedBlocks(linalg::MatmulOp matmul) {
  auto unpack = matmul.getDpsInputs()[1].getDefiningOp<linalg::UnPackOp>();
  return unpack && unpack.getInnerDimsPos() == ArrayRef<int64_t>{0, 1} &&
         unpack.getStaticInnerTiles() ==
             ArrayRef<int64_t>{kPackedMatmulBlockDepth,
                               kPackedMatmulBlockColumns} &&
         unpack.getOuterDimsPerm() == ArrayRef<int64_t>{1, 0};
}

} // namespace mlir::orchestra::cpu

#endif // ORCHESTRA_LIB_TARGET_CPU_PACKEDMATMUL_H
