//===- EmitBinary.cpp - HSACO code objects and the launch table -----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Support/ExternalTools.h"
#include "orchestra/Target/AMD/Passes.h"
#include "orchestra/Target/GPU/LaunchTable.h"

#include "orchestra_rt/GpuBundle.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Target/LLVM/ROCDL/Utils.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

namespace mlir::orchestra::amd {
#define GEN_PASS_DEF_AMDEMITBINARY
#include "orchestra/Target/AMD/Passes.h.inc"
} // namespace mlir::orchestra::amd

using namespace mlir;
using namespace mlir::orchestra;

/// The image kind of an AMD code object in the GPU bundle (loaded by the
/// runtime's `hip` driver, docs/Artifact.md).
static constexpr const char *kHsacoImageKind = "hsaco";
/// The LDS of one workgroup on CDNA3 when the target does not say.
static constexpr int64_t kDefaultLdsBytes = 64 * 1024;
/// CDNA3 runs waves of 64 lanes only.
static constexpr int64_t kWavefrontSize = 64;

/// The code object metadata the bundle records per kernel (the keys of
/// `amdhsa.kernels`, without their leading dot).
static constexpr StringLiteral kResourceKeys[] = {
    "vgpr_count",
    "agpr_count",
    "sgpr_count",
    "vgpr_spill_count",
    "sgpr_spill_count",
    "group_segment_fixed_size",
    "private_segment_fixed_size",
    "wavefront_size",
};

/// The folder of the device libraries: $ORCHESTRA_ROCM_DEVICE_LIBS alone when
/// set, else the first of $ROCM_PATH's, Debian's and /opt/rocm's that holds
/// ocml.bc.
static std::optional<std::string> findDeviceLibraries() {
  SmallVector<std::string> candidates;
  if (std::optional<std::string> dir =
          llvm::sys::Process::GetEnv("ORCHESTRA_ROCM_DEVICE_LIBS")) {
    candidates.push_back(*dir);
  } else {
    if (std::optional<std::string> rocm =
            llvm::sys::Process::GetEnv("ROCM_PATH"))
      if (!rocm->empty())
        candidates.push_back(*rocm + "/amdgcn/bitcode");
    // Debian's rocm-device-libs, in the multiarch library folder.
    candidates.push_back("/usr/lib/" ORCHESTRA_LIBRARY_ARCHITECTURE
                         "/amdgcn/bitcode");
    candidates.push_back("/opt/rocm/amdgcn/bitcode");
  }
  for (const std::string &dir : candidates) {
    SmallString<256> ocml(dir);
    llvm::sys::path::append(ocml, "ocml.bc");
    if (llvm::sys::fs::exists(ocml))
      return dir;
  }
  return std::nullopt;
}

/// Whether `module` calls a function of the device libraries.
static bool callsDeviceLibraries(gpu::GPUModuleOp module) {
  bool calls = false;
  module.walk([&](LLVM::LLVMFuncOp func) {
    StringRef name = func.getName();
    if (func.isExternal() &&
        (name.starts_with("__ocml_") || name.starts_with("__ockl_")))
      calls = true;
  });
  return calls;
}

/// The count `key` of a kernel's code object metadata; none when the code
/// object leaves it out (upstream's reader gives 2^32 - 1 then).
static std::optional<uint64_t> readMetadataCount(const NamedAttrList &kernel,
                                                 StringRef key) {
  auto value = dyn_cast_or_null<IntegerAttr>(kernel.get(key));
  if (!value || value.getValue().isNegative() ||
      value.getValue().getZExtValue() >= std::numeric_limits<uint32_t>::max())
    return std::nullopt;
  return value.getValue().getZExtValue();
}

/// The size of the arguments of kernel `name` (`.kernarg_segment_size` of
/// the code object's AMDHSA metadata note, which upstream's metadata reader
/// leaves out), or none when `hsaco` does not say.
static std::optional<uint64_t> readKernargBytes(ArrayRef<char> hsaco,
                                                StringRef name) {
  auto file = llvm::object::ELF64LEObjectFile::create(llvm::MemoryBufferRef(
      StringRef(hsaco.data(), hsaco.size()), "code object"));
  if (!file) {
    llvm::consumeError(file.takeError());
    return std::nullopt;
  }
  const llvm::object::ELF64LEFile &elf = file->getELFFile();
  auto sections = elf.sections();
  if (!sections) {
    llvm::consumeError(sections.takeError());
    return std::nullopt;
  }
  std::optional<uint64_t> bytes;
  for (const auto &section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE)
      continue;
    llvm::Error error = llvm::Error::success();
    for (const auto &note : elf.notes(section, error)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != llvm::ELF::NT_AMDGPU_METADATA)
        continue;
      llvm::msgpack::Document document;
      if (!document.readFromBlob(note.getDescAsStringRef(section.sh_addralign),
                                 false))
        continue;
      llvm::msgpack::DocNode &root = document.getRoot();
      if (!root.isMap())
        continue;
      llvm::msgpack::DocNode &kernels = root.getMap()["amdhsa.kernels"];
      if (!kernels.isArray())
        continue;
      for (llvm::msgpack::DocNode &kernel : kernels.getArray()) {
        if (!kernel.isMap())
          continue;
        llvm::msgpack::MapDocNode map = kernel.getMap();
        llvm::msgpack::DocNode &kernelName = map[".name"];
        llvm::msgpack::DocNode &size = map[".kernarg_segment_size"];
        if (kernelName.isString() && kernelName.getString() == name &&
            size.getKind() == llvm::msgpack::Type::UInt)
          bytes = size.getUInt();
      }
    }
    llvm::consumeError(std::move(error));
  }
  return bytes;
}

/// Assembles the GCN assembly `source` of device module `module` for `chip`
/// with LLVM's `llvm-mc` (its own, else $ORCHESTRA_LLVM_MC or PATH's) into
/// an object file. The assembler's messages name the source
/// `<module>.s:line:col`.
static FailureOr<std::vector<uint8_t>>
assembleWithLlvmMc(gpu::GPUModuleOp module, StringRef source, StringRef chip,
                   function_ref<InFlightDiagnostic()> emitError) {
  std::string error;
  std::optional<std::string> llvmMc;
  if (!llvm::sys::Process::GetEnv("ORCHESTRA_LLVM_MC")) {
    SmallString<256> candidate(ORCHESTRA_LLVM_TOOLS_DIR);
    llvm::sys::path::append(candidate, "llvm-mc");
    if (llvm::sys::fs::can_execute(candidate))
      llvmMc = std::string(candidate);
  }
  if (!llvmMc)
    llvmMc = findTool("llvm-mc", "", "ORCHESTRA_LLVM_MC", error);
  if (!llvmMc)
    return emitError() << (error.empty()
                               ? "llvm-mc not found (install llvm-22-tools, or "
                                 "set ORCHESTRA_LLVM_MC): GCN assembly kernels "
                                 "are assembled with it"
                               : error);
  std::string mcpu = ("-mcpu=" + chip).str();
  std::string printed;
  FailureOr<std::vector<uint8_t>> object = runToolOnSource(
      module,
      {*llvmMc, "-triple=amdgcn-amd-amdhsa", mcpu, "-filetype=obj", "-o",
       "{out}", "{in}"},
      (module.getName() + ".s").str(), source, "kernel.o", printed);
  if (failed(object))
    return emitError() << "llvm-mc refused it for " << chip << ":\n" << printed;
  return *object;
}

namespace {
class AMDEmitBinaryPass
    : public orchestra::amd::impl::AMDEmitBinaryBase<AMDEmitBinaryPass> {
public:
  using AMDEmitBinaryBase::AMDEmitBinaryBase;

  void runOnOperation() override;

private:
  /// Makes the ROCm folder upstream's serializer reads ld.lld and the
  /// device libraries from (`rocmDir`); `needLibraries`: some module calls
  /// them.
  LogicalResult prepareToolkit(bool needLibraries);
  /// Compiles `module` into a code object and records it in `desc`.
  LogicalResult serialize(gpu::GPUModuleOp module, StringRef chipName,
                          int64_t ldsBytes, SymbolTable &symbols,
                          orx::GpuModuleDesc &desc);
  /// Assembles and links the GCN assembly of the device module of a task's
  /// `asm_kernel` (orchestra-gpu-lower-asm-kernels) and records it in
  /// `desc`.
  LogicalResult assemble(gpu::GPUModuleOp module, StringRef chipName,
                         int64_t ldsBytes, orx::GpuModuleDesc &desc);
  /// Records the resource usage of kernel `name` of `hsaco` in `desc`;
  /// errors (on `at`) when the kernel is not in the code object or needs
  /// more than `ldsBytes` of LDS.
  /// `metadata`, when given, gets all of the kernel's metadata.
  LogicalResult recordResources(Operation *at, StringRef name,
                                ArrayRef<char> hsaco, int64_t ldsBytes,
                                orx::GpuModuleDesc &desc,
                                NamedAttrList *metadata = nullptr);

  std::string rocmDir;
  /// The temporary folder of prepareToolkit, removed at the end.
  SmallString<128> tempDir;
};
} // namespace

LogicalResult AMDEmitBinaryPass::prepareToolkit(bool needLibraries) {
  ModuleOp module = getOperation();
  if (!rocmPath.empty()) {
    rocmDir = rocmPath;
    return success();
  }
  // LLVM's own ld.lld first: an older one on PATH (Debian's `lld` is
  // version 14) refuses the code objects of this LLVM.
  std::string error;
  std::optional<std::string> lld;
  if (ldLld.empty() && !llvm::sys::Process::GetEnv("ORCHESTRA_LD_LLD")) {
    SmallString<256> candidate(ORCHESTRA_LLVM_TOOLS_DIR);
    llvm::sys::path::append(candidate, "ld.lld");
    if (llvm::sys::fs::can_execute(candidate))
      lld = std::string(candidate);
  }
  if (!lld)
    lld = findTool("ld.lld", ldLld, "ORCHESTRA_LD_LLD", error);
  if (!lld)
    return module.emitError()
           << (error.empty() ? "ld.lld not found (install lld, or set "
                               "ORCHESTRA_LD_LLD): AMD code objects are "
                               "linked with it"
                             : error);
  std::optional<std::string> libraries = findDeviceLibraries();
  if (!libraries && needLibraries)
    return module.emitError()
           << "the kernels call math functions of the ROCm device libraries, "
              "and no ocml.bc was found (install rocm-device-libs, or set "
              "ROCM_PATH to a ROCm installation or ORCHESTRA_ROCM_DEVICE_LIBS "
              "to the folder of its bitcode)";

  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("orchestra-rocm", tempDir))
    return module.emitError()
           << "cannot create a temporary folder: " << ec.message();
  rocmDir = std::string(tempDir);
  SmallString<256> bin(tempDir);
  llvm::sys::path::append(bin, "llvm", "bin");
  SmallString<256> lldLink(bin);
  llvm::sys::path::append(lldLink, "ld.lld");
  std::error_code ec = llvm::sys::fs::create_directories(bin);
  if (!ec)
    ec = llvm::sys::fs::create_link(*lld, lldLink);
  if (!ec && libraries) {
    SmallString<256> amdgcn(tempDir);
    llvm::sys::path::append(amdgcn, "amdgcn");
    SmallString<256> bitcode(amdgcn);
    llvm::sys::path::append(bitcode, "bitcode");
    ec = llvm::sys::fs::create_directories(amdgcn);
    if (!ec)
      ec = llvm::sys::fs::create_link(*libraries, bitcode);
  }
  if (ec)
    return module.emitError() << "cannot prepare the ROCm folder '" << tempDir
                              << "': " << ec.message();
  return success();
}

LogicalResult AMDEmitBinaryPass::serialize(gpu::GPUModuleOp module,
                                           StringRef chipName, int64_t ldsBytes,
                                           SymbolTable &symbols,
                                           orx::GpuModuleDesc &desc) {
  MLIRContext *ctx = &getContext();
  auto target = ROCDL::ROCDLTargetAttr::get(ctx, static_cast<int>(optLevel),
                                            "amdgcn-amd-amdhsa", chipName);
  module.setTargetsAttr(ArrayAttr::get(ctx, {target}));
  auto serializer = cast<gpu::TargetAttrInterface>(target);
  auto getSymbols = [&]() -> SymbolTable * { return &symbols; };
  desc.name = module.getName().str();

  // The assembly, and the module as LLVM's AMDGPU backend gets it (which
  // orchestra-amdgpu-emulate runs on the CPU), for --dump-device-code.
  ModuleOp parent = getOperation();
  auto dir = parent->getAttrOfType<StringAttr>(attr::kDeviceCodeDir);
  if (dir) {
    std::string rocdl;
    llvm::raw_string_ostream os(rocdl);
    module->print(os);
    if (failed(gpucommon::dumpDeviceFile(
            parent, dir.getValue(), parent.getSymName().value_or("kernels"),
            desc.name, ".rocdl.mlir", rocdl)))
      return failure();
    gpu::TargetOptions isaOptions(rocmDir, {}, {}, {},
                                  gpu::CompilationTarget::Assembly, getSymbols);
    std::optional<SmallVector<char, 0>> isa =
        serializer.serializeToObject(module, isaOptions);
    if (!isa)
      return module.emitError()
             << "cannot generate the assembly for " << chipName;
    StringRef text(isa->data(), isa->size());
    if (failed(gpucommon::dumpDeviceFile(
            parent, dir.getValue(), parent.getSymName().value_or("kernels"),
            desc.name, ".s", text.rtrim('\0'))))
      return failure();
  }

  gpu::TargetOptions binaryOptions(rocmDir, {}, {}, {},
                                   gpu::CompilationTarget::Binary, getSymbols);
  std::optional<SmallVector<char, 0>> hsaco =
      serializer.serializeToObject(module, binaryOptions);
  if (!hsaco)
    return module.emitError()
           << "cannot compile the code object for " << chipName;
  desc.images.push_back({kHsacoImageKind, {hsaco->begin(), hsaco->end()}});

  // Each kernel's resource usage, from the code object's metadata.
  for (auto func : module.getOps<LLVM::LLVMFuncOp>())
    if (func->hasAttr(ROCDL::ROCDLDialect::getKernelFuncAttrName()) &&
        failed(recordResources(func, func.getName(), *hsaco, ldsBytes, desc)))
      return failure();
  return success();
}

LogicalResult AMDEmitBinaryPass::recordResources(Operation *at, StringRef name,
                                                 ArrayRef<char> hsaco,
                                                 int64_t ldsBytes,
                                                 orx::GpuModuleDesc &desc,
                                                 NamedAttrList *metadataOut) {
  Builder builder(&getContext());
  std::optional<DenseMap<StringAttr, NamedAttrList>> metadata =
      ROCDL::getAMDHSAKernelsELFMetadata(builder, hsaco);
  if (!metadata)
    return at->emitError() << "the code object of kernel '" << name
                           << "' has no readable AMDHSA kernel metadata";
  auto entry = metadata->find(builder.getStringAttr(name));
  if (entry == metadata->end())
    return at->emitError() << "kernel '" << name
                           << "' is missing from its code object's metadata";
  if (metadataOut)
    *metadataOut = entry->second;
  orx::GpuFunctionDesc function;
  function.name = name.str();
  std::map<StringRef, uint64_t> values;
  for (StringLiteral key : kResourceKeys) {
    std::optional<uint64_t> value = readMetadataCount(entry->second, key);
    if (!value)
      continue;
    values[key] = *value;
    function.resources.emplace_back(key.str(), values[key]);
  }
  if (values["group_segment_fixed_size"] > static_cast<uint64_t>(ldsBytes))
    return at->emitError() << "kernel '" << name << "' needs "
                           << values["group_segment_fixed_size"]
                           << " bytes of LDS, more than the " << ldsBytes
                           << " a workgroup has on this target (target key "
                              "`lds_size`)";
  if (values["private_segment_fixed_size"] > 0 ||
      values["vgpr_spill_count"] > 0 || values["sgpr_spill_count"] > 0)
    at->emitWarning() << "kernel '" << name << "' uses "
                      << values["private_segment_fixed_size"]
                      << " bytes of scratch memory per lane ("
                      << values["vgpr_spill_count"] << " VGPR and "
                      << values["sgpr_spill_count"]
                      << " SGPR spills): private arrays or registers "
                         "that did not fit";
  desc.functions.push_back(std::move(function));
  return success();
}

LogicalResult AMDEmitBinaryPass::assemble(gpu::GPUModuleOp module,
                                          StringRef chipName, int64_t ldsBytes,
                                          orx::GpuModuleDesc &desc) {
  desc.name = module.getName().str();
  auto dict = module->getAttrOfType<DictionaryAttr>(attr::kAsmKernel);
  auto emitError = [&] {
    return module.emitError() << "the GCN assembly kernel of device module '"
                              << desc.name << "': ";
  };
  FailureOr<AsmKernel> kernel = parseAsmKernel(dict, emitError);
  if (failed(kernel))
    return failure();
  ModuleOp parent = getOperation();
  if (auto dir = parent->getAttrOfType<StringAttr>(attr::kDeviceCodeDir))
    if (failed(gpucommon::dumpDeviceFile(
            parent, dir.getValue(), parent.getSymName().value_or("kernels"),
            desc.name, ".s", kernel->source)))
      return failure();
  FailureOr<std::vector<uint8_t>> object =
      assembleWithLlvmMc(module, kernel->source, chipName, emitError);
  if (failed(object))
    return failure();
  FailureOr<SmallVector<char, 0>> hsaco = ROCDL::linkObjectCode(
      ArrayRef<char>(reinterpret_cast<const char *>(object->data()),
                     object->size()),
      rocmDir, emitError);
  if (failed(hsaco))
    return failure();
  desc.images.push_back({kHsacoImageKind, {hsaco->begin(), hsaco->end()}});
  NamedAttrList metadata;
  if (failed(recordResources(module, kernel->entry, *hsaco, ldsBytes, desc,
                             &metadata)))
    return failure();

  // What the launch needs of the kernel: as many threads per workgroup as
  // the task's block, and arguments for one 64-bit pointer per buffer (the
  // declaration's parameters, lowered with bare pointers).
  int64_t threads = kernel->block[0] * kernel->block[1] * kernel->block[2];
  if (std::optional<uint64_t> most =
          readMetadataCount(metadata, "max_flat_workgroup_size");
      most && *most < static_cast<uint64_t>(threads))
    return emitError() << "kernel '" << kernel->entry << "' runs at most "
                       << *most
                       << " threads per workgroup (max_flat_workgroup_size), "
                          "but the task's block has "
                       << threads;
  auto declaration = module.lookupSymbol<LLVM::LLVMFuncOp>(kernel->entry);
  uint64_t needed = 8 * (declaration ? declaration.getNumArguments() : 0);
  if (std::optional<uint64_t> kernargBytes =
          readKernargBytes(*hsaco, kernel->entry);
      kernargBytes && *kernargBytes < needed)
    return emitError() << "kernel '" << kernel->entry << "' takes "
                       << *kernargBytes
                       << " bytes of arguments (kernarg_segment_size), but "
                          "the task passes "
                       << needed / 8 << " pointers (" << needed << " bytes)";
  return success();
}

void AMDEmitBinaryPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  if (optLevel > 3) {
    module.emitError() << "opt-level must be 0-3, got " << optLevel;
    return signalPassFailure();
  }
  std::string chipName = chip;
  int64_t ldsBytes = kDefaultLdsBytes;
  if (auto target = module->getAttrOfType<DictionaryAttr>(attr::kTarget)) {
    if (auto value = target.getAs<StringAttr>("chip"))
      chipName = value.str();
    if (auto value = target.getAs<IntegerAttr>("lds_size"))
      ldsBytes = value.getInt();
    if (auto value = target.getAs<IntegerAttr>("wavefront_size");
        value && value.getInt() != kWavefrontSize) {
      module.emitError() << "wavefront_size = " << value.getInt()
                         << " is not supported: " << chipName
                         << " (CDNA3) runs waves of " << kWavefrontSize
                         << " lanes only";
      return signalPassFailure();
    }
  }

  bool needLibraries =
      llvm::any_of(module.getOps<gpu::GPUModuleOp>(), callsDeviceLibraries);
  llvm::scope_exit removeTemp([&] {
    if (!tempDir.empty())
      (void)llvm::sys::fs::remove_directories(tempDir);
  });
  if (failed(prepareToolkit(needLibraries)))
    return signalPassFailure();

  orx::GpuBundle bundle;
  bundle.chip = chipName;
  SymbolTable symbols(module);
  llvm::StringMap<uint32_t> moduleIndex;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    orx::GpuModuleDesc desc;
    if (failed(gpuModule->hasAttr(attr::kAsmKernel)
                   ? assemble(gpuModule, chipName, ldsBytes, desc)
                   : serialize(gpuModule, chipName, ldsBytes, symbols, desc)))
      return signalPassFailure();
    moduleIndex[gpuModule.getName()] = bundle.modules.size();
    bundle.modules.push_back(std::move(desc));
  }

  gpucommon::LaunchTableOptions options;
  options.backend = "amd";
  options.sharedLimit = ldsBytes;
  options.sharedLimitKey = "lds_size";
  SmallVector<Attribute> kernels;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isDeclaration())
      continue;
    orx::GpuKernelDesc kernel;
    if (failed(gpucommon::recordLaunches(func, moduleIndex, options, kernel)))
      return signalPassFailure();
    kernels.push_back(StringAttr::get(ctx, func.getSymName()));
    bundle.kernels.push_back(std::move(kernel));
  }
  if (failed(gpucommon::storeGpuBundle(module, bundle, kernels)))
    return signalPassFailure();
}
