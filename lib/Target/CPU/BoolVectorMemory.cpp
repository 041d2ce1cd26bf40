//===- BoolVectorMemory.cpp - Vectors of i1 in memory, a byte per element -===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra::cpu {
#define GEN_PASS_DEF_CPUBOOLVECTORMEMORY
#include "orchestra/Target/CPU/Passes.h.inc"
} // namespace mlir::orchestra::cpu

using namespace mlir;

namespace {

/// The vector of i8 that holds the elements of `type`, a vector of i1, a
/// byte each; null for other types.
VectorType getByteVectorType(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (!vector || !vector.getElementType().isInteger(1))
    return nullptr;
  return vector.clone(IntegerType::get(type.getContext(), 8));
}

/// A vector of i1 as bytes of 0 or 1 (what a scalar i1 store writes).
Value widen(OpBuilder &builder, Location loc, Value value, VectorType bytes) {
  return LLVM::ZExtOp::create(builder, loc, bytes, value);
}

/// Bytes of 0 or 1 as a vector of i1.
Value narrow(OpBuilder &builder, Location loc, Value bytes, Type bools) {
  return LLVM::TruncOp::create(builder, loc, bools, bytes);
}

/// Stores the i1 vector of `store` (llvm.store or its masked intrinsic) as
/// bytes.
template <typename StoreOp>
void widenStoredValue(StoreOp store) {
  VectorType bytes = getByteVectorType(store.getValue().getType());
  if (!bytes)
    return;
  OpBuilder builder(store);
  Value wide = widen(builder, store.getLoc(), store.getValue(), bytes);
  store.getValueMutable().assign(wide);
}

/// Replaces the i1 vector load `load` by `wide`, its load of bytes, made
/// narrow again.
void replaceByByteLoad(OpBuilder &builder, Operation *load, Value wide) {
  Value bools = load->getResult(0);
  bools.replaceAllUsesWith(
      narrow(builder, load->getLoc(), wide, bools.getType()));
  load->erase();
}

class CPUBoolVectorMemoryPass
    : public orchestra::cpu::impl::CPUBoolVectorMemoryBase<
          CPUBoolVectorMemoryPass> {
public:
  void runOnOperation() override {
    SmallVector<Operation *> accesses;
    getOperation().walk([&](Operation *op) {
      if (isa<LLVM::LoadOp, LLVM::StoreOp, LLVM::MaskedLoadOp,
              LLVM::MaskedStoreOp>(op))
        accesses.push_back(op);
    });
    for (Operation *op : accesses) {
      if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        widenStoredValue(store);
        continue;
      }
      if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op)) {
        widenStoredValue(store);
        continue;
      }
      VectorType bytes = getByteVectorType(op->getResult(0).getType());
      if (!bytes)
        continue;
      OpBuilder builder(op);
      Location loc = op->getLoc();
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        replaceByByteLoad(
            builder, load,
            LLVM::LoadOp::create(builder, loc, bytes, load.getAddr(),
                                 load.getAlignment().value_or(1),
                                 load.getVolatile_(), load.getNontemporal(),
                                 load.getInvariant(), load.getInvariantGroup(),
                                 load.getOrdering()));
        continue;
      }
      auto load = cast<LLVM::MaskedLoadOp>(op);
      Value passThru = load.getPassThru();
      if (passThru)
        passThru = widen(builder, loc, passThru, bytes);
      replaceByByteLoad(builder, load,
                        LLVM::MaskedLoadOp::create(
                            builder, loc, bytes, load.getData(), load.getMask(),
                            passThru, load.getAlignment(),
                            load.getNontemporal()));
    }
  }
};

} // namespace
