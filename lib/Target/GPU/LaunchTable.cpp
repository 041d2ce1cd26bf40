//===- LaunchTable.cpp - The launches of a GPU kernel module --------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/LaunchTable.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/GPU/AttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
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

LogicalResult gpucommon::recordLaunches(
    func::FuncOp func, const llvm::StringMap<uint32_t> &moduleIndex,
    const LaunchTableOptions &options, orx::GpuKernelDesc &kernel) {
  kernel.symbol = (orx::kKernelSymbolPrefix + func.getSymName()).str();
  // What each buffer value of the host function is.
  LaunchValues values;
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
  auto notMapped = [&](Operation *op) {
    InFlightDiagnostic diag = op->emitOpError()
                              << "was not mapped to the GPU: it would run on "
                                 "the host side of GPU kernel @"
                              << func.getSymName();
    diag.attachNote(func.getLoc())
        << "the " << options.backend
        << " strategy must place every op of a task inside a `gpu.launch`";
    return diag;
  };

  for (Operation &op : func.getBody().getOps()) {
    // Constants (what the kernels use was sunk into them) and the end.
    if (op.hasTrait<OpTrait::ConstantLike>() ||
        isa<memref::DeallocOp, func::ReturnOp>(op))
      continue;
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || type.getMemorySpace())
        return notMapped(alloc);
      values[alloc] = {
          orx::GpuArgKind::Scratch, kernel.scratchBytes.size(), 8, {}};
      kernel.scratchBytes.push_back(getByteSize(type));
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
    auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
    if (!launch)
      return notMapped(&op);
    orx::GpuLaunchDesc desc;
    if (failed(recordLaunch(launch, moduleIndex, options, values, desc)))
      return failure();
    kernel.launches.push_back(std::move(desc));
  }
  return success();
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
