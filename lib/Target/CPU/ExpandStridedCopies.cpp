//===- ExpandStridedCopies.cpp - Strided memref.copy to linalg.copy -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra::cpu {
#define GEN_PASS_DEF_CPUEXPANDSTRIDEDCOPIES
#include "orchestra/Target/CPU/Passes.h.inc"
} // namespace mlir::orchestra::cpu

using namespace mlir;

namespace {
class CPUExpandStridedCopiesPass
    : public orchestra::cpu::impl::CPUExpandStridedCopiesBase<
          CPUExpandStridedCopiesPass> {
public:
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      auto source = dyn_cast<MemRefType>(copy.getSource().getType());
      auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (source && target &&
          (!source.getLayout().isIdentity() ||
           !target.getLayout().isIdentity()))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
    if (failed(expandDynamicGroups()))
      signalPassFailure();
  }

private:
  /// A memref.expand_shape that splits one dimension into several dynamic
  /// ones (a reshape of [batch * seq, n] to [batch, seq, n]), which
  /// upstream's expand-strided-metadata cannot lower, becomes a
  /// reinterpret_cast of its contiguous source with the row-major strides
  /// of the output shape.
  LogicalResult expandDynamicGroups() {
    SmallVector<memref::ExpandShapeOp> expands;
    getOperation().walk([&](memref::ExpandShapeOp expand) {
      MemRefType type = expand.getResultType();
      for (const ReassociationIndices &group : expand.getReassociationIndices())
        if (llvm::count_if(
                group, [&](int64_t d) { return type.isDynamicDim(d); }) > 1) {
          expands.push_back(expand);
          return;
        }
    });
    for (memref::ExpandShapeOp expand : expands) {
      if (!expand.getSrcType().getLayout().isIdentity() ||
          !expand.getResultType().getLayout().isIdentity())
        return expand.emitError()
               << "cannot lower an expand_shape of several dynamic sizes "
                  "in one group from a non-contiguous memref";
      OpBuilder b(expand);
      Location loc = expand.getLoc();
      SmallVector<OpFoldResult> sizes = expand.getMixedOutputShape();
      SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
      for (int64_t d = static_cast<int64_t>(sizes.size()) - 2; d >= 0; --d) {
        std::optional<int64_t> inner = getConstantIntValue(strides[d + 1]);
        std::optional<int64_t> size = getConstantIntValue(sizes[d + 1]);
        if (inner && size) {
          strides[d] = b.getIndexAttr(*inner * *size);
          continue;
        }
        strides[d] =
            arith::MulIOp::create(
                b, loc, getValueOrCreateConstantIndexOp(b, loc, strides[d + 1]),
                getValueOrCreateConstantIndexOp(b, loc, sizes[d + 1]))
                .getResult();
      }
      Value cast = memref::ReinterpretCastOp::create(
          b, loc, expand.getResultType(), expand.getSrc(), b.getIndexAttr(0),
          sizes, strides);
      expand.replaceAllUsesWith(cast);
      expand.erase();
    }
    return success();
  }
};
} // namespace
