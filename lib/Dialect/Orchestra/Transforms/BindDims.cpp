//===- BindDims.cpp - Named, bounded dynamic dimensions of the entry ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/Transforms/EntryFunction.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Dialect/Orchestra/Utils/DynamicDims.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_BINDDIMS
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;
using namespace mlir::orchestra;

namespace {
class BindDimsPass : public orchestra::impl::BindDimsBase<BindDimsPass> {
public:
  using BindDimsBase::BindDimsBase;
  void runOnOperation() override;
};
} // namespace

void BindDimsPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  FailureOr<func::FuncOp> found = lookupEntryFunction(module, entry);
  if (failed(found))
    return signalPassFailure();
  func::FuncOp func = *found;

  llvm::StringMap<DynamicDim> given;
  for (const std::string &option : dims) {
    std::string error;
    FailureOr<DynamicDim> dim = parseDimOption(option, error);
    if (failed(dim)) {
      module.emitError() << error;
      return signalPassFailure();
    }
    if (!given.try_emplace(dim->name, *dim).second) {
      module.emitError() << "--dim " << dim->name << " is given twice";
      return signalPassFailure();
    }
  }
  FailureOr<SmallVector<DynamicDim>> existing = getDynamicDims(func);
  if (failed(existing))
    return signalPassFailure();

  // Name every dynamic dimension of the arguments, in argument order.
  llvm::MapVector<StringRef, Location> names;
  FunctionType type = func.getFunctionType();
  for (auto [i, argType] : llvm::enumerate(type.getInputs())) {
    auto shaped = dyn_cast<RankedTensorType>(argType);
    if (!shaped || shaped.hasStaticShape())
      continue;
    auto current = func.getArgAttrOfType<ArrayAttr>(i, attr::kDimNames);
    if (current && static_cast<int64_t>(current.size()) != shaped.getRank()) {
      func.emitError() << "argument #" << i << " has " << shaped.getRank()
                       << " dimensions but '" << attr::kDimNames << "' names "
                       << current.size();
      return signalPassFailure();
    }
    SmallVector<Attribute> argNames;
    for (int64_t axis = 0; axis < shaped.getRank(); ++axis) {
      auto name = current ? dyn_cast<StringAttr>(current[axis]) : StringAttr();
      if (!shaped.isDynamicDim(axis)) {
        argNames.push_back(StringAttr::get(ctx, ""));
        continue;
      }
      if (!name || name.getValue().empty())
        name = StringAttr::get(ctx, "arg" + Twine(i) + "." + Twine(axis));
      argNames.push_back(name);
      names.insert({name.getValue(), func.getArgument(i).getLoc()});
    }
    func.setArgAttr(i, attr::kDimNames, ArrayAttr::get(ctx, argNames));
  }

  for (auto &[name, option] : given)
    if (!names.contains(name))
      module.emitWarning() << "no dynamic dimension of the entry's arguments "
                              "is named '"
                           << name << "'";
  if (names.empty()) {
    func->removeAttr(attr::kDims);
    return;
  }

  NamedAttrList bounds;
  for (auto &entry : names) {
    StringRef name = entry.first;
    Location loc = entry.second;
    DynamicDim dim{name.str(), 1, kDefaultDimUpperBound, kDefaultDimUpperBound};
    if (auto it = given.find(name); it != given.end()) {
      dim = it->second;
    } else if (auto *known = llvm::find_if(
                   *existing,
                   [&](const DynamicDim &d) { return d.name == name; });
               known != existing->end()) {
      dim = *known;
    } else {
      emitRemark(loc) << "dimension '" << name << "' has no bound: compiled "
                      << "for sizes 1.." << kDefaultDimUpperBound
                      << " (set another range with --dim " << name
                      << "=MIN..MAX)";
    }
    bounds.append(name,
                  DenseI64ArrayAttr::get(ctx, {dim.min, dim.max, dim.opt}));
  }
  func->setAttr(attr::kDims, bounds.getDictionary(ctx));
}
