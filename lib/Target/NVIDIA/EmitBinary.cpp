//===- EmitBinary.cpp - PTX, cubins and the launch table of a GPU module --===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Support/ExternalTools.h"
#include "orchestra/Target/GPU/LaunchTable.h"
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
using namespace mlir::orchestra;

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
  /// Checks the PTX of the device module of a task's `asm_kernel`
  /// (orchestra-gpu-lower-asm-kernels) with ptxas and records it, with the
  /// cubin, in `desc`.
  LogicalResult assemble(gpu::GPUModuleOp module, StringRef chipName,
                         orx::GpuModuleDesc &desc);
  /// Records the launches of the host function `func`.
  LogicalResult recordKernel(func::FuncOp func,
                             const llvm::StringMap<uint32_t> &moduleIndex,
                             orx::GpuKernelDesc &kernel);

  bool havePtxas = false;
  std::string toolkit;
};
} // namespace

/// The alignment of a kernel's dynamic shared memory: TMA copies need
/// 128-byte aligned targets, and 1024-byte aligned ones with the 128-byte
/// swizzle (orchestra-gpu-workgroup-allocations places those tiles at
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

/// The parameters of `.entry <entry>` in `ptx`: the text of each
/// declaration between the entry's parentheses, or none when there is no
/// such entry.
static std::optional<SmallVector<StringRef>>
findEntryParameters(StringRef ptx, StringRef entry) {
  for (size_t at = ptx.find(".entry"); at != StringRef::npos;
       at = ptx.find(".entry", at + 1)) {
    StringRef rest = ptx.substr(at + strlen(".entry")).ltrim();
    if (!rest.consume_front(entry))
      continue;
    rest = rest.ltrim();
    SmallVector<StringRef> params;
    if (!rest.consume_front("("))
      return params;
    StringRef list = rest.take_until([](char c) { return c == ')'; });
    SmallVector<StringRef> pieces;
    list.split(pieces, ',', -1, /*KeepEmpty=*/false);
    for (StringRef piece : pieces)
      if (!piece.trim().empty())
        params.push_back(piece.trim());
    return params;
  }
  return std::nullopt;
}

LogicalResult NVIDIAEmitBinaryPass::assemble(gpu::GPUModuleOp module,
                                             StringRef chipName,
                                             orx::GpuModuleDesc &desc) {
  desc.name = module.getName().str();
  auto dict = module->getAttrOfType<DictionaryAttr>(attr::kAsmKernel);
  auto emitError = [&] {
    return module.emitError() << "the PTX assembly kernel of device module '"
                              << desc.name << "': ";
  };
  FailureOr<AsmKernel> kernel = parseAsmKernel(dict, emitError);
  if (failed(kernel))
    return failure();
  // The launch passes one 64-bit pointer per buffer (the declaration's
  // parameters).
  auto declaration = module.lookupSymbol<LLVM::LLVMFuncOp>(kernel->entry);
  size_t buffers = declaration ? declaration.getNumArguments() : 0;
  std::optional<SmallVector<StringRef>> params =
      findEntryParameters(kernel->source, kernel->entry);
  if (!params)
    return emitError() << "the PTX has no '.entry " << kernel->entry << "'";
  if (params->size() != buffers)
    return emitError() << "'.entry " << kernel->entry << "' takes "
                       << params->size() << " parameter(s), but the task "
                       << "passes " << buffers << " pointer(s)";
  for (auto [i, param] : llvm::enumerate(*params))
    if (!param.contains(".u64") && !param.contains(".b64") &&
        !param.contains(".s64"))
      return emitError() << "parameter " << i << " of '.entry " << kernel->entry
                         << "' is '" << param
                         << "'; the task passes a 64-bit pointer (.u64)";
  if (!havePtxas)
    return emitError() << "ptxas is needed to check it (set CUDA_HOME to a "
                          "CUDA toolkit)";

  SmallString<256> ptxas(toolkit);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  std::string arch = ("-arch=" + chipName).str();
  std::string printed;
  FailureOr<std::vector<uint8_t>> cubin =
      runToolOnSource(module, {ptxas, arch, "-o", "{out}", "{in}"},
                      (module.getName() + ".ptx").str(), kernel->source,
                      "kernel.cubin", printed);
  if (failed(cubin))
    return emitError() << "ptxas refused it for " << chipName << ":\n"
                       << printed;
  desc.images.push_back({kCubinImageKind, std::move(*cubin)});
  desc.images.push_back(
      {kPtxImageKind, {kernel->source.begin(), kernel->source.end()}});
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
  gpucommon::LaunchTableOptions options;
  options.backend = "nvidia";
  // A block cannot have more shared memory than the SM gives one (the
  // target's shared_memory_bytes, else Hopper's and Blackwell's 227 KB).
  options.sharedLimit = 227 * 1024;
  options.sharedLimitKey = "shared_memory_bytes";
  if (auto target =
          func->getParentOfType<ModuleOp>()->getAttrOfType<DictionaryAttr>(
              mlir::orchestra::attr::kTarget))
    if (auto bytes = target.getAs<IntegerAttr>("shared_memory_bytes"))
      options.sharedLimit = bytes.getInt();
  // TMA descriptors: the runtime encodes them for their buffer.
  options.recordOther =
      [&](Operation &op, gpucommon::LaunchValues &values) -> FailureOr<bool> {
    if (auto create = dyn_cast<nvgpu::TmaCreateDescriptorOp>(op)) {
      FailureOr<orx::GpuArgDesc> map = recordTensorMap(create, values);
      if (failed(map))
        return failure();
      values[create.getTensorMap()] = *map;
      return true;
    }
    auto cast = dyn_cast<UnrealizedConversionCastOp>(op);
    if (!cast)
      return false;
    auto map = cast->getNumOperands() == 1 && cast->getNumResults() == 1
                   ? values.find(cast.getOperand(0))
                   : values.end();
    if (map == values.end() || map->second.kind != orx::GpuArgKind::TensorMap)
      return false;
    values[cast.getResult(0)] = map->second;
    return true;
  };
  return gpucommon::recordLaunches(func, moduleIndex, options, kernel);
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
    if (failed(gpuModule->hasAttr(attr::kAsmKernel)
                   ? assemble(gpuModule, chipName, desc)
                   : serialize(gpuModule, chipName, symbols, desc)))
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

  if (failed(gpucommon::storeGpuBundle(module, bundle, kernels)))
    return signalPassFailure();
}
