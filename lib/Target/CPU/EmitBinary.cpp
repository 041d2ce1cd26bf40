//===- EmitBinary.cpp - Native shared objects for CPU kernel modules ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/CPU/AttrNames.h"
#include "orchestra/Target/CPU/Passes.h"

#include "orchestra/Target/CPU/CPUDescription.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"

namespace mlir::orchestra::cpu {
#define GEN_PASS_DEF_CPUEMITBINARY
#include "orchestra/Target/CPU/Passes.h.inc"
} // namespace mlir::orchestra::cpu

using namespace mlir;

#ifndef ORCHESTRA_LLD_PATH
#define ORCHESTRA_LLD_PATH "ld.lld"
#endif
#ifndef ORCHESTRA_OPENMP_LIB_DIR
#define ORCHESTRA_OPENMP_LIB_DIR ""
#endif
#ifndef ORCHESTRA_BUILTINS_LIB
#define ORCHESTRA_BUILTINS_LIB ""
#endif

namespace {

/// ISA extensions whose absence makes code fault (SIGILL); the runtime
/// checks these against the running CPU before loading a binary.
constexpr llvm::StringLiteral kCheckedFeatures[] = {
    "sse3",       "ssse3",      "sse4.1",   "sse4.2",     "popcnt",
    "avx",        "avx2",       "fma",      "f16c",       "bmi",
    "bmi2",       "lzcnt",      "movbe",    "avx512f",    "avx512cd",
    "avx512bw",   "avx512dq",   "avx512vl", "avx512vbmi", "avx512vnni",
    "avx512bf16", "avx512fp16", "avxvnni",  "amx-tile",   "amx-bf16",
    "amx-int8"};

/// Removes the files of a compilation when it ends.
struct TempFiles {
  SmallVector<std::string> paths;
  ~TempFiles() {
    for (const std::string &path : paths)
      llvm::sys::fs::remove(path);
  }
};

/// Splits `module` into at most `parts` modules, as bitcode, for code
/// generation in parallel; deterministically, so that the binary does not
/// depend on the run. Functions that reference each other (a kernel, its
/// wrapper, its OpenMP outlined bodies) stay in one part, so nothing that
/// could be inlined is lost; the groups go to the least loaded part, largest
/// first, by instruction count. Each part declares what the others define.
/// Constants of local linkage are copied into every part that uses them;
/// other globals are defined in the first part, hidden when they were local.
SmallVector<SmallString<0>> splitForCodegen(llvm::Module &module,
                                            unsigned parts) {
  llvm::EquivalenceClasses<const llvm::Function *> groups;
  SmallVector<llvm::Function *> definitions;
  for (llvm::Function &function : module)
    if (!function.isDeclaration()) {
      groups.insert(&function);
      definitions.push_back(&function);
    }
  for (llvm::Function *function : definitions)
    for (llvm::Instruction &inst : llvm::instructions(*function))
      for (llvm::Value *operand : inst.operands())
        if (auto *callee =
                dyn_cast<llvm::Function>(operand->stripPointerCasts()))
          if (!callee->isDeclaration())
            groups.unionSets(function, callee);

  // The groups in module order, with their sizes.
  llvm::DenseMap<const llvm::Function *, unsigned> groupIndex;
  SmallVector<std::pair<size_t, unsigned>> sizes; // (instructions, group)
  for (llvm::Function *function : definitions) {
    const llvm::Function *leader = groups.getLeaderValue(function);
    auto [it, inserted] = groupIndex.try_emplace(leader, sizes.size());
    if (inserted)
      sizes.push_back({0, it->second});
    sizes[it->second].first += function->getInstructionCount();
  }
  llvm::sort(sizes, [](const auto &a, const auto &b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  SmallVector<unsigned> partOfGroup(sizes.size());
  SmallVector<size_t> load(parts, 0);
  for (auto [size, group] : sizes) {
    unsigned lightest =
        std::min_element(load.begin(), load.end()) - load.begin();
    partOfGroup[group] = lightest;
    load[lightest] += size;
  }

  // Globals shared between parts, other than copied constants, must be
  // visible to the linker.
  for (llvm::GlobalVariable &global : module.globals())
    if (global.hasLocalLinkage() && !global.isConstant()) {
      global.setLinkage(llvm::GlobalValue::ExternalLinkage);
      global.setVisibility(llvm::GlobalValue::HiddenVisibility);
      if (!global.hasName())
        global.setName("__orchestra_split_global");
    }

  SmallVector<SmallString<0>> bitcodes;
  for (unsigned part = 0; part < parts; ++part) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> clone =
        llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
          if (auto *function = dyn_cast<llvm::Function>(value))
            return partOfGroup[groupIndex.lookup(
                       groups.getLeaderValue(function))] == part;
          auto *global = dyn_cast<llvm::GlobalVariable>(value);
          if (global && global->hasLocalLinkage() && global->isConstant())
            return true;
          return part == 0;
        });
    llvm::raw_svector_ostream os(bitcodes.emplace_back());
    llvm::WriteBitcodeToFile(*clone, os);
  }
  return bitcodes;
}

class CPUEmitBinaryPass
    : public orchestra::cpu::impl::CPUEmitBinaryBase<CPUEmitBinaryPass> {
public:
  using CPUEmitBinaryBase::CPUEmitBinaryBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    CPUEmitBinaryBase::getDependentDialects(registry);
    registry.insert<omp::OpenMPDialect>();
    registerBuiltinDialectTranslation(registry);
    registerLLVMDialectTranslation(registry);
    registerOpenMPDialectTranslation(registry);
  }

  void runOnOperation() override;

private:
  FailureOr<std::unique_ptr<llvm::TargetMachine>>
  createTargetMachine(ModuleOp module,
                      const orchestra::cpu::CPUDescription &description);
};

} // namespace

FailureOr<std::unique_ptr<llvm::TargetMachine>>
CPUEmitBinaryPass::createTargetMachine(
    ModuleOp module, const orchestra::cpu::CPUDescription &description) {
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  const llvm::Target &llvmTarget = description.getLLVMTarget();
  if (!llvmTarget.hasTargetMachine()) {
    module.emitError() << "no code generator for " << triple.str();
    return failure();
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget.createTargetMachine(
      triple, description.getCPU(), description.getFeatures(), options,
      llvm::Reloc::PIC_, std::nullopt,
      optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
      : optLevel == 0 ? llvm::CodeGenOptLevel::None
                      : llvm::CodeGenOptLevel::Default));
  if (!machine) {
    module.emitError() << "cannot create a code generator for CPU '"
                       << description.getCPU() << "'";
    return failure();
  }
  return machine;
}

void CPUEmitBinaryPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  if (optLevel > 3) {
    module.emitError() << "opt-level must be 0-3, got " << optLevel;
    return signalPassFailure();
  }

  // Kernels the binary exports: the wrappers of the runtime ABI.
  SmallVector<Attribute> kernels;
  for (auto func : module.getOps<LLVM::LLVMFuncOp>())
    if (func.getSymName().starts_with(orchestra::cpu::kKernelSymbolPrefix))
      kernels.push_back(StringAttr::get(
          ctx, func.getSymName().drop_front(
                   orchestra::cpu::kKernelSymbolPrefix.size())));

  std::string error;
  FailureOr<orchestra::cpu::CPUDescription> description =
      orchestra::cpu::CPUDescription::get(
          module->getAttrOfType<DictionaryAttr>(mlir::orchestra::attr::kTarget),
          cpu, features, error);
  if (failed(description)) {
    module.emitError() << error;
    return signalPassFailure();
  }
  std::string cpuName = description->getCPU().str();
  std::string featureString = description->getFeatures().str();
  FailureOr<std::unique_ptr<llvm::TargetMachine>> machine =
      createTargetMachine(module, *description);
  if (failed(machine))
    return signalPassFailure();

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = translateModuleToLLVMIR(
      module, llvmContext, module.getSymName().value_or("kernels"));
  if (!llvmModule) {
    module.emitError() << "cannot translate the kernel module to LLVM IR";
    return signalPassFailure();
  }
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  llvmModule->setDataLayout((*machine)->createDataLayout());
  for (llvm::Function &function : *llvmModule)
    if (!function.isDeclaration()) {
      function.addFnAttr("target-cpu", cpuName);
      function.addFnAttr("target-features", featureString);
    }

  // Object files, then a shared object linked with ld.lld.
  TempFiles temps;
  auto makeTemp = [&](StringRef suffix) -> FailureOr<std::string> {
    SmallString<128> path;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "orchestra-kernels", suffix, path)) {
      module.emitError() << "cannot create a temporary file: " << ec.message();
      return failure();
    }
    temps.paths.push_back(path.str().str());
    return path.str().str();
  };

  // LLVM's optimisation and code generation take most of a large model's
  // compile time (ViT-B/32: 9 of 18 s), one kernel after another. With
  // several cores the module is split into as many parts (kernels and the
  // functions they call stay together: splitForCodegen), and each part is
  // optimised and compiled on its own thread, in an LLVM context of its own;
  // the linker joins the object files again.
  unsigned definitions = llvm::count_if(
      *llvmModule, [](llvm::Function &f) { return !f.isDeclaration(); });
  unsigned parts = 1;
  if (ctx->isMultithreadingEnabled())
    parts = std::min(llvm::hardware_concurrency().compute_thread_count(),
                     definitions / 2);
  parts = std::max(parts, 1u);
  SmallVector<SmallString<0>> bitcodes;
  if (parts > 1)
    bitcodes = splitForCodegen(*llvmModule, parts);
  SmallVector<std::unique_ptr<llvm::TargetMachine>> machines;
  SmallVector<std::string> objectPaths;
  machines.push_back(std::move(*machine));
  for (unsigned i = 0; i < parts; ++i) {
    if (i > 0) {
      FailureOr<std::unique_ptr<llvm::TargetMachine>> another =
          createTargetMachine(module, *description);
      if (failed(another))
        return signalPassFailure();
      machines.push_back(std::move(*another));
    }
    FailureOr<std::string> objectPath = makeTemp("o");
    if (failed(objectPath))
      return signalPassFailure();
    objectPaths.push_back(*objectPath);
  }

  // Optimises and compiles `part` into the object file `path`; an empty
  // string on success, else what went wrong.
  auto compilePart = [&](llvm::Module &part, llvm::TargetMachine &target,
                         StringRef path) -> std::string {
    auto optimize =
        makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, &target);
    if (llvm::Error error = optimize(&part))
      return "LLVM optimisation failed: " + llvm::toString(std::move(error));
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
    if (ec)
      return "cannot write " + path.str() + ": " + ec.message();
    llvm::legacy::PassManager codegen;
    if (target.addPassesToEmitFile(codegen, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
      return "the code generator cannot emit object files";
    codegen.run(part);
    return "";
  };
  SmallVector<std::string> errors(parts);
  if (parts == 1) {
    errors[0] = compilePart(*llvmModule, *machines[0], objectPaths[0]);
  } else {
    llvm::DefaultThreadPool pool(llvm::hardware_concurrency(parts));
    for (unsigned i = 0; i < parts; ++i)
      pool.async([&, i] {
        llvm::LLVMContext partContext;
        llvm::Expected<std::unique_ptr<llvm::Module>> part =
            llvm::parseBitcodeFile(
                llvm::MemoryBufferRef(bitcodes[i], "kernels"), partContext);
        if (!part) {
          errors[i] = "cannot read a part of the kernel module: " +
                      llvm::toString(part.takeError());
          return;
        }
        errors[i] = compilePart(**part, *machines[i], objectPaths[i]);
      });
    pool.wait();
  }
  for (const std::string &error : errors)
    if (!error.empty()) {
      module.emitError() << error;
      return signalPassFailure();
    }
  FailureOr<std::string> sharedPath = makeTemp("so");
  if (failed(sharedPath))
    return signalPassFailure();

  std::string lld = !linker.empty() ? std::string(linker) : ORCHESTRA_LLD_PATH;
  llvm::ErrorOr<std::string> lldPath = llvm::sys::findProgramByName(lld);
  if (!lldPath) {
    module.emitError() << "cannot find the linker '" << lld
                       << "' (install lld-22 or pass linker=PATH)";
    return signalPassFailure();
  }
  SmallVector<std::string> argStorage = {*lldPath, "-shared", "--no-undefined",
                                         "-o", *sharedPath};
  llvm::append_range(argStorage, objectPaths);
  StringRef ompDir = ORCHESTRA_OPENMP_LIB_DIR;
  if (!ompDir.empty()) {
    argStorage.push_back(("-L" + ompDir).str());
    argStorage.push_back(("-rpath=" + ompDir).str());
  }
  argStorage.push_back("-L/usr/lib/x86_64-linux-gnu");
  argStorage.push_back("-L/lib/x86_64-linux-gnu");
  for (const char *lib : {"-lomp", "-lm", "-lc"})
    argStorage.push_back(lib);
  // Soft conversions LLVM emits as calls (e.g. __truncdfhf2 for f64 -> f16).
  StringRef builtins = ORCHESTRA_BUILTINS_LIB;
  if (!builtins.empty())
    argStorage.push_back(builtins.str());
  SmallVector<StringRef> args(argStorage.begin(), argStorage.end());
  FailureOr<std::string> logPath = makeTemp("log");
  if (failed(logPath))
    return signalPassFailure();
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(*logPath),
                                          StringRef(*logPath)};
  std::string execError;
  int status = llvm::sys::ExecuteAndWait(*lldPath, args, std::nullopt,
                                         redirects, 0, 0, &execError);
  if (status != 0) {
    std::string log;
    if (auto buffer = llvm::MemoryBuffer::getFile(*logPath))
      log = (*buffer)->getBuffer().trim().str();
    module.emitError() << "linking the kernels failed ("
                       << (execError.empty() ? "exit " + std::to_string(status)
                                             : execError)
                       << "): " << log;
    return signalPassFailure();
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> binary =
      llvm::MemoryBuffer::getFile(*sharedPath, /*IsText=*/false);
  if (!binary) {
    module.emitError() << "cannot read the linked kernels: "
                       << binary.getError().message();
    return signalPassFailure();
  }

  // Features the code may use and the runtime must find on the CPU.
  SmallVector<Attribute> required;
  for (StringRef feature : kCheckedFeatures)
    if (description->hasFeature(feature))
      required.push_back(StringAttr::get(ctx, feature));

  module.getBody()->clear();
  module->setAttr(mlir::orchestra::attr::kBinary,
                  StringAttr::get(ctx, (*binary)->getBuffer()));
  module->setAttr(mlir::orchestra::attr::kBinaryFormat,
                  StringAttr::get(ctx, "elf-shared-object"));
  module->setAttr(mlir::orchestra::attr::kKernels,
                  ArrayAttr::get(ctx, kernels));
  module->setAttr(mlir::orchestra::attr::kRequiredFeatures,
                  ArrayAttr::get(ctx, required));
  module->setAttr(orchestra::cpu::attr::kCpu, StringAttr::get(ctx, cpuName));
}
