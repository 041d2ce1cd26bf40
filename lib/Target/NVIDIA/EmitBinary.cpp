//===- EmitBinary.cpp - PTX, cubins and the launch table of a GPU module --===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/NVIDIA/AttrNames.h"
#include "orchestra/Target/NVIDIA/Passes.h"

#include "orchestra_rt/GpuBundle.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::orchestra::nvidia {
#define GEN_PASS_DEF_NVIDIAEMITBINARY
#include "orchestra/Target/NVIDIA/Passes.h.inc"
} // namespace mlir::orchestra::nvidia

using namespace mlir;

/// The symbol the artifact names a task kernel by (as for CPU kernels).
/// The kinds of the bundle images the runtime's `cuda` driver loads
/// (docs/Artifact.md).
static constexpr const char *kCubinImageKind = "cubin";
static constexpr const char *kPtxImageKind = "ptx";

/// Returns the CUDA toolkit to take `ptxas` from.
static std::string getToolkitPath(StringRef option) {
  if (!option.empty())
    return option.str();
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH", "CUDA_ROOT"})
    if (std::optional<std::string> value = llvm::sys::Process::GetEnv(variable))
      if (!value->empty())
        return *value;
  return "/usr/local/cuda";
}

/// Returns the bytes of `type`'s buffer; `type` has a static shape.
static uint64_t getByteSize(MemRefType type) {
  uint64_t elementBytes = (type.getElementTypeBitWidth() + 7) / 8;
  return elementBytes * static_cast<uint64_t>(type.getNumElements());
}

namespace {
class NVIDIAEmitBinaryPass
    : public orchestra::nvidia::impl::NVIDIAEmitBinaryBase<
          NVIDIAEmitBinaryPass> {
public:
  using NVIDIAEmitBinaryBase::NVIDIAEmitBinaryBase;

  void runOnOperation() override;

private:
  /// Serializes `module` to PTX and (if `ptxas` is available) a cubin.
  FailureOr<orx::GpuArgDesc>
  recordTensorMap(nvgpu::TmaCreateDescriptorOp create,
                  const DenseMap<Value, orx::GpuArgDesc> &buffers);
  LogicalResult serialize(gpu::GPUModuleOp module, StringRef chipName,
                          SymbolTable &symbols, orx::GpuModuleDesc &desc);
  /// Records the launches of the host function `func`.
  LogicalResult recordKernel(func::FuncOp func,
                             const llvm::StringMap<uint32_t> &moduleIndex,
                             orx::GpuKernelDesc &kernel);
  /// Writes the PTX and cubin of `desc` into `dir`.
  LogicalResult dump(StringRef dir, StringRef kernelModule,
                     const orx::GpuModuleDesc &desc);

  bool havePtxas = false;
  std::string toolkit;
};
} // namespace

/// The alignment of a kernel's dynamic shared memory: TMA copies need
/// 128-byte aligned targets, and 1024-byte aligned ones with the 128-byte
/// swizzle (orchestra-nvidia-workgroup-allocations places those tiles at
/// multiples of 1024 bytes).
static constexpr uint64_t kDynamicSharedAlignment = 1024;

LogicalResult NVIDIAEmitBinaryPass::serialize(gpu::GPUModuleOp module,
                                              StringRef chipName,
                                              SymbolTable &symbols,
                                              orx::GpuModuleDesc &desc) {
  MLIRContext *ctx = &getContext();
  // The symbol of a kernel's dynamic shared memory: a zero-sized shared
  // array that the GPU lowering makes internal, which the NVPTX backend then
  // demotes to a one-byte static array of the kernel. External, it is the
  // `.extern .shared` array CUDA kernels address dynamic shared memory by;
  // aligned to 1024 bytes, as swizzled TMA copies need their targets (the
  // tiles in it are at offsets of their own alignment).
  module.walk([](LLVM::GlobalOp global) {
    auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
    if (array && array.getNumElements() == 0 &&
        global.getAddrSpace() ==
            static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared)) {
      global.setLinkage(LLVM::Linkage::External);
      global.setAlignment(std::max<uint64_t>(global.getAlignment().value_or(0),
                                             kDynamicSharedAlignment));
    }
  });
  auto target =
      NVVM::NVVMTargetAttr::get(ctx, static_cast<int>(optLevel),
                                "nvptx64-nvidia-cuda", chipName, features);
  module.setTargetsAttr(ArrayAttr::get(ctx, {target}));
  auto serializer = cast<gpu::TargetAttrInterface>(target);
  auto getSymbols = [&]() -> SymbolTable * { return &symbols; };

  desc.name = module.getName().str();
  gpu::TargetOptions ptxOptions(toolkit, {}, {}, {},
                                gpu::CompilationTarget::Assembly, getSymbols);
  std::optional<SmallVector<char, 0>> ptx =
      serializer.serializeToObject(module, ptxOptions);
  if (!ptx)
    return module.emitError() << "cannot generate PTX for " << chipName;
  // The images in the runtime driver's order of preference: the cubin, then
  // the PTX the driver JIT-compiles when the cubin does not load.
  orx::GpuImageDesc ptxImage{kPtxImageKind, {ptx->begin(), ptx->end()}};
  while (!ptxImage.data.empty() && ptxImage.data.back() == '\0')
    ptxImage.data.pop_back();

  if (!havePtxas) {
    desc.images.push_back(std::move(ptxImage));
    return success();
  }
  gpu::TargetOptions cubinOptions(toolkit, {}, {}, {},
                                  gpu::CompilationTarget::Binary, getSymbols);
  std::optional<SmallVector<char, 0>> cubin =
      serializer.serializeToObject(module, cubinOptions);
  if (!cubin)
    return module.emitError()
           << "ptxas could not assemble the PTX for " << chipName;
  desc.images.push_back({kCubinImageKind, {cubin->begin(), cubin->end()}});
  desc.images.push_back(std::move(ptxImage));
  return success();
}

/// The driver's CUtensorMapDataType of `type`, if TMA can copy it.
static std::optional<uint32_t> getTensorMapDataType(Type type) {
  if (type.isF16())
    return 6;
  if (type.isF32())
    return 7;
  if (type.isF64())
    return 8;
  if (type.isBF16())
    return 9;
  if (type.isInteger(8))
    return 0;
  if (type.isInteger(16))
    return 1;
  if (type.isInteger(32))
    return 3;
  if (type.isInteger(64))
    return 5;
  return std::nullopt;
}

FailureOr<orx::GpuArgDesc> NVIDIAEmitBinaryPass::recordTensorMap(
    nvgpu::TmaCreateDescriptorOp create,
    const DenseMap<Value, orx::GpuArgDesc> &buffers) {
  auto cast = create.getTensor().getDefiningOp<memref::CastOp>();
  auto source =
      cast ? dyn_cast<MemRefType>(cast.getSource().getType()) : MemRefType();
  auto buffer = cast ? buffers.find(cast.getSource()) : buffers.end();
  if (!source || buffer == buffers.end() ||
      buffer->second.kind == orx::GpuArgKind::Immediate ||
      buffer->second.kind == orx::GpuArgKind::TensorMap ||
      !source.hasStaticShape() || !source.getLayout().isIdentity() ||
      source.getRank() < 1 || source.getRank() > 5)
    return create.emitOpError()
           << "describes something other than a whole buffer of the task "
              "with a static shape, an identity layout and 1 to 5 "
              "dimensions";
  std::optional<uint32_t> dataType =
      getTensorMapDataType(source.getElementType());
  if (!dataType)
    return create.emitOpError()
           << "describes elements of type " << source.getElementType()
           << ", which TMA does not copy";
  auto type = create.getTensorMap().getType();
  orx::GpuArgDesc arg;
  arg.kind = orx::GpuArgKind::TensorMap;
  arg.size = 8;
  orx::GpuTensorMapDesc &map = arg.tensorMap;
  map.source = buffer->second.kind;
  map.sourceIndex = static_cast<uint32_t>(buffer->second.value);
  map.dataType = *dataType;
  int64_t rank = source.getRank();
  map.rank = static_cast<uint32_t>(rank);
  int64_t elementBytes = source.getElementTypeBitWidth() / 8;
  // The driver's dimensions are innermost first.
  ArrayRef<int64_t> shape = source.getShape();
  int64_t stride = elementBytes;
  for (int64_t i = 0; i < rank; ++i) {
    map.globalDim[i] = static_cast<uint64_t>(shape[rank - 1 - i]);
    if (i > 0)
      map.globalStrides[i - 1] = static_cast<uint64_t>(stride);
    stride *= shape[rank - 1 - i];
  }
  if (static_cast<int64_t>(create.getBoxDimensions().size()) != rank)
    return create.emitOpError()
           << "has " << create.getBoxDimensions().size()
           << " box dimensions for a rank-" << rank << " buffer";
  for (int64_t i = 0; i < rank; ++i) {
    std::optional<int64_t> box =
        getConstantIntValue(create.getBoxDimensions()[rank - 1 - i]);
    if (!box || *box < 1 || *box > 256)
      return create.emitOpError()
             << "has a box dimension that is not a constant from 1 to 256";
    map.boxDim[i] = static_cast<uint32_t>(*box);
  }
  map.interleave = static_cast<uint32_t>(type.getInterleave());
  map.swizzle = static_cast<uint32_t>(type.getSwizzle());
  map.l2Promotion = static_cast<uint32_t>(type.getL2promo());
  map.oobFill = static_cast<uint32_t>(type.getOob());
  return arg;
}

LogicalResult
NVIDIAEmitBinaryPass::recordKernel(func::FuncOp func,
                                   const llvm::StringMap<uint32_t> &moduleIndex,
                                   orx::GpuKernelDesc &kernel) {
  kernel.symbol = (orx::kKernelSymbolPrefix + func.getSymName()).str();
  // What each buffer value of the host function is.
  DenseMap<Value, orx::GpuArgDesc> buffers;
  for (BlockArgument arg : func.getArguments()) {
    if (!isa<MemRefType>(arg.getType()))
      return func.emitError()
             << "GPU kernel @" << func.getSymName() << " has operand #"
             << arg.getArgNumber() << " of type " << arg.getType()
             << "; kernels take buffers only";
    buffers[arg] = {orx::GpuArgKind::Buffer, arg.getArgNumber(), 8, {}};
  }
  auto notMapped = [&](Operation *op) {
    InFlightDiagnostic diag = op->emitOpError()
                              << "was not mapped to the GPU: it would run on "
                                 "the host side of GPU kernel @"
                              << func.getSymName();
    diag.attachNote(func.getLoc())
        << "the nvidia strategy must place every op of a task inside a "
           "`gpu.launch`";
    return diag;
  };

  for (Operation &op : func.getBody().getOps()) {
    if (isa<arith::ConstantOp, memref::DeallocOp, func::ReturnOp>(op))
      continue;
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || type.getMemorySpace())
        return notMapped(alloc);
      buffers[alloc] = {
          orx::GpuArgKind::Scratch, kernel.scratchBytes.size(), 8, {}};
      kernel.scratchBytes.push_back(getByteSize(type));
      continue;
    }
    // TMA descriptors: the runtime encodes them for their buffer.
    if (auto create = dyn_cast<nvgpu::TmaCreateDescriptorOp>(op)) {
      FailureOr<orx::GpuArgDesc> map = recordTensorMap(create, buffers);
      if (failed(map))
        return failure();
      buffers[create.getTensorMap()] = *map;
      continue;
    }
    if (auto cast = dyn_cast<UnrealizedConversionCastOp>(op)) {
      auto map = cast->getNumOperands() == 1 && cast->getNumResults() == 1
                     ? buffers.find(cast.getOperand(0))
                     : buffers.end();
      if (map == buffers.end() ||
          map->second.kind != orx::GpuArgKind::TensorMap)
        return notMapped(cast);
      buffers[cast.getResult(0)] = map->second;
      continue;
    }
    // Views that keep the base address: the kernel gets the base buffer.
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp, memref::CastOp>(
            op)) {
      auto source = buffers.find(op.getOperand(0));
      if (source == buffers.end())
        return notMapped(&op);
      buffers[op.getResult(0)] = source->second;
      continue;
    }
    auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
    if (!launch)
      return notMapped(&op);
    if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() ||
        launch.hasClusterSize())
      return launch.emitOpError()
             << "is asynchronous or uses clusters; the GPU runtime orders "
                "the launches of a kernel itself";
    orx::GpuLaunchDesc desc;
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
      (i < 3 ? desc.grid[i] : desc.block[i - 3]) =
          static_cast<uint32_t>(*value);
    }
    if (Value shared = launch.getDynamicSharedMemorySize()) {
      std::optional<int64_t> value = getConstantIntValue(shared);
      if (!value || *value < 0 || *value > UINT32_MAX)
        return launch.emitOpError()
               << "has a dynamic shared memory size that is not a constant";
      desc.dynamicSharedBytes = static_cast<uint32_t>(*value);
    }
    // The shared-memory tiles orchestra-nvidia-workgroup-allocations placed
    // in dynamic shared memory, and the module's static shared memory (its
    // address-space-3 globals: mbarriers, small tiles).
    uint64_t staticSharedBytes = 0;
    if (auto kernelModule =
            SymbolTable::lookupNearestSymbolFrom<gpu::GPUModuleOp>(
                launch, launch.getKernelModuleName())) {
      if (auto sizes = kernelModule->getAttrOfType<DictionaryAttr>(
              orchestra::nvidia::attr::kDynamicSharedMemory))
        if (auto bytes = sizes.getAs<IntegerAttr>(launch.getKernelName()))
          desc.dynamicSharedBytes =
              std::max<uint32_t>(desc.dynamicSharedBytes, bytes.getInt());
      DataLayout layout = DataLayout::closest(kernelModule);
      kernelModule.walk([&](LLVM::GlobalOp global) {
        if (global.getAddrSpace() == 3)
          staticSharedBytes += layout.getTypeSize(global.getGlobalType());
      });
    }
    // A block cannot have more shared memory than the SM gives one (the
    // target's shared_memory_bytes, else Hopper's and Blackwell's 227 KB):
    // say so now rather than when the launch fails.
    int64_t sharedLimit = 227 * 1024;
    if (auto target =
            func->getParentOfType<ModuleOp>()->getAttrOfType<DictionaryAttr>(
                mlir::orchestra::attr::kTarget))
      if (auto bytes = target.getAs<IntegerAttr>("shared_memory_bytes"))
        sharedLimit = bytes.getInt();
    if (desc.dynamicSharedBytes + staticSharedBytes >
        static_cast<uint64_t>(sharedLimit)) {
      InFlightDiagnostic diag = launch.emitOpError()
                                << "needs " << desc.dynamicSharedBytes
                                << " bytes of dynamic shared memory";
      if (staticSharedBytes)
        diag << " and " << staticSharedBytes << " of static";
      return diag << ", more than the " << sharedLimit
                  << " a thread block has on this target";
    }
    for (Value operand : launch.getKernelOperands()) {
      auto map = buffers.find(operand);
      if (map != buffers.end() &&
          map->second.kind == orx::GpuArgKind::TensorMap) {
        desc.args.push_back(map->second);
        continue;
      }
      if (isa<MemRefType>(operand.getType())) {
        auto buffer = buffers.find(operand);
        if (buffer == buffers.end())
          return launch.emitOpError()
                 << "passes a buffer that is not an operand, result or "
                    "scratch buffer of the task";
        desc.args.push_back(buffer->second);
        continue;
      }
      Attribute constant;
      if (!matchPattern(operand, m_Constant(&constant)))
        return launch.emitOpError()
               << "passes a non-constant scalar of type " << operand.getType();
      orx::GpuArgDesc arg;
      arg.kind = orx::GpuArgKind::Immediate;
      if (auto integer = dyn_cast<IntegerAttr>(constant)) {
        unsigned width = integer.getType().isIndex()
                             ? 64
                             : integer.getType().getIntOrFloatBitWidth();
        arg.value = integer.getValue().getZExtValue();
        arg.size = width <= 32 ? 4 : 8;
        if (width != 32 && width != 64)
          return launch.emitOpError()
                 << "passes an immediate of type " << integer.getType()
                 << "; only 32- and 64-bit scalars are supported";
      } else if (auto real = dyn_cast<FloatAttr>(constant)) {
        unsigned width = real.getType().getIntOrFloatBitWidth();
        if (width != 32 && width != 64)
          return launch.emitOpError()
                 << "passes an immediate of type " << real.getType()
                 << "; only 32- and 64-bit scalars are supported";
        arg.value = real.getValue().bitcastToAPInt().getZExtValue();
        arg.size = width / 8;
      } else {
        return launch.emitOpError()
               << "passes an unsupported constant " << constant;
      }
      desc.args.push_back(arg);
    }
    kernel.launches.push_back(std::move(desc));
  }
  return success();
}

LogicalResult NVIDIAEmitBinaryPass::dump(StringRef dir, StringRef kernelModule,
                                         const orx::GpuModuleDesc &desc) {
  if (std::error_code error = llvm::sys::fs::create_directories(dir))
    return getOperation().emitError()
           << "cannot create '" << dir << "': " << error.message();
  auto write = [&](StringRef extension, StringRef bytes) -> LogicalResult {
    SmallString<256> path(dir);
    llvm::sys::path::append(path, kernelModule + "." + desc.name + extension);
    std::error_code error;
    llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
    if (error)
      return getOperation().emitError()
             << "cannot write '" << path << "': " << error.message();
    os << bytes;
    return success();
  };
  // One file per image, named by its kind (.cubin, .ptx).
  for (const orx::GpuImageDesc &image : desc.images)
    if (failed(write("." + image.kind, StringRef(reinterpret_cast<const char *>(
                                                     image.data.data()),
                                                 image.data.size()))))
      return failure();
  return success();
}

void NVIDIAEmitBinaryPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  if (optLevel > 3) {
    module.emitError() << "opt-level must be 0-3, got " << optLevel;
    return signalPassFailure();
  }
  std::string chipName = chip;
  if (auto target =
          module->getAttrOfType<DictionaryAttr>(mlir::orchestra::attr::kTarget))
    if (auto sm = target.getAs<StringAttr>("sm"))
      chipName = sm.str();

  toolkit = getToolkitPath(cudaPath);
  SmallString<256> ptxas(toolkit);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  havePtxas = llvm::sys::fs::can_execute(ptxas);
  if (!havePtxas)
    module.emitWarning()
        << "ptxas not found at '" << ptxas
        << "' (set CUDA_HOME): the kernels are stored as PTX only and the "
           "CUDA driver compiles them when the artifact is loaded";

  orx::GpuBundle bundle;
  bundle.chip = chipName;
  SymbolTable symbols(module);
  llvm::StringMap<uint32_t> moduleIndex;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    orx::GpuModuleDesc desc;
    if (failed(serialize(gpuModule, chipName, symbols, desc)))
      return signalPassFailure();
    moduleIndex[gpuModule.getName()] = bundle.modules.size();
    bundle.modules.push_back(std::move(desc));
  }

  SmallVector<Attribute> kernels;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isDeclaration())
      continue;
    orx::GpuKernelDesc kernel;
    if (failed(recordKernel(func, moduleIndex, kernel)))
      return signalPassFailure();
    kernels.push_back(StringAttr::get(ctx, func.getSymName()));
    bundle.kernels.push_back(std::move(kernel));
  }

  if (auto dir = module->getAttrOfType<StringAttr>(
          mlir::orchestra::attr::kDeviceCodeDir))
    for (const orx::GpuModuleDesc &desc : bundle.modules)
      if (failed(dump(dir.getValue(), module.getSymName().value_or("kernels"),
                      desc)))
        return signalPassFailure();

  std::vector<uint8_t> bytes = orx::serializeGpuBundle(bundle);
  module.getBody()->clear();
  module->removeAttr("gpu.container_module");
  module->setAttr(mlir::orchestra::attr::kBinary,
                  StringAttr::get(ctx, StringRef(reinterpret_cast<const char *>(
                                                     bytes.data()),
                                                 bytes.size())));
  module->setAttr(mlir::orchestra::attr::kBinaryFormat,
                  StringAttr::get(ctx, orx::kGpuBundleFormat));
  module->setAttr(mlir::orchestra::attr::kKernels,
                  ArrayAttr::get(ctx, kernels));
  module->setAttr(mlir::orchestra::attr::kRequiredFeatures,
                  ArrayAttr::get(ctx, {StringAttr::get(ctx, chipName)}));
}
