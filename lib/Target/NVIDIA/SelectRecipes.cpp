//===- SelectRecipes.cpp - Per-kernel recipe choice for the GPU strategy --===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/GPU/Recipes.h"
#include "orchestra/Target/NVIDIA/AttrNames.h"
#include "orchestra/Target/NVIDIA/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

namespace mlir::orchestra::nvidia {
#define GEN_PASS_DEF_NVIDIASELECTRECIPES
#include "orchestra/Target/NVIDIA/Passes.h.inc"
} // namespace mlir::orchestra::nvidia

using namespace mlir;
using namespace mlir::orchestra;

/// The warpgroup MMA recipe: blocks of 128 rows for two warpgroups (64 rows
/// each) and 128 or 256 columns (the target key `wgmma_tile`), K steps of 64
/// (one 128-byte swizzle row of f16 or bf16).
static constexpr int64_t kWgmmaBlockM = 128;
static constexpr int64_t kWgmmaBlockK = 64;

/// Whether `matmul` maps onto m16n8k16 tensor-core steps within block tiles
/// of `blockM` x `blockN` and K steps of `blockK`: f16 operands with an f16
/// or f32 accumulator, or bf16 operands with an f32 accumulator, the default
/// (row-major, untransposed) indexing maps and divisible static sizes, with its
/// accumulator initialized by a `linalg.fill`.
static bool isTensorCoreMatmul(linalg::MatmulOp matmul, int64_t blockM,
                               int64_t blockN, int64_t blockK) {
  RankedTensorType lhs, rhs, out;
  if (!gpucommon::getPlainMatmulTypes(matmul, lhs, rhs, out))
    return false;
  // f16 x f16 accumulates in f16 or f32, bf16 x bf16 in f32 (the only
  // bf16 accumulator of mma.sync).
  Type lhsType = lhs.getElementType(), outType = out.getElementType();
  if (lhsType != rhs.getElementType())
    return false;
  if (!(lhsType.isF16() && (outType.isF16() || outType.isF32())) &&
      !(lhsType.isBF16() && outType.isF32()))
    return false;
  int64_t m = out.getDimSize(0), n = out.getDimSize(1), k = lhs.getDimSize(1);
  if (m % blockM != 0 || n % blockN != 0 || k % blockK != 0)
    return false;
  return matmul.getOutputs()[0].getDefiningOp<linalg::FillOp>() != nullptr;
}

/// Whether `matmul` can run on the warpgroup MMA units in the wgmma
/// recipe's tiles: f16 x f16 or bf16 x bf16 accumulated in f32, the default
/// indexing maps, M a multiple of 128 and N of `blockN`, K a multiple of 64
/// with at least two K steps (TMA stages them), and an accumulator that
/// starts as a zero `linalg.fill` (warpgroup MMA starts from zero, not from
/// memory).
static bool isWarpgroupMatmul(linalg::MatmulOp matmul, int64_t blockN) {
  RankedTensorType lhs, rhs, out;
  if (!gpucommon::getPlainMatmulTypes(matmul, lhs, rhs, out))
    return false;
  Type element = lhs.getElementType();
  if (element != rhs.getElementType() ||
      !(element.isF16() || element.isBF16()) || !out.getElementType().isF32())
    return false;
  int64_t m = out.getDimSize(0), n = out.getDimSize(1), k = lhs.getDimSize(1);
  if (m % kWgmmaBlockM != 0 || n % blockN != 0 || k % kWgmmaBlockK != 0 ||
      k < 2 * kWgmmaBlockK)
    return false;
  auto fill = matmul.getOutputs()[0].getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

/// The SMs and the shared memory of a block on Hopper and Blackwell when the
/// target description does not say.
static constexpr int64_t kDefaultNumSMs = 132;
static constexpr int64_t kDefaultSharedBytes = 227 * 1024;
/// The threads of a tensor-core block; each copies 16 bytes (8 f16 or bf16) of
/// an operand tile per row chunk.
static constexpr int64_t kBlockThreads = 256;
static constexpr int64_t kChunkElements = 8;

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
    // 2 x 4 warps of m16n8 steps; every thread copies whole 16-byte chunks
    // of each operand tile.
    int64_t chunks = kBlockThreads * kChunkElements;
    if (mmaBlockM <= 0 || mmaBlockN <= 0 || mmaBlockK <= 0 ||
        mmaBlockM % 32 != 0 || mmaBlockN % 32 != 0 || mmaBlockK % 16 != 0 ||
        (mmaBlockM * mmaBlockK) % chunks != 0 ||
        (mmaBlockK * mmaBlockN) % chunks != 0) {
      getOperation().emitError()
          << "mma-block-m and mma-block-n must be positive multiples of 32, "
             "mma-block-k of 16, and each operand tile (m x k, k x n) a "
             "multiple of "
          << chunks << " elements, got " << mmaBlockM << ", " << mmaBlockN
          << " and " << mmaBlockK;
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();
    int64_t numSMs = kDefaultNumSMs, sharedBytes = kDefaultSharedBytes;
    if (auto target =
            getOperation()->getAttrOfType<DictionaryAttr>(attr::kTarget)) {
      if (auto value = target.getAs<IntegerAttr>("num_sms"))
        numSMs = value.getInt();
      if (auto value = target.getAs<IntegerAttr>("shared_memory_bytes"))
        sharedBytes = value.getInt();
    }
    // The Tensor Memory Accelerator stages the operand tiles on Blackwell,
    // and on Hopper when the target asks for it (`tma = true`); otherwise
    // cp.async does.
    bool useTma = false;
    if (auto target =
            getOperation()->getAttrOfType<DictionaryAttr>(attr::kTarget)) {
      if (auto arch = target.getAs<StringAttr>("arch"))
        useTma = arch.getValue() == "nvidia_blackwell";
      if (auto tma = target.getAs<BoolAttr>("tma"))
        useTma = tma.getValue();
    }
    // Warpgroup MMA on Hopper, or tcgen05 MMA on Blackwell, when the target
    // asks for it, in the block tile it names. Both take the same tiles and
    // TMA staging; they differ in the K loop's MMAs (recipe "wgmma" or
    // "tcgen05").
    // On Hopper, wgmma in 128x256 blocks is the default wherever the chip
    // has it (sm_90a, the default sm): measured on an H100 it is twice as
    // fast as mma.sync (docs/PERFORMANCE.md).
    bool useWarpgroupRecipe = false;
    StringRef warpgroupRecipe = "wgmma";
    int64_t wgmmaBlockN = 256;
    bool explicitTile = false;
    if (auto target =
            getOperation()->getAttrOfType<DictionaryAttr>(attr::kTarget)) {
      auto arch = target.getAs<StringAttr>("arch");
      auto sm = target.getAs<StringAttr>("sm");
      if (arch && arch.getValue() == "nvidia_hopper")
        useWarpgroupRecipe = !sm || sm.getValue() == "sm_90a";
      if (auto wgmma = target.getAs<BoolAttr>("wgmma"))
        useWarpgroupRecipe = wgmma.getValue();
      if (auto tile = target.getAs<StringAttr>("wgmma_tile")) {
        wgmmaBlockN = tile.getValue() == "128x256" ? 256 : 128;
        explicitTile = true;
      }
      if (arch && arch.getValue() == "nvidia_blackwell") {
        auto tcgen05 = target.getAs<BoolAttr>("tcgen05");
        useWarpgroupRecipe = tcgen05 && tcgen05.getValue();
        warpgroupRecipe = "tcgen05";
        auto tile = target.getAs<StringAttr>("tcgen05_tile");
        wgmmaBlockN = tile && tile.getValue() == "128x256" ? 256 : 128;
        explicitTile = true;
      }
      // Warpgroup and tcgen05 MMA exist only on the arch-specific chips
      // (sm_90a, sm_100a); the NVPTX backend cannot select them otherwise.
      if (useWarpgroupRecipe && sm && !sm.getValue().ends_with("a")) {
        getOperation().emitError()
            << "the target key " << warpgroupRecipe << " = true needs sm = \""
            << sm.getValue() << "a\" (" << warpgroupRecipe
            << " instructions exist only on the arch-specific chip), got sm = "
               "\""
            << sm.getValue() << "\"";
        return signalPassFailure();
      }
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      gpucommon::detachUnreadInits(func);
      gpucommon::splitEmptyTensors(func);
      SmallVector<linalg::MatmulOp> matmuls;
      Operation *root = gpucommon::findFusionRoot(func, &matmuls);
      if (!root)
        continue;
      bool otherFills = gpucommon::hasOtherFills(func, matmuls);
      std::string recipe = "simt";
      auto rootOp = dyn_cast<linalg::LinalgOp>(root);
      bool rootFits =
          matmuls.size() == 1 && !otherFills &&
          (root == matmuls.front().getOperation() ||
           (rootOp && gpucommon::isEpilogueOf(rootOp, matmuls.front())));
      // The block tile the target names, else 128x128 (N not a multiple of
      // 256, or too little shared memory). By default, 128x256 blocks only
      // where there are enough of them to give every SM one.
      std::optional<int64_t> wgmmaStages;
      int64_t blockN = wgmmaBlockN;
      for (int64_t candidate : {wgmmaBlockN, int64_t(128)}) {
        if (wgmmaStages || !rootFits || !useWarpgroupRecipe ||
            !isWarpgroupMatmul(matmuls.front(), candidate))
          continue;
        if (candidate != 128 && !explicitTile) {
          auto out =
              cast<RankedTensorType>(matmuls.front().getOutputs()[0].getType());
          if ((out.getDimSize(0) / kWgmmaBlockM) *
                  (out.getDimSize(1) / candidate) <
              numSMs)
            continue;
        }
        blockN = candidate;
        // tcgen05 kernels also keep the tensor memory address and one
        // mbarrier per stage in shared memory (128 + 8 x 3 bytes with their
        // alignment, rounded up).
        int64_t extraBytes = warpgroupRecipe == "tcgen05" ? 256 : 0;
        wgmmaStages = getWarpgroupStages(matmuls.front(), root, candidate,
                                         sharedBytes - extraBytes);
      }
      if (wgmmaStages) {
        recipe = warpgroupRecipe.str();
        linalg::MatmulOp matmul = matmuls.front();
        matmul->setAttr(nvidia::attr::kMma, UnitAttr::get(ctx));
        matmul->setAttr(nvidia::attr::kZeroInit, UnitAttr::get(ctx));
        auto set = [&](StringRef name, int64_t value) {
          root->setAttr(name,
                        IntegerAttr::get(IntegerType::get(ctx, 64), value));
        };
        set(nvidia::attr::kKStages, *wgmmaStages);
        set(nvidia::attr::kTileM, kWgmmaBlockM);
        set(nvidia::attr::kTileN, blockN);
        set(nvidia::attr::kTma, 1);
      } else if (rootFits && isTensorCoreMatmul(matmuls.front(), mmaBlockM,
                                                mmaBlockN, mmaBlockK)) {
        {
          recipe = "mma";
          linalg::MatmulOp matmul = matmuls.front();
          matmul->setAttr(nvidia::attr::kMma, UnitAttr::get(ctx));
          // The software pipeline of the K loop cannot have more stages
          // than the loop has steps.
          int64_t kSteps =
              cast<RankedTensorType>(matmul.getInputs()[0].getType())
                  .getDimSize(1) /
              mmaBlockK;
          root->setAttr(
              nvidia::attr::kKStages,
              IntegerAttr::get(IntegerType::get(ctx, 64),
                               std::min(mmaStages.getValue(), kSteps)));
          setTiles(root, matmul, numSMs, sharedBytes);
          // TMA copies need a K loop (two steps or more).
          root->setAttr(nvidia::attr::kTma,
                        IntegerAttr::get(IntegerType::get(ctx, 64),
                                         useTma && kSteps >= 2));
        }
      }
      if (recipe == "simt")
        gpucommon::markSimtRecipe(func, root);
      else
        root->setAttr(nvidia::attr::kRecipe, StringAttr::get(ctx, recipe));
    }
  }

private:
  /// The stages of a wgmma kernel's K loop: `mma-stages`, fewer when the
  /// loop has fewer steps or the shared memory holds fewer (each stage is a
  /// 128x64 A and a 64x`blockN` B tile of 16-bit elements, 32 or 48 KB; an
  /// epilogue reads the 128x`blockN` f32 accumulator tile, 64 or 128 KB,
  /// from shared memory that `transform.orchestra.nvidia_warpgroup_mma` lets
  /// it share with the stages, which are dead by then); none when not even
  /// two fit.
  std::optional<int64_t> getWarpgroupStages(linalg::MatmulOp matmul,
                                            Operation *root, int64_t blockN,
                                            int64_t sharedBytes) {
    int64_t kSteps =
        cast<RankedTensorType>(matmul.getInputs()[0].getType()).getDimSize(1) /
        kWgmmaBlockK;
    int64_t stageBytes = (kWgmmaBlockM + blockN) * kWgmmaBlockK * 2;
    int64_t accBytes =
        root == matmul.getOperation() ? 0 : kWgmmaBlockM * blockN * 4;
    int64_t stages = std::min<int64_t>(mmaStages.getValue(), kSteps);
    while (stages >= 2 && std::max(stages * stageBytes, accBytes) > sharedBytes)
      --stages;
    if (stages < 2)
      return std::nullopt;
    return stages;
  }

  /// Records the tiles of a tensor-core kernel on its root: the block tile
  /// (`mma-block-m` x `mma-block-n`, or twice that in both dimensions when
  /// it divides the matmul, the larger blocks still fill every SM and their
  /// shared memory fits), the 2 x 4 warps' tiles, and the rows of each
  /// thread's 16-byte chunks of the A and B tiles of a K step.
  void setTiles(Operation *root, linalg::MatmulOp matmul, int64_t numSMs,
                int64_t sharedBytes) {
    auto out = cast<RankedTensorType>(matmul.getOutputs()[0].getType());
    int64_t m = out.getDimSize(0), n = out.getDimSize(1);
    int64_t accBytes = out.getElementType().getIntOrFloatBitWidth() / 8;
    int64_t stages =
        root->getAttrOfType<IntegerAttr>(nvidia::attr::kKStages).getInt();
    auto sharedFor = [&](int64_t bm, int64_t bn) {
      // The operand tiles of every stage, and the accumulator tile when an
      // epilogue reads it from shared memory.
      int64_t bytes = stages * (bm + bn) * mmaBlockK * 2;
      if (root != matmul.getOperation())
        bytes += bm * bn * accBytes;
      return bytes;
    };
    int64_t bm = mmaBlockM, bn = mmaBlockN;
    if (mmaLargeBlocks && m % (2 * bm) == 0 && n % (2 * bn) == 0 &&
        (m / (2 * bm)) * (n / (2 * bn)) >= numSMs &&
        sharedFor(2 * bm, 2 * bn) <= sharedBytes) {
      bm *= 2;
      bn *= 2;
    }
    MLIRContext *ctx = &getContext();
    auto set = [&](StringRef name, int64_t value) {
      root->setAttr(name, IntegerAttr::get(IntegerType::get(ctx, 64), value));
    };
    set(nvidia::attr::kTileM, bm);
    set(nvidia::attr::kTileN, bn);
    set(nvidia::attr::kWarpM, bm / 2);
    set(nvidia::attr::kWarpN, bn / 4);
    set(nvidia::attr::kCopyRowsA,
        bm * mmaBlockK / (kBlockThreads * kChunkElements));
    set(nvidia::attr::kCopyRowsB,
        mmaBlockK * bn / (kBlockThreads * kChunkElements));
  }
};
} // namespace
