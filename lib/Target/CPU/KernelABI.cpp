//===- KernelABI.cpp - The runtime's calling convention for CPU kernels ---===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/CPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::orchestra::cpu {
#define GEN_PASS_DEF_CPUKERNELABI
#include "orchestra/Target/CPU/Passes.h.inc"
} // namespace mlir::orchestra::cpu

using namespace mlir;

namespace {
class CPUKernelABIPass
    : public orchestra::cpu::impl::CPUKernelABIBase<CPUKernelABIPass> {
public:
  void runOnOperation() override;

private:
  LogicalResult wrap(LLVM::LLVMFuncOp func, ArrayAttr abi);
};
} // namespace

LogicalResult CPUKernelABIPass::wrap(LLVM::LLVMFuncOp func, ArrayAttr abi) {
  MLIRContext *ctx = func.getContext();
  // The lowered function takes one expanded memref descriptor per buffer:
  // allocated and aligned pointers, offset, sizes, strides.
  unsigned expected = 0;
  SmallVector<ShapedType> buffers;
  for (Attribute attr : abi) {
    auto type = dyn_cast<TypeAttr>(attr);
    auto shaped = type ? dyn_cast<ShapedType>(type.getValue()) : ShapedType();
    if (!shaped || !shaped.hasRank())
      return func.emitError() << "'orchestra.abi' must list ranked shaped "
                                 "types, got "
                              << attr;
    buffers.push_back(shaped);
    expected += 3 + 2 * shaped.getRank();
  }
  LLVM::LLVMFunctionType type = func.getFunctionType();
  if (type.getNumParams() != expected ||
      !isa<LLVM::LLVMVoidType>(type.getReturnType()))
    return func.emitError()
           << "lowered kernel has " << type.getNumParams()
           << " parameters, expected " << expected
           << " (expanded memref descriptors of " << buffers.size()
           << " buffers, results as out-parameters)";

  OpBuilder builder(func);
  builder.setInsertionPointAfter(func);
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  auto i64 = IntegerType::get(ctx, 64);
  auto wrapperType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                                 {ptrType, ptrType});
  std::string name =
      (orchestra::cpu::kKernelSymbolPrefix + func.getSymName()).str();
  auto wrapper =
      LLVM::LLVMFuncOp::create(builder, func.getLoc(), name, wrapperType);
  Block *entry = wrapper.addEntryBlock(builder);
  builder.setInsertionPointToStart(entry);
  Location loc = func.getLoc();
  Value buffersArg = entry->getArgument(0);
  Value sizesArg = entry->getArgument(1);
  auto constant = [&](int64_t value) -> Value {
    return LLVM::ConstantOp::create(builder, loc, i64,
                                    builder.getI64IntegerAttr(value));
  };
  // Dynamic sizes come from `sizes`, in buffer order, each buffer's in
  // dimension order.
  int32_t nextSize = 0;
  SmallVector<Value> args;
  for (auto [i, shaped] : llvm::enumerate(buffers)) {
    Value slot = LLVM::GEPOp::create(builder, loc, ptrType, ptrType, buffersArg,
                                     ArrayRef<LLVM::GEPArg>{int32_t(i)});
    Value pointer = LLVM::LoadOp::create(builder, loc, ptrType, slot);
    args.push_back(pointer);
    args.push_back(pointer);
    args.push_back(constant(0));
    SmallVector<Value> sizes;
    for (int64_t size : shaped.getShape()) {
      if (!ShapedType::isDynamic(size)) {
        sizes.push_back(constant(size));
        continue;
      }
      Value address = LLVM::GEPOp::create(builder, loc, ptrType, i64, sizesArg,
                                          ArrayRef<LLVM::GEPArg>{nextSize++});
      sizes.push_back(LLVM::LoadOp::create(builder, loc, i64, address));
    }
    llvm::append_range(args, sizes);
    // Row-major strides: constants while the sizes are static.
    std::optional<int64_t> staticStride = 1;
    Value stride;
    SmallVector<Value> strides;
    for (auto [size, value] :
         llvm::zip(llvm::reverse(shaped.getShape()), llvm::reverse(sizes))) {
      strides.push_back(staticStride ? constant(*staticStride) : stride);
      if (staticStride && !ShapedType::isDynamic(size)) {
        *staticStride *= size;
        continue;
      }
      stride = LLVM::MulOp::create(
          builder, loc, staticStride ? constant(*staticStride) : stride, value);
      staticStride.reset();
    }
    llvm::append_range(args, llvm::reverse(strides));
  }
  // A kernel with branch probes takes its counters after its buffers.
  auto module = func->getParentOfType<ModuleOp>();
  if (auto counters = module.lookupSymbol<LLVM::GlobalOp>(
          (mlir::orchestra::attr::kBranchCountersGlobalPrefix +
           func.getSymName())
              .str())) {
    Value slot =
        LLVM::GEPOp::create(builder, loc, ptrType, ptrType, buffersArg,
                            ArrayRef<LLVM::GEPArg>{int32_t(buffers.size())});
    Value pointer = LLVM::LoadOp::create(builder, loc, ptrType, slot);
    Value address = LLVM::AddressOfOp::create(builder, loc, counters);
    LLVM::StoreOp::create(builder, loc, pointer, address);
  }
  LLVM::CallOp::create(builder, loc, func, args);
  LLVM::ReturnOp::create(builder, loc, ValueRange());
  func.setLinkage(LLVM::Linkage::Internal);
  func->removeAttr(mlir::orchestra::attr::kAbi);
  return success();
}

/// Routes the module's calls to the C library's `callee` (`malloc` or
/// `free`) through slot `slot` of the allocator hooks `hooks`: an internal
/// wrapper calls the hook when the runtime set it and `callee` otherwise.
static void routeThroughHook(ModuleOp module, LLVM::GlobalOp hooks,
                             StringRef callee, int32_t slot) {
  auto libc = module.lookupSymbol<LLVM::LLVMFuncOp>(callee);
  if (!libc)
    return;
  MLIRContext *ctx = module.getContext();
  Location loc = libc.getLoc();
  auto ptrType = LLVM::LLVMPointerType::get(ctx);
  LLVM::LLVMFunctionType type = libc.getFunctionType();
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto wrapper = LLVM::LLVMFuncOp::create(
      builder, loc, ("__orx_" + callee).str(), type, LLVM::Linkage::Internal);
  SmallVector<LLVM::CallOp> calls;
  module.walk([&](LLVM::CallOp call) {
    if (call.getCallee() == callee)
      calls.push_back(call);
  });
  for (LLVM::CallOp call : calls)
    call.setCallee(wrapper.getSymName());

  Block *entry = wrapper.addEntryBlock(builder);
  Block *viaLibc = builder.createBlock(&wrapper.getBody());
  Block *viaHook = builder.createBlock(&wrapper.getBody());
  builder.setInsertionPointToStart(entry);
  Value base = LLVM::AddressOfOp::create(builder, loc, hooks);
  Value slotPtr =
      LLVM::GEPOp::create(builder, loc, ptrType, hooks.getGlobalType(), base,
                          ArrayRef<LLVM::GEPArg>{0, slot});
  Value hook = LLVM::LoadOp::create(builder, loc, ptrType, slotPtr);
  Value null = LLVM::ZeroOp::create(builder, loc, ptrType);
  Value unset =
      LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::eq, hook, null);
  LLVM::CondBrOp::create(builder, loc, unset, viaLibc, viaHook);

  builder.setInsertionPointToStart(viaLibc);
  auto direct = LLVM::CallOp::create(builder, loc, libc, entry->getArguments());
  LLVM::ReturnOp::create(builder, loc, direct.getResults());

  builder.setInsertionPointToStart(viaHook);
  SmallVector<Value> operands{hook};
  llvm::append_range(operands, entry->getArguments());
  auto indirect = LLVM::CallOp::create(builder, loc, type, operands);
  LLVM::ReturnOp::create(builder, loc, indirect.getResults());
}

/// Adds the allocator hooks (kKernelAllocatorSymbol, null-initialised) and
/// routes `malloc` and `free` through them, if the module allocates.
static void routeAllocations(ModuleOp module) {
  if (!module.lookupSymbol<LLVM::LLVMFuncOp>("malloc") &&
      !module.lookupSymbol<LLVM::LLVMFuncOp>("free"))
    return;
  MLIRContext *ctx = module.getContext();
  Location loc = module.getLoc();
  auto hooksType = LLVM::LLVMArrayType::get(LLVM::LLVMPointerType::get(ctx), 2);
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto hooks = LLVM::GlobalOp::create(
      builder, loc, hooksType, /*isConstant=*/false, LLVM::Linkage::External,
      orchestra::cpu::kKernelAllocatorSymbol, Attribute());
  builder.createBlock(&hooks.getInitializerRegion());
  LLVM::ReturnOp::create(builder, loc,
                         LLVM::ZeroOp::create(builder, loc, hooksType));
  routeThroughHook(module, hooks, "malloc", 0);
  routeThroughHook(module, hooks, "free", 1);
}

void CPUKernelABIPass::runOnOperation() {
  SmallVector<std::pair<LLVM::LLVMFuncOp, ArrayAttr>> kernels;
  for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>())
    if (auto abi = func->getAttrOfType<ArrayAttr>(mlir::orchestra::attr::kAbi))
      kernels.push_back({func, abi});
  for (auto [func, abi] : kernels)
    if (failed(wrap(func, abi)))
      return signalPassFailure();
  routeAllocations(getOperation());
}
