//===- KernelArgumentAlignment.cpp - Aligned buffer arguments of kernels --===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/Passes.h"

#include "orchestra/Dialect/Orchestra/Transforms/Plan.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::orchestra::gpucommon {
#define GEN_PASS_DEF_GPUKERNELARGUMENTALIGNMENT
#include "orchestra/Target/GPU/Passes.h.inc"
} // namespace mlir::orchestra::gpucommon

using namespace mlir;

namespace {
class GPUKernelArgumentAlignmentPass
    : public orchestra::gpucommon::impl::GPUKernelArgumentAlignmentBase<
          GPUKernelArgumentAlignmentPass> {
public:
  void runOnOperation() override {
    StringRef name = LLVM::LLVMDialect::getAlignAttrName();
    auto alignment = IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                      orchestra::kBufferAlignment);
    for (auto func : getOperation().getOps<gpu::GPUFuncOp>()) {
      if (!func.isKernel())
        continue;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        if (isa<MemRefType>(func.getArgument(i).getType()) &&
            !func.getArgAttr(i, name))
          func.setArgAttr(i, name, alignment);
    }
  }
};
} // namespace
