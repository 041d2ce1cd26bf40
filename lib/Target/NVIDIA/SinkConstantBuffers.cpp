//===- SinkConstantBuffers.cpp - Constant globals into GPU launches -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/NVIDIA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::orchestra::nvidia {
#define GEN_PASS_DEF_NVIDIASINKCONSTANTBUFFERS
#include "orchestra/Target/NVIDIA/Passes.h.inc"
} // namespace mlir::orchestra::nvidia

using namespace mlir;

namespace {
class NVIDIASinkConstantBuffersPass
    : public orchestra::nvidia::impl::NVIDIASinkConstantBuffersBase<
          NVIDIASinkConstantBuffersPass> {
public:
  void runOnOperation() override {
    llvm::SetVector<Operation *> originals;
    getOperation().walk([&](gpu::LaunchOp launch) {
      Region &body = launch.getBody();
      OpBuilder builder = OpBuilder::atBlockBegin(&body.front());
      llvm::SmallDenseMap<Operation *, Value> sunk;
      body.walk([&](Operation *op) {
        for (OpOperand &operand : op->getOpOperands()) {
          auto global = operand.get().getDefiningOp<memref::GetGlobalOp>();
          if (!global || launch->isAncestor(global))
            continue;
          originals.insert(global);
          Value &clone = sunk[global];
          if (!clone)
            clone = builder.clone(*global)->getResult(0);
          operand.set(clone);
        }
      });
    });
    for (Operation *global : originals)
      if (global->use_empty())
        global->erase();
  }
};
} // namespace
