//===- DeduplicateKernels.cpp - One kernel per distinct task body ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_DEDUPLICATEKERNELS
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;
using namespace mlir::orchestra;

namespace {

/// The kernel's text with its name left out: two kernels with the same key
/// compute the same function of their operands.
std::string getKey(func::FuncOp kernel) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << kernel.getFunctionType();
  if (DictionaryAttr attrs = kernel->getDiscardableAttrDictionary())
    os << attrs;
  if (ArrayAttr argAttrs = kernel.getAllArgAttrs())
    os << argAttrs;
  if (ArrayAttr resultAttrs = kernel.getAllResultAttrs())
    os << resultAttrs;
  OpPrintingFlags flags;
  flags.printGenericOpForm().useLocalScope();
  for (Operation &op : kernel.getBody().front())
    op.print(os, flags);
  return key;
}

class DeduplicateKernelsPass
    : public orchestra::impl::DeduplicateKernelsBase<DeduplicateKernelsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Per kernel module (one per device): the first kernel of each body,
    // and the kernels that repeat it.
    llvm::DenseMap<Operation *, FlatSymbolRefAttr> replacement;
    for (auto kernels : module.getOps<ModuleOp>()) {
      llvm::StringMap<func::FuncOp> firstOfKey;
      for (auto kernel : kernels.getOps<func::FuncOp>()) {
        if (kernel.isExternal())
          continue;
        auto [it, inserted] = firstOfKey.try_emplace(getKey(kernel), kernel);
        if (!inserted)
          replacement[kernel] = FlatSymbolRefAttr::get(it->second);
      }
    }
    if (replacement.empty())
      return;
    SymbolTableCollection symbols;
    module.walk([&](LaunchOp launch) {
      auto kernel = dyn_cast_or_null<func::FuncOp>(
          symbols.lookupSymbolIn(module, launch.getKernel()));
      auto it = kernel ? replacement.find(kernel) : replacement.end();
      if (it == replacement.end())
        return;
      launch.setKernelAttr(SymbolRefAttr::get(
          launch.getKernel().getRootReference(), {it->second}));
    });
    for (auto &[kernel, _] : replacement)
      kernel->erase();
  }
};

} // namespace
