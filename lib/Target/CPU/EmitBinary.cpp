//===- EmitBinary.cpp - Native shared objects for CPU kernel modules ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

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
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

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
    "sse3",       "ssse3",    "sse4.1",   "sse4.2",     "popcnt",
    "avx",        "avx2",     "fma",      "f16c",       "bmi",
    "bmi2",       "lzcnt",    "movbe",    "avx512f",    "avx512cd",
    "avx512bw",   "avx512dq", "avx512vl", "avx512vnni", "avx512bf16",
    "avx512fp16", "avxvnni",  "amx-tile", "amx-bf16",   "amx-int8"};

/// Removes the files of a compilation when it ends.
struct TempFiles {
  SmallVector<std::string> paths;
  ~TempFiles() {
    for (const std::string &path : paths)
      llvm::sys::fs::remove(path);
  }
};

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
          module->getAttrOfType<DictionaryAttr>("orchestra.target"), cpu,
          features, error);
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

  auto optimize =
      makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, machine->get());
  if (llvm::Error error = optimize(llvmModule.get())) {
    module.emitError() << "LLVM optimisation failed: "
                       << llvm::toString(std::move(error));
    return signalPassFailure();
  }

  // Object file, then a shared object linked with ld.lld.
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
  FailureOr<std::string> objectPath = makeTemp("o");
  FailureOr<std::string> sharedPath = makeTemp("so");
  if (failed(objectPath) || failed(sharedPath))
    return signalPassFailure();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(*objectPath, ec, llvm::sys::fs::OF_None);
    if (ec) {
      module.emitError() << "cannot write " << *objectPath << ": "
                         << ec.message();
      return signalPassFailure();
    }
    llvm::legacy::PassManager codegen;
    if ((*machine)->addPassesToEmitFile(codegen, os, nullptr,
                                        llvm::CodeGenFileType::ObjectFile)) {
      module.emitError() << "the code generator cannot emit object files";
      return signalPassFailure();
    }
    codegen.run(*llvmModule);
  }

  std::string lld = !linker.empty() ? std::string(linker) : ORCHESTRA_LLD_PATH;
  llvm::ErrorOr<std::string> lldPath = llvm::sys::findProgramByName(lld);
  if (!lldPath) {
    module.emitError() << "cannot find the linker '" << lld
                       << "' (install lld-22 or pass linker=PATH)";
    return signalPassFailure();
  }
  SmallVector<std::string> argStorage = {
      *lldPath, "-shared", "--no-undefined", "-o", *sharedPath, *objectPath};
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
  module->setAttr("orchestra.binary",
                  StringAttr::get(ctx, (*binary)->getBuffer()));
  module->setAttr("orchestra.binary_format",
                  StringAttr::get(ctx, "elf-shared-object"));
  module->setAttr("orchestra.kernels", ArrayAttr::get(ctx, kernels));
  module->setAttr("orchestra.required_features", ArrayAttr::get(ctx, required));
  module->setAttr("orchestra.cpu", StringAttr::get(ctx, cpuName));
}
