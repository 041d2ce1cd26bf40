//===- StackScratchBuffers.cpp - Small scratch buffers on the stack -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/CPU/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::orchestra::cpu {
#define GEN_PASS_DEF_CPUSTACKSCRATCHBUFFERS
#include "orchestra/Target/CPU/Passes.h.inc"
} // namespace mlir::orchestra::cpu

using namespace mlir;

namespace {

/// The bytes of a static, densely packed buffer of `type`, or nothing.
std::optional<int64_t> staticBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      !type.getElementType().isIntOrIndexOrFloat() ||
      type.getElementType().isIndex())
    return std::nullopt;
  // Each element takes whole bytes (an i1 one: memref accesses address
  // buffers of i1 a byte per element).
  int64_t bits = type.getElementTypeBitWidth();
  return type.getNumElements() * ((bits + 7) / 8);
}

/// The `memref.dealloc` of `alloc` in the same block, when it is its only
/// one.
memref::DeallocOp findLocalDealloc(memref::AllocOp alloc) {
  memref::DeallocOp found;
  for (Operation *user : alloc->getUsers()) {
    auto dealloc = dyn_cast<memref::DeallocOp>(user);
    if (!dealloc)
      continue;
    if (found || dealloc->getBlock() != alloc->getBlock())
      return {};
    found = dealloc;
  }
  return found;
}

class CPUStackScratchBuffersPass
    : public orchestra::cpu::impl::CPUStackScratchBuffersBase<
          CPUStackScratchBuffersPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    // Bytes already placed on the stack, per scope.
    llvm::DenseMap<Operation *, int64_t> scopeBytes;
    SmallVector<std::pair<memref::AllocOp, memref::DeallocOp>> promoted;
    getOperation().walk([&](memref::AllocOp alloc) {
      // Only scopes whose lowering releases the stack at their end: loops
      // such as scf.for carry the AutomaticAllocationScope trait too, but
      // an alloca in their body would grow the stack with every iteration.
      Operation *scope = alloc->getParentOp();
      if (!isa_and_present<memref::AllocaScopeOp, FunctionOpInterface>(scope))
        return;
      std::optional<int64_t> bytes = staticBytes(alloc.getType());
      if (!bytes || *bytes > maxBufferBytes ||
          scopeBytes[scope] + *bytes > maxScopeBytes)
        return;
      memref::DeallocOp dealloc = findLocalDealloc(alloc);
      if (!dealloc)
        return;
      scopeBytes[scope] += *bytes;
      promoted.emplace_back(alloc, dealloc);
    });
    for (auto [alloc, dealloc] : promoted) {
      OpBuilder builder(alloc);
      auto alloca = memref::AllocaOp::create(
          builder, alloc.getLoc(), alloc.getType(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), alloc.getAlignmentAttr());
      alloc.replaceAllUsesWith(alloca.getResult());
      dealloc.erase();
      alloc.erase();
    }
  }
};

} // namespace
