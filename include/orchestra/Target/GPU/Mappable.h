//===- Mappable.h - What the GPU strategies can map onto a GPU ---*- C++
//-*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_GPU_MAPPABLE_H
#define ORCHESTRA_TARGET_GPU_MAPPABLE_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlir::orchestra::gpucommon {

/// The padding value of `pad` when `orchestra-gpu-pads-to-linalg` can
/// rewrite it (static shapes and padding, at least one dimension, a source
/// with elements, a constant padding value), else null. (Inline: the target
/// registry's op filter uses it without linking the GPU passes.)
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

/// Whether the GPU strategies can map `op` onto a GPU: structured ops on
/// static shapes (orchestra-gpu-parallel-loops-first puts their parallel
/// loops first, or gives a reduction to a scalar a unit parallel loop; they
/// are tiled over blocks and threads along those; the accumulator of a
/// result nobody reads, such as ArgMax's maximum, becomes a thread's
/// private memory in orchestra-gpu-workgroup-allocations), the empty
/// tensors and constants they use, reshapes (which stay views of the same
/// device buffer), concatenations, static slices and the pads
/// orchestra-gpu-pads-to-linalg rewrites; loops (scf.while, and scf.for
/// with a constant trip count whose induction variable only has counter
/// uses) on static tensors, not nested, that keepsCarriedPositions, and
/// the scalar chains of their counters and conditions. The GPU archs'
/// `supportsOp`.
bool isGpuMappable(Operation *op);

/// Whether `use`, of a counted loop's induction variable, is one a GPU
/// computes from a counter it keeps (orchestra-gpu-scalars-to-linalg): an
/// integer cast feeding scalars that stay on the device, or the one
/// dynamic offset, of size 1, of a static tensor.insert_slice (a row of a
/// scan output).
bool isCounterUse(OpOperand &use);

/// Whether the loop `op` (scf.for or scf.while, on tensors or buffers)
/// yields each value it carries back to the position it came from: a GPU
/// runs a loop's iterations writing in turn into two buffers per value
/// (design/0019), which a value that changes positions could outlive.
bool keepsCarriedPositions(Operation *op);

} // namespace mlir::orchestra::gpucommon

#endif // ORCHESTRA_TARGET_GPU_MAPPABLE_H
