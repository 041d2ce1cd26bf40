//===- LowerBranchProbes.cpp - Branch probes as NVIDIA warp votes ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/BranchProbes.h"
#include "orchestra/Target/NVIDIA/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::orchestra::nvidia {
#define GEN_PASS_DEF_NVIDIALOWERBRANCHPROBES
#include "orchestra/Target/NVIDIA/Passes.h.inc"
} // namespace mlir::orchestra::nvidia

using namespace mlir;

namespace {
class NVIDIALowerBranchProbesPass
    : public orchestra::nvidia::impl::NVIDIALowerBranchProbesBase<
          NVIDIALowerBranchProbesPass> {
public:
  void runOnOperation() override {
    orchestra::gpucommon::WarpVote vote;
    vote.width = 32;
    vote.activeLanes = [](OpBuilder &b, Location loc) -> Value {
      return LLVM::InlineAsmOp::create(
                 b, loc, b.getI32Type(), ValueRange(), "activemask.b32 $0;",
                 "=r", /*has_side_effects=*/true, /*is_align_stack=*/false,
                 LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
                 ArrayAttr())
          .getRes();
    };
    vote.ballot = [](OpBuilder &b, Location loc, Value condition,
                     Value active) -> Value {
      return NVVM::VoteSyncOp::create(b, loc, b.getI32Type(), active, condition,
                                      NVVM::VoteSyncKind::ballot);
    };
    if (failed(orchestra::gpucommon::lowerBranchProbes(getOperation(), vote)))
      signalPassFailure();
  }
};
} // namespace
