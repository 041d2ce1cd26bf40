//===- CopiesToLinalg.cpp - Host-side copies of GPU kernels to linalg -----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/NVIDIA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra::nvidia {
#define GEN_PASS_DEF_NVIDIACOPIESTOLINALG
#include "orchestra/Target/NVIDIA/Passes.h.inc"
} // namespace mlir::orchestra::nvidia

using namespace mlir;

namespace {
class NVIDIACopiesToLinalgPass
    : public orchestra::nvidia::impl::NVIDIACopiesToLinalgBase<
          NVIDIACopiesToLinalgPass> {
public:
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (!copy->getParentOfType<gpu::LaunchOp>() &&
          !copy->getParentOfType<gpu::GPUModuleOp>())
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};
} // namespace
