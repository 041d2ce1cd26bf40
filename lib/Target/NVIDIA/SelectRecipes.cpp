//===- SelectRecipes.cpp - Per-kernel recipe choice for the GPU strategy --===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/NVIDIA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra::nvidia {
#define GEN_PASS_DEF_NVIDIASELECTRECIPES
#include "orchestra/Target/NVIDIA/Passes.h.inc"
} // namespace mlir::orchestra::nvidia

using namespace mlir;
using namespace mlir::orchestra;

/// The attribute prefix `orchestra-outline-tasks` tags fusion roots with.
static constexpr StringLiteral kFusionRootPrefix = "orchestra.fusion_root";
static constexpr StringLiteral kFusionProducer = "orchestra.fusion_producer";
static constexpr StringLiteral kRecipe = "orchestra.gpu_recipe";
static constexpr StringLiteral kMma = "orchestra.gpu_mma";
static constexpr StringLiteral kKStages = "orchestra.gpu_k_stages";

static bool isFusionRoot(Operation *op) {
  return llvm::any_of(op->getAttrs(), [](NamedAttribute attr) {
    return attr.getName().getValue().starts_with(kFusionRootPrefix);
  });
}

/// Whether `matmul` maps onto m16n8k16 tensor-core steps within block tiles
/// of `blockM` x `blockN` and K steps of `blockK`: f16 operands, an f16 or
/// f32 accumulator, the default (row-major, untransposed) indexing maps and
/// divisible static sizes, with its accumulator initialized by a
/// `linalg.fill`.
static bool isTensorCoreMatmul(linalg::MatmulOp matmul, int64_t blockM,
                               int64_t blockN, int64_t blockK) {
  if (matmul.getIndexingMapsArray() !=
      linalg::MatmulOp::getDefaultIndexingMaps(matmul.getContext()))
    return false;
  auto lhs = dyn_cast<RankedTensorType>(matmul.getInputs()[0].getType());
  auto rhs = dyn_cast<RankedTensorType>(matmul.getInputs()[1].getType());
  auto out = dyn_cast<RankedTensorType>(matmul.getOutputs()[0].getType());
  if (!lhs || !rhs || !out || !lhs.hasStaticShape() || !rhs.hasStaticShape() ||
      !out.hasStaticShape())
    return false;
  // bf16 is not taken: LLVM 22's vector-to-nvgpu conversion cannot load
  // bf16 operand fragments ("failed to convert op during vector-to-nvgpu
  // conversion" on the transfer_read).
  if (!lhs.getElementType().isF16() || !rhs.getElementType().isF16() ||
      !(out.getElementType().isF16() || out.getElementType().isF32()))
    return false;
  int64_t m = out.getDimSize(0), n = out.getDimSize(1), k = lhs.getDimSize(1);
  if (m % blockM != 0 || n % blockN != 0 || k % blockK != 0)
    return false;
  return matmul.getOutputs()[0].getDefiningOp<linalg::FillOp>() != nullptr;
}

/// Whether `root` is an elementwise epilogue over the `m` x `n` result of a
/// matmul: rank 2, all loops parallel, the same iteration space.
static bool isEpilogueOf(linalg::LinalgOp root, linalg::MatmulOp matmul) {
  if (root.getNumLoops() != 2 || root.getNumReductionLoops() != 0 ||
      !root.hasPureTensorSemantics())
    return false;
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  auto out = cast<RankedTensorType>(matmul.getOutputs()[0].getType());
  if (ranges != SmallVector<int64_t>(out.getShape()))
    return false;
  return llvm::all_of(root.getDpsInitsMutable(), [&](OpOperand &init) {
    return root.getMatchingIndexingMap(&init).isIdentity();
  });
}

/// Gives every use of a `tensor.empty` its own. One empty tensor that is the
/// destination of two ops (a matmul's accumulator and its epilogue's result)
/// would make them share a buffer after fusion; bufferization would then copy
/// the tile through a global-memory temporary inside the kernel instead of
/// keeping the accumulator in shared memory.
static void splitEmptyTensors(func::FuncOp func) {
  SmallVector<tensor::EmptyOp> empties;
  func.walk([&](tensor::EmptyOp empty) { empties.push_back(empty); });
  for (tensor::EmptyOp empty : empties) {
    SmallVector<OpOperand *> uses;
    for (OpOperand &use : empty->getUses())
      uses.push_back(&use);
    OpBuilder builder(empty);
    for (OpOperand *use : llvm::drop_begin(uses))
      use->set(builder.clone(*empty)->getResult(0));
  }
}

namespace {
class NVIDIASelectRecipesPass
    : public orchestra::nvidia::impl::NVIDIASelectRecipesBase<
          NVIDIASelectRecipesPass> {
public:
  using NVIDIASelectRecipesBase::NVIDIASelectRecipesBase;

  void runOnOperation() override {
    if (mmaStages < 1 || mmaStages > 3) {
      getOperation().emitError()
          << "mma-stages must be 1, 2 or 3 (the stage counts the strategy "
             "has pipelines for), got "
          << mmaStages;
      return signalPassFailure();
    }
    if (mmaBlockM <= 0 || mmaBlockN <= 0 || mmaBlockK <= 0 ||
        mmaBlockM % 16 != 0 || mmaBlockN % 8 != 0 || mmaBlockK % 16 != 0) {
      getOperation().emitError()
          << "mma-block-m and mma-block-k must be positive multiples of 16 "
             "and mma-block-n of 8, got "
          << mmaBlockM << ", " << mmaBlockK << " and " << mmaBlockN;
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      splitEmptyTensors(func);
      Operation *root = nullptr;
      SmallVector<linalg::MatmulOp> matmuls;
      bool otherFills = false;
      func.walk([&](Operation *op) {
        if (isFusionRoot(op))
          root = op;
        if (!op->hasAttr(kFusionProducer) && !isFusionRoot(op))
          return;
        if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
          matmuls.push_back(matmul);
      });
      if (!root)
        continue;
      // The strategy fuses the one fill it finds into the warp tiles: other
      // fills among the producers would be taken for the accumulator's.
      func.walk([&](linalg::FillOp fill) {
        if (fill->hasAttr(kFusionProducer) &&
            !llvm::any_of(matmuls, [&](linalg::MatmulOp matmul) {
              return matmul.getOutputs()[0].getDefiningOp() == fill;
            }))
          otherFills = true;
      });
      std::string recipe = "simt";
      if (matmuls.size() == 1 && !otherFills &&
          isTensorCoreMatmul(matmuls.front(), mmaBlockM, mmaBlockN,
                             mmaBlockK)) {
        auto rootOp = dyn_cast<linalg::LinalgOp>(root);
        if (root == matmuls.front().getOperation() ||
            (rootOp && isEpilogueOf(rootOp, matmuls.front()))) {
          recipe = "mma";
          linalg::MatmulOp matmul = matmuls.front();
          matmul->setAttr(kMma, UnitAttr::get(ctx));
          // The software pipeline of the K loop cannot have more stages
          // than the loop has steps.
          int64_t kSteps =
              cast<RankedTensorType>(matmul.getInputs()[0].getType())
                  .getDimSize(1) /
              mmaBlockK;
          root->setAttr(kKStages, IntegerAttr::get(
                                      IntegerType::get(ctx, 64),
                                      std::min(mmaStages.getValue(), kSteps)));
        }
      }
      root->setAttr(kRecipe, StringAttr::get(ctx, recipe));
    }
  }
};
} // namespace
