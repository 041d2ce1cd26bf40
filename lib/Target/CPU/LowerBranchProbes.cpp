//===- LowerBranchProbes.cpp - Branch probes as atomic counters -----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Target/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::orchestra::cpu {
#define GEN_PASS_DEF_CPULOWERBRANCHPROBES
#include "orchestra/Target/CPU/Passes.h.inc"
} // namespace mlir::orchestra::cpu

using namespace mlir;
using namespace mlir::orchestra;

namespace {
class CPULowerBranchProbesPass
    : public orchestra::cpu::impl::CPULowerBranchProbesBase<
          CPULowerBranchProbesPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<BranchProbeOp> probes;
    module.walk([&](BranchProbeOp probe) { probes.push_back(probe); });
    if (probes.empty())
      return;
    MLIRContext *ctx = &getContext();
    auto ptrType = LLVM::LLVMPointerType::get(ctx);
    auto i64 = IntegerType::get(ctx, 64);
    llvm::StringMap<LLVM::GlobalOp> globals;
    for (BranchProbeOp probe : probes) {
      auto kernel = probe->getParentOfType<LLVM::LLVMFuncOp>();
      if (!kernel || !kernel->hasAttr(attr::kAbi)) {
        probe.emitOpError() << "is not inside a kernel (an 'llvm.func' with '"
                            << attr::kAbi << "')";
        return signalPassFailure();
      }
      LLVM::GlobalOp &global = globals[kernel.getSymName()];
      if (!global) {
        OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
        global = LLVM::GlobalOp::create(
            builder, kernel.getLoc(), ptrType, /*isConstant=*/false,
            LLVM::Linkage::Internal,
            (attr::kBranchCountersGlobalPrefix + kernel.getSymName()).str(),
            Attribute());
        Block *init = builder.createBlock(&global.getInitializerRegion());
        builder.setInsertionPointToStart(init);
        LLVM::ReturnOp::create(
            builder, kernel.getLoc(),
            LLVM::ZeroOp::create(builder, kernel.getLoc(), ptrType)
                .getResult());
      }
      OpBuilder builder(probe);
      Location loc = probe.getLoc();
      Value address = LLVM::AddressOfOp::create(builder, loc, global);
      Value counters = LLVM::LoadOp::create(builder, loc, ptrType, address);
      int64_t first = 4 * static_cast<int64_t>(probe.getBranchId());
      auto constant = [&](int64_t value) -> Value {
        return LLVM::ConstantOp::create(builder, loc, i64,
                                        builder.getI64IntegerAttr(value));
      };
      Value index =
          LLVM::SelectOp::create(builder, loc, probe.getCondition(),
                                 constant(first), constant(first + 1));
      Value counter = LLVM::GEPOp::create(builder, loc, ptrType, i64, counters,
                                          ArrayRef<LLVM::GEPArg>{index});
      LLVM::AtomicRMWOp::create(builder, loc, LLVM::AtomicBinOp::add, counter,
                                constant(1), LLVM::AtomicOrdering::monotonic);
      probe.erase();
    }
  }
};
} // namespace
