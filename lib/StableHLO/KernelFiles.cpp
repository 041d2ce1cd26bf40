//===- KernelFiles.cpp - Kernels' StableHLO text as files -----------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/StableHLO/KernelFiles.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Support/ExternalTools.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlir::orchestra;
using namespace mlir::orchestra::stablehlo;

static constexpr StringLiteral kTextSuffix = ".stablehlo.mlir";

FailureOr<std::string> stablehlo::getDeviceCodeDir(ModuleOp kernels) {
  auto root = kernels->getAttrOfType<StringAttr>(attr::kDeviceCodeDir);
  if (!root)
    return std::string();
  SmallString<256> path(root.getValue());
  llvm::sys::path::append(path, kernels.getSymName().value_or("kernels"));
  if (std::error_code ec = llvm::sys::fs::create_directories(path))
    return kernels.emitError()
           << "cannot create '" << path << "': " << ec.message();
  return path.str().str();
}

FailureOr<std::unique_ptr<KernelFiles>>
KernelFiles::create(ArrayRef<func::FuncOp> funcs, StringRef prefix) {
  std::unique_ptr<KernelFiles> files(new KernelFiles(funcs));
  if (funcs.empty())
    return files;
  if (llvm::sys::fs::createUniqueDirectory(prefix, files->dir))
    return funcs.front()->getParentOp()->emitError()
           << "cannot create a temporary directory";
  for (func::FuncOp func : funcs) {
    auto text = func->getAttrOfType<StringAttr>(attr::kStableHLO);
    if (!text)
      return func.emitError() << "has no StableHLO module (run "
                                 "orchestra-lower-to-stablehlo first)";
    if (failed(writeFile(func, files->getPath(func, kTextSuffix),
                         text.getValue())))
      return failure();
  }
  return files;
}

KernelFiles::~KernelFiles() {
  if (!dir.empty())
    llvm::sys::fs::remove_directories(dir);
}

std::string KernelFiles::getPath(func::FuncOp func, StringRef suffix) const {
  SmallString<128> path(dir);
  llvm::sys::path::append(path, func.getSymName() + suffix);
  return path.str().str();
}

std::vector<std::string> KernelFiles::getArguments(StringRef suffix) const {
  std::vector<std::string> arguments;
  for (func::FuncOp func : funcs)
    arguments.push_back(getPath(func, kTextSuffix) + "=" +
                        getPath(func, suffix));
  return arguments;
}
