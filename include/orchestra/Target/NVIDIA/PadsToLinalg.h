//===- PadsToLinalg.h - tensor.pad as a linalg.generic for the GPU -*- C++
//-*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_NVIDIA_PADSTOLINALG_H
#define ORCHESTRA_TARGET_NVIDIA_PADSTOLINALG_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::orchestra::nvidia {

/// The padding value of `pad` when `orchestra-nvidia-pads-to-linalg` can
/// rewrite it (static shapes and padding, a value defined outside its
/// region), else null. (Inline: the target registry's op filter uses it
/// without linking the NVIDIA passes.)
inline Value getConstantPadValue(tensor::PadOp pad) {
  if (!pad.getResultType().hasStaticShape() ||
      !pad.getSourceType().hasStaticShape() || !pad.getLow().empty() ||
      !pad.getHigh().empty())
    return nullptr;
  Value value = pad.getConstantPaddingValue();
  // getConstantPaddingValue also gives a value defined above the region
  // that is not a constant; one defined in it is not a single value.
  return value && !pad.getRegion().isAncestor(value.getParentRegion())
             ? value
             : nullptr;
}

} // namespace mlir::orchestra::nvidia

#endif // ORCHESTRA_TARGET_NVIDIA_PADSTOLINALG_H
