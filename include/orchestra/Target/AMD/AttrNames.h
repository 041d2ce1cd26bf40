//===- AttrNames.h - Attributes of the AMD backend --------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The discardable attributes the AMD backend hands from its passes to its
// strategy script (strategies/amd_instinct_cdna3_strategy.mlir matches and
// reads them by these names), beside the ones every GPU backend shares
// (orchestra/Target/GPU/AttrNames.h).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_AMD_ATTRNAMES_H
#define ORCHESTRA_TARGET_AMD_ATTRNAMES_H

#include "orchestra/Target/GPU/AttrNames.h"

#include "llvm/ADT/StringRef.h"

namespace mlir::orchestra::amd::attr {

using namespace mlir::orchestra::gpucommon::attr;

// orchestra-amd-select-recipes, on the fusion root of an MFMA kernel.
/// The K step of the K loop (the depth of the operand tiles staged in LDS).
inline constexpr llvm::StringLiteral kKTile = "orchestra.gpu_k_tile";
/// The elements of one 16-byte chunk of the operand tiles, which each
/// thread copies into LDS per K step.
inline constexpr llvm::StringLiteral kCopyElems = "orchestra.gpu_copy_elems";

} // namespace mlir::orchestra::amd::attr

#endif // ORCHESTRA_TARGET_AMD_ATTRNAMES_H
