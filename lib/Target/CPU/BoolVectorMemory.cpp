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
      OpBuilder builder(op);
      Location loc = op->getLoc();
      if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
        VectorType bytes = getByteVectorType(load.getType());
        if (!bytes)
          continue;
        auto wide = LLVM::LoadOp::create(
            builder, loc, bytes, load.getAddr(),
            load.getAlignment().value_or(1), load.getVolatile_(),
            load.getNontemporal(), load.getInvariant(),
            load.getInvariantGroup(), load.getOrdering());
        load.replaceAllUsesWith(
            narrow(builder, loc, wide.getResult(), load.getType()));
        load.erase();
      } else if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
        VectorType bytes = getByteVectorType(store.getValue().getType());
        if (!bytes)
          continue;
        Value wide = widen(builder, loc, store.getValue(), bytes);
        store.getValueMutable().assign(wide);
      } else if (auto load = dyn_cast<LLVM::MaskedLoadOp>(op)) {
        VectorType bytes = getByteVectorType(load.getType());
        if (!bytes)
          continue;
        Value passThru = load.getPassThru();
        if (passThru)
          passThru = widen(builder, loc, passThru, bytes);
        auto wide = LLVM::MaskedLoadOp::create(
            builder, loc, bytes, load.getData(), load.getMask(), passThru,
            load.getAlignment(), load.getNontemporal());
        load.replaceAllUsesWith(
            narrow(builder, loc, wide.getResult(), load.getType()));
        load.erase();
      } else if (auto store = dyn_cast<LLVM::MaskedStoreOp>(op)) {
        VectorType bytes = getByteVectorType(store.getValue().getType());
        if (!bytes)
          continue;
        Value wide = widen(builder, loc, store.getValue(), bytes);
        store.getValueMutable().assign(wide);
      }
    }
  }
};

} // namespace
