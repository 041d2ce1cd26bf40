//===- LaunchTable.cpp - The launches of a GPU kernel module --------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/LaunchTable.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/GPU/AttrNames.h"
#include "orchestra/Target/GPU/Mappable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::orchestra;

/// Returns the bytes of `type`'s buffer; `type` has a static shape.
static uint64_t getByteSize(MemRefType type) {
  uint64_t elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
  return elementBytes * static_cast<uint64_t>(type.getNumElements());
}

/// The workgroup address space of the GPU dialect's LLVM lowerings.
static constexpr unsigned kWorkgroupAddressSpace = 3;

/// Records the launch `launch` (of the kernel `kernelSymbol`) into `desc`.
static LogicalResult recordLaunch(gpu::LaunchFuncOp launch,
                                  const llvm::StringMap<uint32_t> &moduleIndex,
                                  const gpucommon::LaunchTableOptions &options,
                                  const gpucommon::LaunchValues &values,
                                  orx::GpuLaunchDesc &desc) {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() ||
      launch.hasClusterSize())
    return launch.emitOpError()
           << "is asynchronous or uses clusters; the GPU runtime orders "
              "the launches of a kernel itself";
  auto module = moduleIndex.find(launch.getKernelModuleName().getValue());
  if (module == moduleIndex.end())
    return launch.emitOpError() << "launches a kernel of an unknown module";
  desc.module = module->second;
  desc.function = launch.getKernelName().str();
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  Value dims[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
  for (int i = 0; i < 6; ++i) {
    std::optional<int64_t> value = getConstantIntValue(dims[i]);
    if (!value || *value <= 0 || *value > UINT32_MAX)
      return launch.emitOpError()
             << "has a grid or block size that is not a positive constant";
    (i < 3 ? desc.grid[i] : desc.block[i - 3]) = static_cast<uint32_t>(*value);
  }
  if (Value shared = launch.getDynamicSharedMemorySize()) {
    std::optional<int64_t> value = getConstantIntValue(shared);
    if (!value || *value < 0 || *value > UINT32_MAX)
      return launch.emitOpError()
             << "has a dynamic shared memory size that is not a constant";
    desc.dynamicSharedBytes = static_cast<uint32_t>(*value);
  }
  // The shared-memory tiles orchestra-gpu-workgroup-allocations placed in
  // dynamic shared memory, and the module's static shared memory (its
  // workgroup globals: barriers, small tiles).
  uint64_t staticSharedBytes = 0;
  if (auto kernelModule =
          SymbolTable::lookupNearestSymbolFrom<gpu::GPUModuleOp>(
              launch, launch.getKernelModuleName())) {
    if (auto sizes = kernelModule->getAttrOfType<DictionaryAttr>(
            gpucommon::attr::kDynamicSharedMemory))
      if (auto bytes = sizes.getAs<IntegerAttr>(launch.getKernelName()))
        desc.dynamicSharedBytes =
            std::max<uint32_t>(desc.dynamicSharedBytes, bytes.getInt());
    DataLayout layout = DataLayout::closest(kernelModule);
    kernelModule.walk([&](LLVM::GlobalOp global) {
      if (global.getAddrSpace() == kWorkgroupAddressSpace)
        staticSharedBytes += layout.getTypeSize(global.getGlobalType());
    });
  }
  // A block cannot have more shared memory than the target gives one: say
  // so now rather than when the launch fails.
  if (options.sharedLimit > 0 &&
      desc.dynamicSharedBytes + staticSharedBytes >
          static_cast<uint64_t>(options.sharedLimit)) {
    InFlightDiagnostic diag = launch.emitOpError()
                              << "needs " << desc.dynamicSharedBytes
                              << " bytes of dynamic shared memory";
    if (staticSharedBytes)
      diag << " and " << staticSharedBytes << " of static";
    diag << ", more than the " << options.sharedLimit
         << " a thread block has on this target";
    if (!options.sharedLimitKey.empty())
      diag << " (target key `" << options.sharedLimitKey << "`)";
    return diag;
  }
  for (Value operand : launch.getKernelOperands()) {
    auto known = values.find(operand);
    if (known != values.end()) {
      desc.args.push_back(known->second);
      continue;
    }
    if (isa<MemRefType>(operand.getType()))
      return launch.emitOpError()
             << "passes a buffer that is not an operand, result or "
                "scratch buffer of the task";
    Attribute constant;
    if (!matchPattern(operand, m_Constant(&constant)))
      return launch.emitOpError()
             << "passes a non-constant scalar of type " << operand.getType();
    orx::GpuArgDesc arg;
    arg.kind = orx::GpuArgKind::Immediate;
    unsigned width = 0;
    if (auto integer = dyn_cast<IntegerAttr>(constant)) {
      width = integer.getType().isIndex()
                  ? 64
                  : integer.getType().getIntOrFloatBitWidth();
      arg.value = integer.getValue().getZExtValue();
    } else if (auto real = dyn_cast<FloatAttr>(constant)) {
      width = real.getType().getIntOrFloatBitWidth();
      arg.value = real.getValue().bitcastToAPInt().getZExtValue();
    } else {
      return launch.emitOpError()
             << "passes an unsupported constant " << constant;
    }
    if (width != 32 && width != 64)
      return launch.emitOpError()
             << "passes an immediate of type " << operand.getType()
             << "; only 32- and 64-bit scalars are supported";
    arg.size = width / 8;
    desc.args.push_back(arg);
  }
  return success();
}

namespace {
/// Records the host side of a kernel function: the launches, and where the
/// function has loops, the program that runs them (design/0019).
class LaunchRecorder {
public:
  LaunchRecorder(func::FuncOp func,
                 const llvm::StringMap<uint32_t> &moduleIndex,
                 const gpucommon::LaunchTableOptions &options,
                 orx::GpuKernelDesc &kernel)
      : func(func), moduleIndex(moduleIndex), options(options), kernel(kernel) {
  }

  LogicalResult record();

private:
  LogicalResult recordBlock(Block &block, Operation *loop);
  LogicalResult recordWhile(scf::WhileOp loop);
  LogicalResult recordFor(scf::ForOp loop);
  InFlightDiagnostic notMapped(Operation *op);
  /// What `value` is as a program argument: (GpuArgKind, index).
  FailureOr<std::pair<uint64_t, uint64_t>> getSource(Operation *user,
                                                     Value value);
  void emit(orx::GpuOp op, uint64_t a = 0, uint64_t b = 0, uint64_t c = 0) {
    kernel.program.push_back({op, a, b, c});
  }
  /// Emits `reg` = `value` (of `user`).
  LogicalResult set(Operation *user, uint64_t reg, Value value);
  /// Emits `reg` = `value`, a value `loop` carries into its next
  /// iteration (or region): refused when it is a buffer from outside the
  /// loop, which an iteration may write while the next one reads it.
  LogicalResult carry(Operation *loop, Operation *user, uint64_t reg,
                      Value value);
  uint64_t newRegister() { return kernel.registers++; }
  uint64_t newScratch(MemRefType type) {
    kernel.scratchBytes.push_back(getByteSize(type));
    return kernel.scratchBytes.size() - 1;
  }
  void setRegister(Value value, uint64_t reg) {
    values[value] = {orx::GpuArgKind::Register, reg, 8, {}};
  }

  func::FuncOp func;
  const llvm::StringMap<uint32_t> &moduleIndex;
  const gpucommon::LaunchTableOptions &options;
  orx::GpuKernelDesc &kernel;
  /// What each buffer value of the host function is.
  gpucommon::LaunchValues values;
  bool hasLoops = false;
};
} // namespace

InFlightDiagnostic LaunchRecorder::notMapped(Operation *op) {
  InFlightDiagnostic diag = op->emitOpError()
                            << "was not mapped to the GPU: it would run on "
                               "the host side of GPU kernel @"
                            << func.getSymName();
  diag.attachNote(func.getLoc())
      << "the " << options.backend
      << " strategy must place every op of a task inside a `gpu.launch`";
  return diag;
}

FailureOr<std::pair<uint64_t, uint64_t>>
LaunchRecorder::getSource(Operation *user, Value value) {
  auto known = values.find(value);
  if (known == values.end() ||
      (known->second.kind != orx::GpuArgKind::Buffer &&
       known->second.kind != orx::GpuArgKind::Scratch &&
       known->second.kind != orx::GpuArgKind::Register))
    return user->emitOpError()
           << "carries a value that is not a buffer, a scratch buffer or a "
              "loop's value of GPU kernel @"
           << func.getSymName();
  return std::make_pair(static_cast<uint64_t>(known->second.kind),
                        known->second.value);
}

LogicalResult LaunchRecorder::set(Operation *user, uint64_t reg, Value value) {
  FailureOr<std::pair<uint64_t, uint64_t>> source = getSource(user, value);
  if (failed(source))
    return failure();
  emit(orx::GpuOp::Set, reg, source->first, source->second);
  return success();
}

LogicalResult LaunchRecorder::carry(Operation *loop, Operation *user,
                                    uint64_t reg, Value value) {
  Region *defined = value.getParentRegion();
  if (!loop->isAncestor(defined->getParentOp()))
    return user->emitOpError()
           << "carries a buffer from outside the loop into the next "
              "iteration; a GPU runs only loops whose iterations compute "
              "their values into buffers of their own";
  return set(user, reg, value);
}

LogicalResult LaunchRecorder::recordWhile(scf::WhileOp loop) {
  if (!gpucommon::keepsCarriedPositions(loop))
    return loop.emitOpError()
           << "carries a value into another position of the next iteration; "
              "a GPU runs only loops that keep each value in place";
  SmallVector<uint64_t> before, after;
  for (auto [arg, init] :
       llvm::zip(loop.getBeforeArguments(), loop.getInits())) {
    before.push_back(newRegister());
    if (failed(set(loop, before.back(), init)))
      return failure();
    setRegister(arg, before.back());
  }
  emit(orx::GpuOp::LoopBegin, 0, 1);
  if (failed(recordBlock(*loop.getBeforeBody(), loop)))
    return failure();
  // The condition's arguments are the after region's (and at the exit the
  // loop's results), then the host reads the condition.
  scf::ConditionOp condition = loop.getConditionOp();
  for (auto [arg, value] :
       llvm::zip(loop.getAfterArguments(), condition.getArgs())) {
    after.push_back(newRegister());
    if (failed(carry(loop, condition, after.back(), value)))
      return failure();
    setRegister(arg, after.back());
  }
  auto load = condition.getCondition().getDefiningOp<memref::LoadOp>();
  if (!load || load.getMemRefType().getNumElements() != 1 ||
      !llvm::all_of(load.getIndices(),
                    [](Value index) { return isConstantIntValue(index, 0); }) ||
      !load->getResult(0).hasOneUse())
    return condition.emitOpError()
           << "has a condition that is not the element of a one-element buffer "
              "(orchestra-gpu-scalars-to-linalg computes it so)";
  FailureOr<std::pair<uint64_t, uint64_t>> source =
      getSource(load, load.getMemRef());
  if (failed(source))
    return failure();
  emit(orx::GpuOp::ExitUnless, 0, source->first, source->second);
  if (failed(recordBlock(*loop.getAfterBody(), loop)))
    return failure();
  for (auto [reg, value] : llvm::zip(before, loop.getYieldOp().getOperands()))
    if (failed(carry(loop, loop.getYieldOp(), reg, value)))
      return failure();
  emit(orx::GpuOp::LoopEnd);
  for (auto [result, reg] : llvm::zip(loop.getResults(), after))
    setRegister(result, reg);
  return success();
}

LogicalResult LaunchRecorder::recordFor(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips || !loop.getInductionVar().use_empty())
    return loop.emitOpError()
           << "has no constant trip count or reads its induction variable; "
              "a GPU does not run such loops yet";
  if (!gpucommon::keepsCarriedPositions(loop))
    return loop.emitOpError()
           << "carries a value into another position of the next iteration; "
              "a GPU runs only loops that keep each value in place";
  SmallVector<uint64_t> carried;
  for (auto [arg, init] :
       llvm::zip(loop.getRegionIterArgs(), loop.getInits())) {
    carried.push_back(newRegister());
    if (failed(set(loop, carried.back(), init)))
      return failure();
    setRegister(arg, carried.back());
  }
  emit(orx::GpuOp::LoopBegin, trips->getZExtValue(), 0);
  if (failed(recordBlock(*loop.getBody(), loop)))
    return failure();
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  for (auto [reg, value, arg] :
       llvm::zip(carried, yield.getOperands(), loop.getRegionIterArgs()))
    if (value != arg && failed(carry(loop, yield, reg, value)))
      return failure();
  emit(orx::GpuOp::LoopEnd);
  for (auto [result, reg] : llvm::zip(loop.getResults(), carried))
    setRegister(result, reg);
  return success();
}

LogicalResult LaunchRecorder::recordBlock(Block &block, Operation *loop) {
  for (Operation &op : block) {
    // Constants (what the kernels use was sunk into them), the end, and the
    // loops' terminators (recordWhile and recordFor read them).
    if (op.hasTrait<OpTrait::ConstantLike>() ||
        isa<memref::DeallocOp, func::ReturnOp>(op) ||
        (loop && isa<scf::YieldOp, scf::ConditionOp>(op)))
      continue;
    // A loop's condition, read by the host (recordWhile).
    if (auto load = dyn_cast<memref::LoadOp>(op);
        load && loop && load->hasOneUse() &&
        isa<scf::ConditionOp>(*load->user_begin()))
      continue;
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || type.getMemorySpace())
        return notMapped(alloc);
      if (!loop) {
        values[alloc] = {orx::GpuArgKind::Scratch, newScratch(type), 8, {}};
        continue;
      }
      // A buffer of each iteration: two, used in turn.
      uint64_t reg = newRegister();
      uint64_t even = newScratch(type);
      uint64_t odd = newScratch(type);
      emit(orx::GpuOp::SetAlternating, reg, even, odd);
      setRegister(alloc, reg);
      continue;
    }
    if (options.recordOther) {
      FailureOr<bool> recorded = options.recordOther(op, values);
      if (failed(recorded))
        return failure();
      if (*recorded)
        continue;
    }
    // Views that keep the base address: the kernel gets the base buffer.
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
            op)) {
      auto source = values.find(op.getOperand(0));
      if (source == values.end())
        return notMapped(&op);
      values[op.getResult(0)] = source->second;
      continue;
    }
    if (isa<scf::WhileOp, scf::ForOp>(op)) {
      if (loop)
        return op.emitOpError()
               << "is nested in a loop; a GPU runs loops that do not nest";
      hasLoops = true;
      if (failed(isa<scf::WhileOp>(op) ? recordWhile(cast<scf::WhileOp>(op))
                                       : recordFor(cast<scf::ForOp>(op))))
        return failure();
      continue;
    }
    auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
    if (!launch)
      return notMapped(&op);
    orx::GpuLaunchDesc desc;
    if (failed(recordLaunch(launch, moduleIndex, options, values, desc)))
      return failure();
    if (llvm::any_of(desc.args, [](const orx::GpuArgDesc &arg) {
          return arg.kind == orx::GpuArgKind::TensorMap &&
                 arg.tensorMap.source == orx::GpuArgKind::Register;
        }))
      return launch.emitOpError()
             << "copies a loop's value with the tensor memory accelerator, "
                "whose descriptors the runtime encodes once per buffer; not "
                "supported inside loops";
    emit(orx::GpuOp::Launch, kernel.launches.size());
    kernel.launches.push_back(std::move(desc));
  }
  return success();
}

LogicalResult LaunchRecorder::record() {
  kernel.symbol = (orx::kKernelSymbolPrefix + func.getSymName()).str();
  for (BlockArgument arg : func.getArguments()) {
    if (!isa<MemRefType>(arg.getType()))
      return func.emitError()
             << "GPU kernel @" << func.getSymName() << " has operand #"
             << arg.getArgNumber() << " of type " << arg.getType()
             << "; kernels take buffers only";
    // The counters orchestra-gpu-branch-counters added come after the
    // values; the runtime passes the kernel's counters on the device.
    bool counters = static_cast<bool>(
        func.getArgAttr(arg.getArgNumber(), gpucommon::attr::kBranchCounters));
    values[arg] = {counters ? orx::GpuArgKind::ProfileCounters
                            : orx::GpuArgKind::Buffer,
                   counters ? 0 : arg.getArgNumber(),
                   8,
                   {}};
  }
  if (failed(recordBlock(func.getBody().front(), nullptr)))
    return failure();
  // Without loops the launches run in order: no program.
  if (!hasLoops) {
    kernel.program.clear();
    kernel.registers = 0;
  }
  return success();
}

LogicalResult gpucommon::recordLaunches(
    func::FuncOp func, const llvm::StringMap<uint32_t> &moduleIndex,
    const LaunchTableOptions &options, orx::GpuKernelDesc &kernel) {
  return LaunchRecorder(func, moduleIndex, options, kernel).record();
}

LogicalResult gpucommon::dumpDeviceFile(Operation *op, StringRef dir,
                                        StringRef kernelModule,
                                        StringRef deviceModule,
                                        StringRef extension, StringRef bytes) {
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return op->emitError() << "cannot create '" << dir
                           << "': " << error.message();
  SmallString<256> path(dir);
  llvm::sys::path::append(path, kernelModule + "." + deviceModule + extension);
  if (llvm::Error error = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << bytes;
        return llvm::Error::success();
      }))
    return op->emitError() << "cannot write '" << path
                           << "': " << llvm::toString(std::move(error));
  return success();
}

LogicalResult gpucommon::storeGpuBundle(ModuleOp module,
                                        const orx::GpuBundle &bundle,
                                        ArrayRef<Attribute> kernels) {
  MLIRContext *ctx = module.getContext();
  if (auto dir =
          module->getAttrOfType<StringAttr>(orchestra::attr::kDeviceCodeDir))
    for (const orx::GpuModuleDesc &desc : bundle.modules)
      for (const orx::GpuImageDesc &image : desc.images)
        if (failed(dumpDeviceFile(
                module, dir.getValue(), module.getSymName().value_or("kernels"),
                desc.name, "." + image.kind,
                StringRef(reinterpret_cast<const char *>(image.data.data()),
                          image.data.size()))))
          return failure();

  std::vector<uint8_t> bytes = orx::serializeGpuBundle(bundle);
  module.getBody()->clear();
  module->removeAttr("gpu.container_module");
  module->setAttr(orchestra::attr::kBinary,
                  StringAttr::get(ctx, StringRef(reinterpret_cast<const char *>(
                                                     bytes.data()),
                                                 bytes.size())));
  module->setAttr(orchestra::attr::kBinaryFormat,
                  StringAttr::get(ctx, orx::kGpuBundleFormat));
  module->setAttr(orchestra::attr::kKernels, ArrayAttr::get(ctx, kernels));
  module->setAttr(orchestra::attr::kRequiredFeatures,
                  ArrayAttr::get(ctx, {StringAttr::get(ctx, bundle.chip)}));
  return success();
}
