//===- SelectTiles.cpp - Parallel row tiles of x86_64 kernels -------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "PackedMatmul.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/CPU/AttrNames.h"
#include "orchestra/Target/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::orchestra::cpu {
#define GEN_PASS_DEF_CPUSELECTTILES
#include "orchestra/Target/CPU/Passes.h.inc"
} // namespace mlir::orchestra::cpu

using namespace mlir;

namespace {

/// The nominal rows of a parallel tile of a root with this tag, and the
/// step by which the pass may shrink it.
struct RowTiling {
  StringLiteral tag;
  int64_t nominal;
  int64_t step;
};

// The rows of the tags' tiles; docs/Passes/OrchestraCPUPasses.md says why.
constexpr RowTiling kRowTilings[] = {
    {orchestra::cpu::attr::kRootTall, 128, 8},
    {orchestra::cpu::attr::kRootWide, 64, 8},
    {mlir::orchestra::attr::kFusionRoot, 8, 8},
    {orchestra::cpu::attr::kRootShort, 1, 1},
};

/// The rows that the busiest of `threads` threads computes when `rows`
/// rows are cut into tiles of `tileRows` and the tiles are shared in
/// contiguous chunks (OpenMP's static schedule).
int64_t busiestThreadRows(int64_t rows, int64_t tileRows, int64_t threads) {
  int64_t tiles = llvm::divideCeil(rows, tileRows);
  return std::min<int64_t>(rows, llvm::divideCeil(tiles, threads) * tileRows);
}

/// The rows of one tile: the nominal tile, unless a smaller one (down to
/// half of it, in `step`s) leaves the busiest thread fewer rows.
int64_t selectTileRows(int64_t rows, int64_t threads, int64_t nominal,
                       int64_t step) {
  int64_t best = nominal;
  int64_t bestCost = busiestThreadRows(rows, nominal, threads);
  for (int64_t tile = nominal - step; tile >= std::max<int64_t>(1, nominal / 2);
       tile -= step) {
    int64_t cost = busiestThreadRows(rows, tile, threads);
    if (cost < bestCost) {
      best = tile;
      bestCost = cost;
    }
  }
  return best;
}

/// Whether the kernel around `root` computes a contraction or convolution,
/// whose register tiles want whole multiples of 8 rows.
bool hasRegisterTiledOp(Operation *root) {
  auto func = root->getParentOfType<func::FuncOp>();
  WalkResult found = func.walk([](linalg::LinalgOp op) {
    if (linalg::isaContractionOpInterface(op) ||
        isa<linalg::ConvolutionOpInterface>(op.getOperation()))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return found.wasInterrupted();
}

/// The columns of one parallel tile of a matmul root of few rows whose
/// right-hand side is large, or nothing when row tiles serve it well.
///
/// Every row tile of a matmul reads the whole of B. Around a matmul of
/// fewer than 128 rows (`orchestra.fusion_root`, 8-row tiles) and a B larger
/// than a core's cache, the threads stream B from memory once per row tile:
/// ViT-B/32's 50x768 by 768x3072 feed-forward matmul, 7 row tiles, ran at a
/// quarter of oneDNN's rate. Tiled by columns instead, each thread computes
/// all rows of its share of the columns and reads only that share of B,
/// once; with fewer than 16 rows it is also the only way to use every core.
/// The columns are the threads' even shares, in whole 64-column blocks of
/// the strategy's step 2 (whole packed blocks of 128 when B is packed,
/// orchestra-cpu-pack-matmul-blocks, so that each cache block reads one).
std::optional<int64_t> selectColumnTile(linalg::LinalgOp root,
                                        int64_t threads) {
  constexpr int64_t kLargeRhsBytes = 512 * 1024;
  if (threads < 2 || root.getNumDpsInits() != 1)
    return std::nullopt;
  // The root computes the matmul's M x N result (the matmul itself, or its
  // bias and activation), its first two loops over the result's rows and
  // columns.
  AffineMap output = root.getMatchingIndexingMap(root.getDpsInitOperand(0));
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  if (ranges.size() < 2 || output.getNumResults() != 2 ||
      output.getResult(0) != getAffineDimExpr(0, root.getContext()) ||
      output.getResult(1) != getAffineDimExpr(1, root.getContext()) ||
      iterators[0] != utils::IteratorType::parallel ||
      iterators[1] != utils::IteratorType::parallel)
    return std::nullopt;
  auto func = root->getParentOfType<func::FuncOp>();
  linalg::MatmulOp matmul;
  bool several = false;
  func.walk([&](linalg::MatmulOp op) {
    several |= static_cast<bool>(matmul);
    matmul = op;
  });
  if (!matmul || several)
    return std::nullopt;
  int64_t blockColumns = orchestra::cpu::readsPackedBlocks(matmul)
                             ? orchestra::cpu::kPackedMatmulBlockColumns
                             : 64;
  SmallVector<int64_t> mnk = matmul.getStaticLoopRanges();
  if (mnk.size() != 3 || llvm::any_of(mnk, ShapedType::isDynamic) ||
      mnk[0] != ranges[0] || mnk[1] != ranges[1])
    return std::nullopt;
  int64_t columns = mnk[1];
  int64_t rhsBytes =
      mnk[1] * mnk[2] *
      static_cast<int64_t>(getElementTypeOrSelf(matmul.getDpsInputs()[1])
                               .getIntOrFloatBitWidth() /
                           8);
  if (rhsBytes < kLargeRhsBytes || columns < 2 * blockColumns * threads)
    return std::nullopt;
  return llvm::alignTo(llvm::divideCeil(columns, threads), blockColumns);
}

class CPUSelectTilesPass
    : public orchestra::cpu::impl::CPUSelectTilesBase<CPUSelectTilesPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    int64_t threads = 1;
    if (auto target = module->getAttrOfType<DictionaryAttr>(
            mlir::orchestra::attr::kTarget)) {
      if (auto count =
              dyn_cast_or_null<IntegerAttr>(target.get("num_threads"))) {
        threads = count.getInt();
        if (threads < 1) {
          module.emitError() << "num_threads " << threads << " is out of range";
          return signalPassFailure();
        }
      }
    }
    Builder builder(&getContext());
    module.walk([&](linalg::LinalgOp root) {
      if (root->hasAttr(orchestra::cpu::attr::kTileRows) ||
          root->hasAttr(orchestra::cpu::attr::kTileCols))
        return;
      // The step of a recurrent layer (tagged by orchestra-outline-tasks):
      // its state's columns shared evenly among the threads, in 32s.
      if (root->hasAttr(orchestra::cpu::attr::kRootCols)) {
        SmallVector<int64_t> ranges = root.getStaticLoopRanges();
        int64_t columns =
            ranges.size() == 2 && !ShapedType::isDynamic(ranges[1]) ? ranges[1]
                                                                    : 32;
        int64_t share = llvm::divideCeil(columns, threads);
        root->setAttr(orchestra::cpu::attr::kTileCols,
                      builder.getI64IntegerAttr(std::min<int64_t>(
                          columns, llvm::alignTo(share, 32))));
        return;
      }
      if (root->hasAttr(mlir::orchestra::attr::kFusionRoot)) {
        if (std::optional<int64_t> columns = selectColumnTile(root, threads)) {
          root->removeAttr(mlir::orchestra::attr::kFusionRoot);
          root->setAttr(orchestra::cpu::attr::kRootCols, builder.getUnitAttr());
          root->setAttr(orchestra::cpu::attr::kTileCols,
                        builder.getI64IntegerAttr(*columns));
          return;
        }
      }
      for (const RowTiling &tiling : kRowTilings) {
        if (!root->hasAttr(tiling.tag))
          continue;
        // (orchestra-outline-tasks tags only static first loops; the
        // script needs the attribute on every tagged root regardless.)
        SmallVector<int64_t> ranges = root.getStaticLoopRanges();
        if (ranges.empty() || ShapedType::isDynamic(ranges.front())) {
          root->setAttr(orchestra::cpu::attr::kTileRows,
                        builder.getI64IntegerAttr(tiling.nominal));
          return;
        }
        int64_t step = tiling.step;
        // Without register tiles, any number of rows makes a good tile.
        if (tiling.nominal == 8 && !hasRegisterTiledOp(root))
          step = 1;
        int64_t rows =
            selectTileRows(ranges.front(), threads, tiling.nominal, step);
        root->setAttr(orchestra::cpu::attr::kTileRows,
                      builder.getI64IntegerAttr(rows));
        return;
      }
    });
  }
};

} // namespace
