//===- LowerBranchProbes.cpp - Branch probes as AMD wave votes ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/AMD/Passes.h"
#include "orchestra/Target/GPU/BranchProbes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::orchestra::amd {
#define GEN_PASS_DEF_AMDLOWERBRANCHPROBES
#include "orchestra/Target/AMD/Passes.h.inc"
} // namespace mlir::orchestra::amd

using namespace mlir;

namespace {
class AMDLowerBranchProbesPass
    : public orchestra::amd::impl::AMDLowerBranchProbesBase<
          AMDLowerBranchProbesPass> {
public:
  void runOnOperation() override {
    orchestra::gpucommon::WarpVote vote;
    vote.width = 64;
    // The ballot of true is the exec mask: the lanes that execute it.
    vote.activeLanes = [](OpBuilder &b, Location loc) -> Value {
      Value all = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
      return ROCDL::BallotOp::create(b, loc, b.getI64Type(), all);
    };
    vote.ballot = [](OpBuilder &b, Location loc, Value condition,
                     Value active) -> Value {
      return ROCDL::BallotOp::create(b, loc, b.getI64Type(), condition);
    };
    if (failed(orchestra::gpucommon::lowerBranchProbes(getOperation(), vote)))
      signalPassFailure();
  }
};
} // namespace
