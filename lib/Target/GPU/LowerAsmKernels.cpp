//===- LowerAsmKernels.cpp - Tasks that carry assembly kernels ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Target/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::orchestra::gpucommon {
#define GEN_PASS_DEF_GPULOWERASMKERNELS
#include "orchestra/Target/GPU/Passes.h.inc"
} // namespace mlir::orchestra::gpucommon

using namespace mlir;
using namespace mlir::orchestra;

/// The most threads of one block on every GPU arch.
static constexpr int64_t kMaxBlockThreads = 1024;

namespace {
class GPULowerAsmKernelsPass
    : public gpucommon::impl::GPULowerAsmKernelsBase<GPULowerAsmKernelsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(attr::kAsmKernel))
        funcs.push_back(func);
    if (funcs.empty())
      return;
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    SymbolTable symbols(module);
    for (func::FuncOp func : funcs)
      if (failed(lower(func, symbols)))
        return signalPassFailure();
  }

private:
  LogicalResult lower(func::FuncOp func, SymbolTable &symbols);
};
} // namespace

LogicalResult GPULowerAsmKernelsPass::lower(func::FuncOp func,
                                            SymbolTable &symbols) {
  MLIRContext *ctx = &getContext();
  Location loc = func.getLoc();
  auto emitError = [&] {
    return func.emitError()
           << "task '" << func.getSymName() << "': 'asm_kernel': ";
  };
  auto dict = func->getAttrOfType<DictionaryAttr>(attr::kAsmKernel);
  if (!dict)
    return emitError() << "expected a dictionary";
  FailureOr<AsmKernel> kernel = parseAsmKernel(dict, emitError);
  if (failed(kernel))
    return failure();
  int64_t threads = kernel->block[0] * kernel->block[1] * kernel->block[2];
  if (threads > kMaxBlockThreads)
    return emitError() << "a block of " << threads << " threads is more than "
                       << kMaxBlockThreads << " (the most any GPU arch runs)";

  // One buffer per tensor, in the kernel ABI's order (arguments, then
  // results as out-parameters).
  SmallVector<Type> buffers;
  for (Type type : llvm::concat<const Type>(func.getArgumentTypes(),
                                            func.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape())
      return emitError() << "an assembly kernel takes buffers of tensors with "
                            "static shapes, not "
                         << type;
    buffers.push_back(
        MemRefType::get(tensor.getShape(), tensor.getElementType()));
  }

  // The device module: the kernel's declaration, the signature the assembly
  // implements.
  OpBuilder builder(ctx);
  builder.setInsertionPointAfter(func);
  auto deviceModule = gpu::GPUModuleOp::create(
      builder, loc, (func.getSymName() + "_asm").str());
  symbols.insert(deviceModule);
  deviceModule->setAttr(attr::kAsmKernel, dict);
  builder.setInsertionPointToStart(deviceModule.getBody());
  auto declaration = gpu::GPUFuncOp::create(
      builder, loc, kernel->entry, builder.getFunctionType(buffers, {}));
  declaration->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                       builder.getUnitAttr());
  builder.setInsertionPointToEnd(&declaration.getBody().front());
  gpu::ReturnOp::create(builder, loc);

  // The host function: one launch of it over the buffers.
  func.getBody().getBlocks().clear();
  func.setType(builder.getFunctionType(buffers, {}));
  func.removeArgAttrsAttr();
  func.removeResAttrsAttr();
  func->removeAttr(attr::kAsmKernel);
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  auto size = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  gpu::KernelDim3 grid{size(kernel->grid[0]), size(kernel->grid[1]),
                       size(kernel->grid[2])};
  gpu::KernelDim3 block{size(kernel->block[0]), size(kernel->block[1]),
                        size(kernel->block[2])};
  Value shared;
  if (kernel->sharedBytes > 0)
    shared = arith::ConstantIntOp::create(builder, loc, kernel->sharedBytes,
                                          /*width=*/32);
  gpu::LaunchFuncOp::create(builder, loc, declaration, grid, block, shared,
                            entry->getArguments());
  func::ReturnOp::create(builder, loc);
  return success();
}
