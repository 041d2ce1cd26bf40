//===- SinkLaunchOperands.cpp - Globals and views into GPU launches ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::orchestra::gpucommon {
#define GEN_PASS_DEF_GPUSINKLAUNCHOPERANDS
#include "orchestra/Target/GPU/Passes.h.inc"
} // namespace mlir::orchestra::gpucommon

using namespace mlir;

/// Whether a launch can compute `op` itself instead of taking its result as
/// a kernel operand: the address of a constant global (outlining copies the
/// global into the device module), or a view with static offsets, sizes and
/// strides (the kernel takes the viewed buffer, a bare pointer to its base).
static bool isSinkable(Operation *op) {
  if (isa<memref::GetGlobalOp>(op))
    return true;
  auto subview = dyn_cast<memref::SubViewOp>(op);
  return subview && subview.getOffsets().empty() &&
         subview.getSizes().empty() && subview.getStrides().empty();
}

namespace {
class GPUSinkLaunchOperandsPass
    : public orchestra::gpucommon::impl::GPUSinkLaunchOperandsBase<
          GPUSinkLaunchOperandsPass> {
public:
  void runOnOperation() override {
    llvm::SetVector<Operation *> originals;
    getOperation().walk([&](gpu::LaunchOp launch) {
      Region &body = launch.getBody();
      OpBuilder builder = OpBuilder::atBlockBegin(&body.front());
      IRMapping sunk;
      // The value inside the launch that stands for `value` (a view's source
      // is sunk before the view).
      std::function<Value(Value)> sink = [&](Value value) -> Value {
        Operation *def = value.getDefiningOp();
        if (!def || launch->isAncestor(def) || !isSinkable(def))
          return value;
        if (Value clone = sunk.lookupOrNull(value))
          return clone;
        for (Value operand : def->getOperands())
          sunk.map(operand, sink(operand));
        originals.insert(def);
        Operation *clone = builder.clone(*def, sunk);
        return clone->getResult(cast<OpResult>(value).getResultNumber());
      };
      body.walk([&](Operation *op) {
        for (OpOperand &operand : op->getOpOperands())
          if (Value inside = sink(operand.get()); inside != operand.get())
            operand.set(inside);
      });
    });
    // Erase what no longer has a use, views before the buffers they view.
    for (Operation *op : llvm::reverse(originals))
      if (op->use_empty())
        op->erase();
  }
};
} // namespace
