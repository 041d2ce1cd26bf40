//===- Mappable.cpp - What the GPU strategies can map onto a GPU ----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/Mappable.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::orchestra;

bool gpucommon::isGpuMappable(Operation *op) {
  if (op->hasTrait<OpTrait::ConstantLike>())
    return true;
  if (auto empty = dyn_cast<tensor::EmptyOp>(op))
    return empty.getType().hasStaticShape();
  // Tensors without elements have nothing for a kernel's threads to do (and
  // nothing to tile): their ops stay on the CPU.
  auto isEmptyTensor = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.hasStaticShape() && shaped.getNumElements() == 0;
  };
  if (llvm::any_of(op->getOperandTypes(), isEmptyTensor) ||
      llvm::any_of(op->getResultTypes(), isEmptyTensor))
    return false;
  if (isa<tensor::EmptyOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
          tensor::ConcatOp>(op))
    return llvm::all_of(op->getResultTypes(), [](Type type) {
      auto shaped = dyn_cast<ShapedType>(type);
      return shaped && shaped.hasStaticShape();
    });
  // Static slices: views of a device buffer (a copy where a kernel's result
  // is one), and copies into views (concatenations).
  if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op)) {
    auto slice = cast<OffsetSizeAndStrideOpInterface>(op);
    auto isStatic = [](ArrayRef<int64_t> values) {
      return llvm::none_of(values, ShapedType::isDynamic);
    };
    return isStatic(slice.getStaticOffsets()) &&
           isStatic(slice.getStaticSizes()) &&
           llvm::all_of(slice.getStaticStrides(),
                        [](int64_t stride) { return stride >= 1; }) &&
           llvm::all_of(op->getOperandTypes(), [](Type type) {
             auto shaped = dyn_cast<ShapedType>(type);
             return !shaped || shaped.hasStaticShape();
           });
  }
  // Pads that orchestra-gpu-pads-to-linalg makes elementwise ops (and
  // what their region holds: the yield of the padding value).
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    return gpucommon::getConstantPadValue(pad) != nullptr;
  if (isa<tensor::YieldOp>(op))
    return isa_and_nonnull<tensor::PadOp>(op->getParentOp());
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureTensorSemantics() &&
         !linalgOp.hasDynamicShape() && linalgOp.getNumDpsInits() >= 1;
}
