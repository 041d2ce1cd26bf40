//===- SelectRecipes.cpp - Per-kernel recipe choice for the AMD strategy --===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/AMD/AttrNames.h"
#include "orchestra/Target/AMD/Passes.h"
#include "orchestra/Target/GPU/Recipes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra::amd {
#define GEN_PASS_DEF_AMDSELECTRECIPES
#include "orchestra/Target/AMD/Passes.h.inc"
} // namespace mlir::orchestra::amd

using namespace mlir;
using namespace mlir::orchestra;

/// The MFMA recipe's tiles: 64x64 per workgroup of four waves, 32x32 per
/// wave (one 32x32 MFMA tile), operand tiles of 64 bytes per row of A.
static constexpr int64_t kBlockTile = 64;
static constexpr int64_t kWaveTile = 32;
static constexpr int64_t kRowBytes = 64;
/// Each thread copies 16 bytes of an operand tile per K step.
static constexpr int64_t kChunkBytes = 16;

/// Whether gfx942 has a 32x32 MFMA for `operand` x `operand` accumulated in
/// `acc` (the types orchestra-amd-vector-to-mfma distributes).
static bool hasMfma(Type operand, Type acc) {
  return (operand.isF32() && acc.isF32()) ||
         ((operand.isF16() || operand.isBF16()) && acc.isF32()) ||
         (operand.isInteger(8) && acc.isInteger(32));
}

/// The K step of an MFMA matmul of `operand` elements when `matmul` takes
/// the recipe: plain maps, static shapes, a supported type pair, M and N
/// multiples of the workgroup tile, K of the K step, an accumulator that
/// starts as a `linalg.fill`.
static std::optional<int64_t> getMfmaKStep(linalg::MatmulOp matmul) {
  RankedTensorType lhs, rhs, out;
  if (!gpucommon::getPlainMatmulTypes(matmul, lhs, rhs, out))
    return std::nullopt;
  Type operand = lhs.getElementType();
  if (operand != rhs.getElementType() ||
      !hasMfma(operand, out.getElementType()))
    return std::nullopt;
  int64_t kStep = kRowBytes / (operand.getIntOrFloatBitWidth() / 8);
  int64_t m = out.getDimSize(0), n = out.getDimSize(1), k = lhs.getDimSize(1);
  if (m % kBlockTile != 0 || n % kBlockTile != 0 || k % kStep != 0)
    return std::nullopt;
  if (!matmul.getOutputs()[0].getDefiningOp<linalg::FillOp>())
    return std::nullopt;
  return kStep;
}

namespace {
class AMDSelectRecipesPass
    : public orchestra::amd::impl::AMDSelectRecipesBase<AMDSelectRecipesPass> {
public:
  using AMDSelectRecipesBase::AMDSelectRecipesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    bool useMfma = true;
    if (auto target = module->getAttrOfType<DictionaryAttr>(attr::kTarget))
      if (auto mfma = target.getAs<BoolAttr>("mfma"))
        useMfma = mfma.getValue();
    for (auto func : module.getOps<func::FuncOp>()) {
      gpucommon::detachUnreadInits(func);
      gpucommon::splitEmptyTensors(func);
      SmallVector<linalg::MatmulOp> matmuls;
      Operation *root = gpucommon::findFusionRoot(func, &matmuls);
      if (!root)
        continue;
      auto rootOp = dyn_cast<linalg::LinalgOp>(root);
      bool rootFits =
          useMfma && matmuls.size() == 1 &&
          !gpucommon::hasOtherFills(func, matmuls) &&
          (root == matmuls.front().getOperation() ||
           (rootOp && gpucommon::isEpilogueOf(rootOp, matmuls.front())));
      std::optional<int64_t> kStep =
          rootFits ? getMfmaKStep(matmuls.front()) : std::nullopt;
      if (!kStep) {
        gpucommon::markSimtRecipe(func, root);
        continue;
      }
      Builder b(ctx);
      linalg::MatmulOp matmul = matmuls.front();
      matmul->setAttr(amd::attr::kMma, b.getUnitAttr());
      int64_t elementBytes =
          cast<RankedTensorType>(matmul.getInputs()[0].getType())
              .getElementTypeBitWidth() /
          8;
      root->setAttr(amd::attr::kRecipe, b.getStringAttr("mfma"));
      root->setAttr(amd::attr::kTileM, b.getI64IntegerAttr(kBlockTile));
      root->setAttr(amd::attr::kTileN, b.getI64IntegerAttr(kBlockTile));
      root->setAttr(amd::attr::kWarpM, b.getI64IntegerAttr(kWaveTile));
      root->setAttr(amd::attr::kWarpN, b.getI64IntegerAttr(kWaveTile));
      root->setAttr(amd::attr::kKTile, b.getI64IntegerAttr(*kStep));
      root->setAttr(amd::attr::kCopyElems,
                    b.getI64IntegerAttr(kChunkBytes / elementBytes));
    }
  }
};
} // namespace
