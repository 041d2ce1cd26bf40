//===- WorkgroupAllocations.cpp - Kernel temporaries as attributions ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/NVIDIA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::orchestra::nvidia {
#define GEN_PASS_DEF_NVIDIAWORKGROUPALLOCATIONS
#include "orchestra/Target/NVIDIA/Passes.h.inc"
} // namespace mlir::orchestra::nvidia

using namespace mlir;

/// Shared-memory tiles are read with `ldmatrix`, whose row addresses must be
/// 16-byte aligned.
static constexpr int64_t kWorkgroupAlignment = 16;

namespace {
class NVIDIAWorkgroupAllocationsPass
    : public orchestra::nvidia::impl::NVIDIAWorkgroupAllocationsBase<
          NVIDIAWorkgroupAllocationsPass> {
public:
  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return WalkResult::advance();
      SmallVector<memref::AllocOp> allocs;
      func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
      for (memref::AllocOp alloc : allocs)
        if (failed(convert(func, alloc)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

private:
  LogicalResult convert(gpu::GPUFuncOp func, memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
    if (!space || space.getValue() == gpu::AddressSpace::Global)
      return alloc.emitOpError()
             << "allocates " << type << " in global memory inside GPU kernel @"
             << func.getName()
             << "; kernels may only allocate shared (workgroup) or private "
                "memory";
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return alloc.emitOpError()
             << "allocates " << type << " inside GPU kernel @" << func.getName()
             << "; only static shapes with the identity layout can become "
                "attributions";
    BlockArgument buffer;
    if (space.getValue() == gpu::AddressSpace::Workgroup) {
      buffer = func.addWorkgroupAttribution(type, alloc.getLoc());
      func.setWorkgroupAttributionAttr(
          func.getNumWorkgroupAttributions() - 1,
          LLVM::LLVMDialect::getAlignAttrName(),
          IntegerAttr::get(IntegerType::get(&getContext(), 64),
                           kWorkgroupAlignment));
    } else {
      buffer = func.addPrivateAttribution(type, alloc.getLoc());
    }
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.replaceAllUsesWith(buffer);
    alloc.erase();
    return success();
  }
};
} // namespace
