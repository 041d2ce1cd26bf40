//===- TensorMapArguments.cpp - TMA descriptors as pointer arguments ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/NVIDIA/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra::nvidia {
#define GEN_PASS_DEF_NVIDIATENSORMAPARGUMENTS
#include "orchestra/Target/NVIDIA/Passes.h.inc"
} // namespace mlir::orchestra::nvidia

using namespace mlir;

namespace {
class NVIDIATensorMapArgumentsPass
    : public orchestra::nvidia::impl::NVIDIATensorMapArgumentsBase<
          NVIDIATensorMapArgumentsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto pointer = LLVM::LLVMPointerType::get(&getContext());
    // Kernels: each tensor-map argument becomes a pointer, cast back to the
    // descriptor type for the kernel's NVGPU ops.
    module.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return;
      Block &entry = func.getBody().front();
      OpBuilder builder = OpBuilder::atBlockBegin(&entry);
      SmallVector<Type> inputs(func.getArgumentTypes());
      bool changed = false;
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        BlockArgument argument = func.getArgument(i);
        auto type =
            dyn_cast<nvgpu::TensorMapDescriptorType>(argument.getType());
        if (!type)
          continue;
        argument.setType(pointer);
        auto cast = UnrealizedConversionCastOp::create(
            builder, argument.getLoc(), type, ValueRange{argument});
        argument.replaceAllUsesExcept(cast.getResult(0), cast);
        inputs[i] = pointer;
        changed = true;
      }
      if (changed)
        func.setFunctionType(
            FunctionType::get(&getContext(), inputs, func.getResultTypes()));
    });
    // Launches: the descriptor operand is passed as that pointer.
    module.walk([&](gpu::LaunchFuncOp launch) {
      OpBuilder builder(launch);
      for (OpOperand &operand : launch.getKernelOperandsMutable()) {
        if (!isa<nvgpu::TensorMapDescriptorType>(operand.get().getType()))
          continue;
        operand.set(
            UnrealizedConversionCastOp::create(
                builder, launch.getLoc(), pointer, ValueRange{operand.get()})
                .getResult(0));
      }
    });
  }
};
} // namespace
