//===- KernelFiles.h - Kernels' StableHLO text as files ---------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The tools that compile StableHLO kernels (orchestra-stablehlo-bridge,
// orchestra-pjrt-compile, the vendors' compilers behind them) take files,
// one run for all the kernels of a kernel module. KernelFiles writes each
// kernel function's StableHLO text (its `orchestra.stablehlo`) into a
// temporary directory, named after the kernel so that the tools' messages
// name it, and gives the IN=OUT arguments of such a run.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_STABLEHLO_KERNELFILES_H
#define ORCHESTRA_STABLEHLO_KERNELFILES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallString.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
namespace orchestra::stablehlo {

/// Where the passes of a StableHLO kernel module also write its device code
/// (`orchestra-compile --dump-device-code DIR`): DIR/<module>, created; empty
/// when the module asks for none; failure, with an error, when it cannot be
/// created.
FailureOr<std::string> getDeviceCodeDir(ModuleOp kernels);

class KernelFiles {
public:
  /// Writes <dir>/<kernel>.stablehlo.mlir for each of `funcs` (which carry
  /// their StableHLO text) into a new temporary directory whose name starts
  /// with `prefix`; an error on the kernel that cannot be written.
  static FailureOr<std::unique_ptr<KernelFiles>>
  create(ArrayRef<func::FuncOp> funcs, StringRef prefix);
  /// Removes the directory and everything in it.
  ~KernelFiles();
  KernelFiles(const KernelFiles &) = delete;
  KernelFiles &operator=(const KernelFiles &) = delete;

  /// <dir>/<kernel><suffix>.
  std::string getPath(func::FuncOp func, StringRef suffix) const;
  /// "<dir>/<kernel>.stablehlo.mlir=<dir>/<kernel><suffix>" for each kernel,
  /// in order.
  std::vector<std::string> getArguments(StringRef suffix) const;

private:
  KernelFiles(ArrayRef<func::FuncOp> funcs) : funcs(funcs) {}

  SmallVector<func::FuncOp> funcs;
  SmallString<128> dir;
};

} // namespace orchestra::stablehlo
} // namespace mlir

#endif // ORCHESTRA_STABLEHLO_KERNELFILES_H
