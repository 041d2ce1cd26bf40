//===- PadsToLinalg.h - tensor.pad as a linalg.generic for the GPU -*- C++
//-*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_NVIDIA_PADSTOLINALG_H
#define ORCHESTRA_TARGET_NVIDIA_PADSTOLINALG_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlir::orchestra::nvidia {

/// The padding value of `pad` when `orchestra-nvidia-pads-to-linalg` can
/// rewrite it (static shapes and padding, at least one dimension, a source
/// with elements, a constant padding value), else null. (Inline: the target
/// registry's op filter uses it without linking the NVIDIA passes.)
inline Value getConstantPadValue(tensor::PadOp pad) {
  RankedTensorType source = pad.getSourceType();
  if (!pad.getResultType().hasStaticShape() || !source.hasStaticShape() ||
      source.getRank() == 0 || source.getNumElements() == 0 ||
      !pad.getLow().empty() || !pad.getHigh().empty())
    return nullptr;
  // A constant: a scalar computed at run time (a tensor.extract) would have
  // to travel between tasks on its own.
  Value value = pad.getConstantPaddingValue();
  return value && matchPattern(value, m_Constant()) ? value : nullptr;
}

} // namespace mlir::orchestra::nvidia

#endif // ORCHESTRA_TARGET_NVIDIA_PADSTOLINALG_H
