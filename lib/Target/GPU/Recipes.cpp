//===- Recipes.cpp - The strategy recipes the GPU backends share ----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/Recipes.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/GPU/AttrNames.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::orchestra;

/// The block tile of SIMT ops with two leading parallel loops
/// (@gpu_blocks_p2 in gpu_common.mlir).
static constexpr int64_t kSimtBlockM = 32;
static constexpr int64_t kSimtBlockN = 64;

static bool isFusionRoot(Operation *op) {
  return llvm::any_of(op->getAttrs(), [](NamedAttribute attr) {
    return attr.getName().getValue().starts_with(attr::kFusionRoot);
  });
}

void gpucommon::splitEmptyTensors(func::FuncOp func) {
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

void gpucommon::detachUnreadInits(func::FuncOp func) {
  func.walk([](linalg::LinalgOp op) {
    if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() != 0)
      return;
    for (OpOperand &init : op.getDpsInitsMutable()) {
      auto type = dyn_cast<RankedTensorType>(init.get().getType());
      bool alsoInput = llvm::is_contained(op.getDpsInputs(), init.get());
      if (!type || !type.hasStaticShape() || !alsoInput ||
          op.payloadUsesValueFromOperand(&init))
        continue;
      OpBuilder builder(op);
      init.set(tensor::EmptyOp::create(builder, op.getLoc(), type.getShape(),
                                       type.getElementType()));
    }
  });
}

Operation *
gpucommon::findFusionRoot(func::FuncOp func,
                          SmallVectorImpl<linalg::MatmulOp> *matmuls) {
  Operation *root = nullptr;
  func.walk([&](Operation *op) {
    bool isRoot = isFusionRoot(op);
    if (isRoot)
      root = op;
    if (!matmuls || (!op->hasAttr(orchestra::attr::kFusionProducer) && !isRoot))
      return;
    if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
      matmuls->push_back(matmul);
  });
  return root;
}

bool gpucommon::hasOtherFills(func::FuncOp func,
                              ArrayRef<linalg::MatmulOp> matmuls) {
  bool other = false;
  func.walk([&](linalg::FillOp fill) {
    if (fill->hasAttr(orchestra::attr::kFusionProducer) &&
        !llvm::any_of(matmuls, [&](linalg::MatmulOp matmul) {
          return matmul.getOutputs()[0].getDefiningOp() == fill;
        }))
      other = true;
  });
  return other;
}

bool gpucommon::getPlainMatmulTypes(linalg::MatmulOp matmul,
                                    RankedTensorType &lhs,
                                    RankedTensorType &rhs,
                                    RankedTensorType &out) {
  if (matmul.getIndexingMapsArray() !=
      linalg::MatmulOp::getDefaultIndexingMaps(matmul.getContext()))
    return false;
  lhs = dyn_cast<RankedTensorType>(matmul.getInputs()[0].getType());
  rhs = dyn_cast<RankedTensorType>(matmul.getInputs()[1].getType());
  out = dyn_cast<RankedTensorType>(matmul.getOutputs()[0].getType());
  return lhs && rhs && out && lhs.hasStaticShape() && rhs.hasStaticShape() &&
         out.hasStaticShape();
}

bool gpucommon::isEpilogueOf(linalg::LinalgOp root, linalg::MatmulOp matmul) {
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

/// The largest tile of at most `max` that divides `size` and is at least
/// half of `max` (or `size` itself when it is smaller than `max`).
static std::optional<int64_t> getDividingTile(int64_t size, int64_t max) {
  if (size <= max)
    return size;
  for (int64_t tile = max; tile * 2 >= max; --tile)
    if (size % tile == 0)
      return tile;
  return std::nullopt;
}

/// Gives a SIMT op with three or more leading parallel loops (NHWC
/// convolutions and pools, batched matmuls, 3-D and 4-D elementwise ops),
/// or two and a reduction (matmuls and matrix-vector products whose
/// shapes the 4x2 thread tiles of @gpu_threads_p2 do not divide),
/// block tiles that divide its shape, when there are such tiles near the
/// strategy's 8x32 (@gpu_blocks_static_p4/_p3/_p2, one thread per
/// element of the tile's last two loops): `orchestra.gpu_block_rows`
/// and `orchestra.gpu_block_cols` for the last two of those loops (7 rows
/// for a 7, 14 or 28 wide image, for example). Every block's tile is
/// then static, and so is every thread's: its reductions keep their
/// accumulators in registers (@gpu_private_accumulators).
static void markStaticBlocks(linalg::LinalgOp op) {
  // (Ops of several results keep the dynamic thread tiles whose unused
  // accumulators orchestra-gpu-workgroup-allocations makes private.)
  if (op->hasAttr(gpucommon::attr::kMma) ||
      op->hasAttr(gpucommon::attr::kSimtKLoop) ||
      !op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      op.getNumDpsInits() != 1)
    return;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t leading = 0;
  while (leading < static_cast<int64_t>(iterators.size()) &&
         iterators[leading] == utils::IteratorType::parallel)
    ++leading;
  // Two leading parallel loops: only for reductions (matmul-like ops
  // whose thread tiles would otherwise be dynamic, a matrix-vector
  // product), in blocks of at most 8x32, one thread per output element.
  bool reduces = op.getNumReductionLoops() > 0;
  if (leading < 2 || (leading == 2 && !reduces))
    return;
  // The loops the block tile's rows and columns cover: the third and
  // fourth of four leading parallel loops, the second and third of
  // three, the first and second of two.
  int64_t first = leading >= 4 ? 2 : leading - 2;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  std::optional<int64_t> rows = getDividingTile(ranges[first], 8);
  std::optional<int64_t> cols = getDividingTile(ranges[first + 1], 32);
  if (!rows || !cols)
    return;
  Builder builder(op.getContext());
  op->setAttr(gpucommon::attr::kBlockRows, builder.getI64IntegerAttr(*rows));
  op->setAttr(gpucommon::attr::kBlockCols, builder.getI64IntegerAttr(*cols));
}

/// Marks a SIMT matmul whose thread tiles are static
/// (`orchestra.gpu_simt_k_loop`) with the K step of its thread-level K
/// loop (`orchestra.gpu_simt_k_tile`): the strategy then steps through K 8
/// (or 4, 2) at a time with each thread's 4x2 accumulators in registers,
/// instead of reading and writing them in memory at every multiply-add. Its
/// block tiles of 32x64 over 8x32 threads (@gpu_blocks_p2,
/// @gpu_threads_p2) are static when they divide M and N.
static void markSimtKLoop(linalg::MatmulOp matmul) {
  if (matmul->hasAttr(gpucommon::attr::kMma))
    return;
  RankedTensorType lhs, rhs, out;
  if (!gpucommon::getPlainMatmulTypes(matmul, lhs, rhs, out))
    return;
  Type element = out.getElementType();
  if (!element.isF32() || lhs.getElementType() != element ||
      rhs.getElementType() != element)
    return;
  int64_t m = out.getDimSize(0), n = out.getDimSize(1), k = lhs.getDimSize(1);
  if (m % kSimtBlockM != 0 || n % kSimtBlockN != 0)
    return;
  Builder builder(matmul.getContext());
  for (int64_t step : {8, 4, 2}) {
    if (k % step != 0 || k < 2 * step)
      continue;
    matmul->setAttr(gpucommon::attr::kSimtKLoop, builder.getUnitAttr());
    matmul->setAttr(gpucommon::attr::kSimtKTile,
                    builder.getI64IntegerAttr(step));
    return;
  }
}

void gpucommon::markSimtRecipe(func::FuncOp func, Operation *root) {
  root->setAttr(attr::kRecipe, StringAttr::get(func.getContext(), "simt"));
  func.walk([&](linalg::MatmulOp matmul) { markSimtKLoop(matmul); });
  func.walk([&](linalg::LinalgOp op) { markStaticBlocks(op); });
}
