//===- EntryFunction.cpp - Finding a program's entry function -------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Transforms/EntryFunction.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

FailureOr<func::FuncOp> mlir::orchestra::lookupEntryFunction(ModuleOp module,
                                                             StringRef name) {
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      candidates.push_back(func);
  auto names = [&] {
    SmallVector<std::string> result;
    for (func::FuncOp func : candidates)
      result.push_back(("'" + func.getSymName() + "'").str());
    return result.empty() ? std::string("none") : llvm::join(result, ", ");
  };
  if (!name.empty()) {
    for (func::FuncOp func : candidates)
      if (func.getSymName() == name)
        return func;
    return module.emitError()
           << "entry function '" << name
           << "' not found; functions with a body: " << names();
  }
  for (func::FuncOp func : candidates)
    if (func.getSymName() == "main")
      return func;
  SmallVector<func::FuncOp> publicFuncs;
  for (func::FuncOp func : candidates)
    if (func.isPublic())
      publicFuncs.push_back(func);
  if (publicFuncs.size() == 1)
    return publicFuncs.front();
  return module.emitError()
         << "cannot choose the entry function: no 'main' and "
         << (publicFuncs.empty() ? "no" : "more than one")
         << " public function (functions with a body: " << names()
         << "); name one with the 'entry' option";
}
