//===- HoistConstantLayouts.cpp - Pack constant operands at compile time --===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// A target asks for a kernel argument in another layout by reading it
// through a `linalg.pack` marked `orchestra.constant_layout`. Where the plan
// passes that argument as a constant at every launch, the pack is computed
// here, once, on the constants' bytes; elsewhere the request is withdrawn.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Dialect/Orchestra/Utils/ConstantData.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_HOISTCONSTANTLAYOUTS
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;
using namespace mlir::orchestra;

/// The constant's elements in `pack`'s layout, or failure when the pack
/// has dynamic sizes, the elements are not whole bytes or not available (a
/// resource without its blob), or it pads without a constant padding value.
static FailureOr<DenseElementsAttr> evaluatePack(linalg::PackOp pack,
                                                 ElementsAttr source) {
  auto sourceType = cast<RankedTensorType>(source.getType());
  RankedTensorType destType = pack.getDestType();
  Type elementType = sourceType.getElementType();
  if (!sourceType.hasStaticShape() || !destType.hasStaticShape() ||
      !elementType.isIntOrFloat() ||
      elementType.getIntOrFloatBitWidth() % 8 != 0)
    return failure();
  int64_t elementBytes = elementType.getIntOrFloatBitWidth() / 8;

  // The bytes of one padding element (zeros when the pack never pads).
  SmallVector<char> padding(elementBytes, 0);
  if (Value paddingValue = pack.getPaddingValue()) {
    Attribute value;
    if (!matchPattern(paddingValue, m_Constant(&value)))
      return failure();
    DenseElementsAttr splat =
        DenseElementsAttr::get(RankedTensorType::get({1}, elementType), value);
    ArrayRef<char> raw = splat.getRawData();
    std::copy(raw.begin(), raw.begin() + elementBytes, padding.begin());
  }

  ArrayRef<int64_t> sourceShape = sourceType.getShape();
  ArrayRef<int64_t> destShape = destType.getShape();
  int64_t rank = sourceType.getRank();
  ArrayRef<int64_t> innerPositions = pack.getInnerDimsPos();
  SmallVector<int64_t> innerTiles(pack.getStaticInnerTiles());
  SmallVector<int64_t> outerPerm(pack.getOuterDimsPerm());
  if (outerPerm.empty())
    outerPerm = llvm::to_vector(llvm::seq<int64_t>(0, rank));

  SmallVector<int64_t> sourceStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d)
    sourceStrides[d] = sourceStrides[d + 1] * sourceShape[d + 1];
  // A splat's raw data is one element.
  auto dense = dyn_cast<DenseElementsAttr>(source);
  bool splat = dense && dense.isSplat();
  std::optional<ArrayRef<char>> raw =
      splat ? dense.getRawData() : getRawElements(source);
  if (!raw)
    return failure();
  ArrayRef<char> sourceBytes = *raw;

  // The destination in runs of its innermost dimension. When that is a
  // tile of the source's innermost dimension, a run inside the source is one
  // copy (the blocks of a float matmul's B: 128 floats at a time).
  int64_t destElements = destType.getNumElements();
  int64_t run = destShape.back();
  bool contiguousRuns =
      !innerPositions.empty() && innerPositions.back() == rank - 1;
  SmallVector<char> bytes(destElements * elementBytes);
  SmallVector<int64_t> index(destShape.size(), 0);
  SmallVector<int64_t> sourceIndex(rank);
  auto copyElement = [&](int64_t linear) {
    for (int64_t j = 0; j < rank; ++j)
      sourceIndex[outerPerm[j]] = index[j];
    for (auto [k, position] : llvm::enumerate(innerPositions))
      sourceIndex[position] =
          sourceIndex[position] * innerTiles[k] + index[rank + k];
    const char *from = padding.data();
    if (llvm::all_of(llvm::seq<int64_t>(0, rank), [&](int64_t d) {
          return sourceIndex[d] < sourceShape[d];
        })) {
      int64_t offset = 0;
      for (int64_t d = 0; d < rank; ++d)
        offset += sourceIndex[d] * sourceStrides[d];
      from = sourceBytes.data() + (splat ? 0 : offset * elementBytes);
    }
    std::copy(from, from + elementBytes, bytes.begin() + linear * elementBytes);
  };
  for (int64_t linear = 0; linear < destElements; linear += run) {
    index.back() = 0;
    copyElement(linear);
    // sourceIndex is the run's first element now.
    bool whole = contiguousRuns && !splat &&
                 sourceIndex[rank - 1] + run <= sourceShape[rank - 1] &&
                 llvm::all_of(llvm::seq<int64_t>(0, rank), [&](int64_t d) {
                   return sourceIndex[d] < sourceShape[d];
                 });
    if (whole) {
      int64_t offset = 0;
      for (int64_t d = 0; d < rank; ++d)
        offset += sourceIndex[d] * sourceStrides[d];
      const char *from = sourceBytes.data() + offset * elementBytes;
      std::copy(from, from + run * elementBytes,
                bytes.begin() + linear * elementBytes);
    } else {
      for (int64_t i = 1; i < run; ++i) {
        index.back() = i;
        copyElement(linear + i);
      }
    }
    for (int64_t d = destShape.size() - 2; d >= 0; --d) {
      if (++index[d] < destShape[d])
        break;
      index[d] = 0;
    }
  }
  return DenseElementsAttr::getFromRawBuffer(destType, bytes);
}

/// Erases `op` (a pack or unpack) and then its destination and padding
/// value if nothing else uses them.
static void eraseWithDeadOperands(Operation *op) {
  SmallVector<Value> operands(op->getOperands().drop_front());
  op->erase();
  for (Value operand : operands)
    if (Operation *def = operand.getDefiningOp(); def && isOpTriviallyDead(def))
      def->erase();
}

/// Withdraws the layout request `pack`: its unpacks read the argument.
static void withdraw(linalg::PackOp pack) {
  for (Operation *user : llvm::make_early_inc_range(pack->getUsers()))
    if (auto unpack = dyn_cast<linalg::UnPackOp>(user);
        unpack && unpack.getDestType() == pack.getSourceType() &&
        unpack.getInnerDimsPos() == pack.getInnerDimsPos() &&
        unpack.getStaticInnerTiles() == pack.getStaticInnerTiles() &&
        unpack.getOuterDimsPerm() == pack.getOuterDimsPerm()) {
      unpack.getResult().replaceAllUsesWith(pack.getSource());
      eraseWithDeadOperands(unpack);
    }
  if (pack->use_empty())
    eraseWithDeadOperands(pack);
  else
    pack->removeAttr(attr::kConstantLayout);
}

/// The constant (dense elements or a resource) the plan passes as
/// `operand`, or null.
static ElementsAttr getPlanConstant(Value operand) {
  auto constant = operand.getDefiningOp<arith::ConstantOp>();
  return constant ? dyn_cast<ElementsAttr>(constant.getValue())
                  : ElementsAttr();
}

namespace {
class HoistConstantLayoutsPass
    : public orchestra::impl::HoistConstantLayoutsBase<
          HoistConstantLayoutsPass> {
public:
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect>();
    // The nested pipelines run on modules of this context: load what their
    // passes need up front (dynamic pipelines cannot load dialects).
    const TargetRegistry &targets = getTargetRegistry();
    for (StringRef arch : targets.getArchs()) {
      const TargetInfo *info = targets.lookup(arch);
      if (info->constantLayoutPipeline.empty())
        continue;
      FailureOr<OpPassManager> pm = parsePassPipeline(
          "builtin.module(" + info->constantLayoutPipeline + ")",
          llvm::nulls());
      if (succeeded(pm))
        pm->getDependentDialects(registry);
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(runTargetPipelines(module)))
      return signalPassFailure();

    // Every launch of each kernel.
    SymbolTableCollection symbols;
    llvm::DenseMap<Operation *, SmallVector<LaunchOp>> launches;
    module.walk([&](LaunchOp launch) {
      if (Operation *kernel =
              symbols.lookupSymbolIn(module, launch.getKernel()))
        launches[kernel].push_back(launch);
    });
    SmallVector<linalg::PackOp> requests;
    module.walk([&](linalg::PackOp pack) {
      if (pack->hasAttr(attr::kConstantLayout))
        requests.push_back(pack);
    });
    for (linalg::PackOp pack : requests)
      if (failed(hoist(pack, launches)))
        withdraw(pack);
  }

private:
  /// Runs each kernel module's constant-layout passes.
  LogicalResult runTargetPipelines(ModuleOp module) {
    const TargetRegistry &targets = getTargetRegistry();
    for (auto kernels : module.getOps<ModuleOp>()) {
      auto arch = kernels->getAttrOfType<StringAttr>(attr::kArch);
      const TargetInfo *info = arch ? targets.lookup(arch.getValue()) : nullptr;
      if (!info || info->constantLayoutPipeline.empty() ||
          kernels->hasAttr(attr::kKernels))
        continue;
      std::string pipeline =
          "builtin.module(" + info->constantLayoutPipeline + ")";
      FailureOr<OpPassManager> pm = parsePassPipeline(pipeline, llvm::nulls());
      if (failed(pm))
        return kernels.emitError()
               << "invalid constant-layout pipeline for arch '" << info->arch
               << "': " << pipeline;
      if (failed(runPipeline(*pm, kernels)))
        return failure();
    }
    return success();
  }

  /// Packs, at compile time, the constants every launch of `pack`'s kernel
  /// passes for its argument; fails (changing nothing) if one is not a
  /// constant that can be packed.
  LogicalResult
  hoist(linalg::PackOp pack,
        llvm::DenseMap<Operation *, SmallVector<LaunchOp>> &launches) {
    auto argument = dyn_cast<BlockArgument>(pack.getSource());
    auto kernel =
        argument ? dyn_cast<func::FuncOp>(argument.getOwner()->getParentOp())
                 : func::FuncOp();
    if (!kernel || !argument.hasOneUse() ||
        argument.getOwner() != &kernel.getBody().front())
      return failure();
    auto it = launches.find(kernel);
    if (it == launches.end() || it->second.empty())
      return failure();
    unsigned position = argument.getArgNumber();

    // The packed constant of each distinct operand.
    llvm::DenseMap<Value, DenseElementsAttr> packed;
    for (LaunchOp launch : it->second) {
      Value operand = launch.getArgs()[position];
      if (packed.count(operand))
        continue;
      ElementsAttr constant = getPlanConstant(operand);
      if (!constant)
        return failure();
      FailureOr<DenseElementsAttr> value = evaluatePack(pack, constant);
      if (failed(value))
        return failure();
      packed[operand] = *value;
    }

    // One packed constant per constant, beside it.
    llvm::DenseMap<Value, Value> replacements;
    for (LaunchOp launch : it->second) {
      Value operand = launch.getArgs()[position];
      Value &replacement = replacements[operand];
      if (!replacement) {
        auto constant = operand.getDefiningOp<arith::ConstantOp>();
        OpBuilder builder(constant);
        auto packedConstant = arith::ConstantOp::create(
            builder, constant.getLoc(), packed[operand]);
        packedConstant->setDiscardableAttrs(
            constant->getDiscardableAttrDictionary());
        replacement = packedConstant;
      }
      launch->setOperand(position, replacement);
    }
    for (Value operand : llvm::make_first_range(replacements))
      if (operand.use_empty())
        operand.getDefiningOp()->erase();

    RankedTensorType packedType = pack.getDestType();
    argument.setType(packedType);
    pack.getResult().replaceAllUsesWith(argument);
    eraseWithDeadOperands(pack);
    SmallVector<Type> inputs(kernel.getArgumentTypes());
    inputs[position] = packedType;
    kernel.setFunctionType(FunctionType::get(kernel.getContext(), inputs,
                                             kernel.getResultTypes()));
    if (auto abi = kernel->getAttrOfType<ArrayAttr>(attr::kAbi)) {
      SmallVector<Attribute> types(abi.getValue());
      types[position] = TypeAttr::get(packedType);
      kernel->setAttr(attr::kAbi, ArrayAttr::get(kernel.getContext(), types));
    }
    return success();
  }
};
} // namespace
