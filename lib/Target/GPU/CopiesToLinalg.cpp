//===- CopiesToLinalg.cpp - Host-side copies of GPU kernels to linalg -----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra::gpucommon {
#define GEN_PASS_DEF_GPUCOPIESTOLINALG
#include "orchestra/Target/GPU/Passes.h.inc"
} // namespace mlir::orchestra::gpucommon

using namespace mlir;

namespace {
class GPUCopiesToLinalgPass
    : public orchestra::gpucommon::impl::GPUCopiesToLinalgBase<
          GPUCopiesToLinalgPass> {
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
      Value source = copy.getSource(), target = copy.getTarget();
      // A copy of a scalar has no loop for the strategy to map onto threads:
      // it copies a one-element view instead.
      if (cast<MemRefType>(source.getType()).getRank() == 0) {
        source = asOneElement(builder, copy.getLoc(), source);
        target = asOneElement(builder, copy.getLoc(), target);
      }
      linalg::CopyOp::create(builder, copy.getLoc(), source, target);
      copy.erase();
    }
  }

private:
  /// The rank-0 `scalar` as a view of shape [1].
  static Value asOneElement(OpBuilder &builder, Location loc, Value scalar) {
    return memref::ExpandShapeOp::create(builder, loc, ArrayRef<int64_t>{1},
                                         scalar,
                                         ArrayRef<ReassociationIndices>{});
  }
};
} // namespace
