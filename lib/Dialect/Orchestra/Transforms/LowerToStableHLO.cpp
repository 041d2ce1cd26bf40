//===- LowerToStableHLO.cpp - Kernels as StableHLO modules ----------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/StableHLO/Emitter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_LOWERTOSTABLEHLO
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;
using namespace mlir::orchestra;

namespace {
class LowerToStableHLOPass
    : public orchestra::impl::LowerToStableHLOBase<LowerToStableHLOPass> {
public:
  using LowerToStableHLOBase::LowerToStableHLOBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool failedAny = false;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FailureOr<std::string> text = stablehlo::emitModule(func);
      if (failed(text)) {
        failedAny = true;
        continue;
      }
      func->setAttr(attr::kStableHLO, StringAttr::get(&getContext(), *text));
      if (!dumpDir.empty() && failed(dump(func, *text)))
        failedAny = true;
    }
    if (failedAny)
      signalPassFailure();
  }

private:
  LogicalResult dump(func::FuncOp func, StringRef text) {
    if (std::error_code ec = llvm::sys::fs::create_directories(dumpDir))
      return func.emitError()
             << "cannot create '" << dumpDir << "': " << ec.message();
    SmallString<256> path(dumpDir);
    llvm::sys::path::append(path, func.getSymName() + ".mlir");
    if (llvm::Error error = llvm::writeToOutput(path, [&](raw_ostream &os) {
          os << text;
          return llvm::Error::success();
        }))
      return func.emitError() << "cannot write '" << path
                              << "': " << llvm::toString(std::move(error));
    return success();
  }
};
} // namespace
