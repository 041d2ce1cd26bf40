//===- LowerNKITasks.cpp - The NKI kernels of a kernel module -------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Support/ExternalTools.h"
#include "orchestra/Target/AWS/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace mlir::orchestra::aws {
#define GEN_PASS_DEF_LOWERNKITASKS
#include "orchestra/Target/AWS/Passes.h.inc"
} // namespace mlir::orchestra::aws

using namespace mlir;
using namespace mlir::orchestra;

static constexpr StringLiteral kBridgeName = "orchestra-stablehlo-bridge";

namespace {
class LowerNKITasksPass
    : public aws::impl::LowerNKITasksBase<LowerNKITasksPass> {
public:
  using LowerNKITasksBase::LowerNKITasksBase;

  void runOnOperation() override {
    SmallVector<func::FuncOp> kernels;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func->hasAttr(attr::kNkiSource))
        kernels.push_back(func);
    if (kernels.empty())
      return;
    std::string error;
    std::optional<std::string> bridgePath =
        findTool(kBridgeName, bridge, "ORCHESTRA_STABLEHLO_BRIDGE", error);
    if (!bridgePath) {
      kernels.front().emitError()
          << (error.empty() ? ("cannot find " + kBridgeName +
                               ", which checks NKI kernel sources")
                                  .str()
                            : error);
      return signalPassFailure();
    }
    for (func::FuncOp func : kernels)
      if (failed(lower(func, *bridgePath)))
        return signalPassFailure();
  }

private:
  LogicalResult lower(func::FuncOp func, StringRef bridgePath) {
    auto source = func->getAttrOfType<StringAttr>(attr::kNkiSource);
    // Named after the task, so that the bridge's messages name it.
    SmallString<128> dir, path;
    if (llvm::sys::fs::createUniqueDirectory("orchestra-nki", dir))
      return func.emitError() << "cannot create a temporary directory";
    llvm::scope_exit cleanUp([&] {
      llvm::sys::fs::remove(path);
      llvm::sys::fs::remove(dir);
    });
    path = dir;
    llvm::sys::path::append(path, func.getSymName() + ".nki.py");
    if (failed(writeFile(func, path, source.getValue())))
      return failure();
    std::string inputs = std::to_string(func.getNumArguments());
    std::string name = (func.getSymName() + ".nki_source").str();
    SmallVector<StringRef> args = {bridgePath, "--check-nki", path, "--inputs",
                                   inputs,     "--name",      name};
    std::string printed;
    if (failed(runTool(args, /*seconds=*/120, printed)))
      return func.emitError()
             << "the nki_source of task '" << func.getSymName()
             << "' is not an NKI kernel the task can run: " << printed;
    return func.emitError()
           << "task '" << func.getSymName() << "': NKI kernel '" << printed
           << "' checked, but compiling it needs the NKI compiler of AWS's "
              "Neuron SDK (AWS's package index only; PyPI's 'nki' and "
              "'neuronx-cc' are placeholders), which this build cannot drive; "
              "drop nki_source to compile the task's body";
  }
};
} // namespace
