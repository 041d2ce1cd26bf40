//===- TagTiling.cpp - The x86_64 strategy's tiling tags ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "Int8Dot.h"
#include "PackedMatmul.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/Utils/GroupedConvolution.h"
#include "orchestra/Dialect/Orchestra/Utils/Tiling.h"
#include "orchestra/Target/CPU/AttrNames.h"
#include "orchestra/Target/CPU/CPUDescription.h"
#include "orchestra/Target/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra::cpu {
#define GEN_PASS_DEF_CPUTAGTILING
#include "orchestra/Target/CPU/Passes.h.inc"
} // namespace mlir::orchestra::cpu

using namespace mlir;
using namespace mlir::orchestra;

/// Returns the tag of the x86_64 strategy's tiling for `root`, a fusion root
/// at the top level of its kernel whose producers are `slice`, or an empty
/// string when no parallel loop of it can be tiled.
static StringRef getFusionRootTag(linalg::LinalgOp root,
                                  ArrayRef<Operation *> slice) {
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  auto parallelDim = [&](unsigned dim) {
    return isTileableParallelLoop(root, dim);
  };
  // A task around a convolution is tiled wider along its second dimension
  // (output channels), which its vectorized form uses as vector lanes.
  bool hasConvolution =
      isConvolutionOp(root) || llvm::any_of(slice, isConvolutionOp);
  // A task around a matmul with many rows gets wider parallel tiles, whose
  // rows reuse each block of the right-hand side from the cache.
  // With many rows (1024 or more), twice as wide again.
  auto hasMatmulOfRows = [&](int64_t rows) {
    auto isLarge = [&](Operation *op) {
      auto matmul = dyn_cast<linalg::MatmulOp>(op);
      if (!matmul)
        return false;
      SmallVector<int64_t> loops = matmul.getStaticLoopRanges();
      // (kDynamic asks for a matmul of dynamic rows.)
      if (ShapedType::isDynamic(rows))
        return loops.size() == 3 && ShapedType::isDynamic(loops[0]);
      return loops.size() == 3 && loops[0] >= rows;
    };
    return isLarge(root) || llvm::any_of(slice, isLarge);
  };
  // A task around a channels-last convolution or pooling whose output (N = 1,
  // H, W, C) the root shares is tiled by output rows, or by rows and 16
  // channels when there are too few rows to share among the cores.
  // With fewer rows, a task around a dense convolution whose channels come
  // in 32s is tiled by 32 channels over all rows: a row tile would read the
  // whole filter, which for these deep layers is larger than the cache.
  SmallVector<Operation *> rootAndSlice = {root.getOperation()};
  llvm::append_range(rootAndSlice, slice);
  // (Its shape: an 8-bit convolution's i32 sums are requantized to the
  // root's 8 bits.)
  auto sharesRootOutput = [&](Operation *op) {
    auto type = dyn_cast<ShapedType>(op->getResult(0).getType());
    auto rootType = dyn_cast<ShapedType>(root->getResult(0).getType());
    return type && rootType && type.getShape() == rootType.getShape();
  };
  auto isGroupedConvolution = [](Operation *op) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    return linalgOp && matchGroupedConvolutionNhwc(linalgOp).has_value();
  };
  bool groupedConvolution = llvm::any_of(rootAndSlice, [&](Operation *op) {
    return isGroupedConvolution(op) && sharesRootOutput(op);
  });
  bool channelsLastConvolution =
      groupedConvolution || llvm::any_of(rootAndSlice, [&](Operation *op) {
        return isa<linalg::Conv2DNhwcHwcfOp, linalg::DepthwiseConv2DNhwcHwcOp,
                   linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcSumOp>(op) &&
               sharesRootOutput(op);
      });
  bool denseChannelsLastConvolution =
      llvm::any_of(rootAndSlice, [&](Operation *op) {
        return isa<linalg::Conv2DNhwcHwcfOp>(op) && sharesRootOutput(op);
      });
  // The same for 3-D convolutions and poolings ([N, D, H, W, C]): the rows
  // are those of every output depth.
  bool channelsLast3D = llvm::any_of(rootAndSlice, [&](Operation *op) {
    return isa<linalg::Conv3DNdhwcDhwcfOp, linalg::DepthwiseConv3DNdhwcDhwcOp,
               linalg::PoolingNdhwcMaxOp, linalg::PoolingNdhwcSumOp>(op) &&
           sharesRootOutput(op);
  });
  bool dense3D = llvm::any_of(rootAndSlice, [&](Operation *op) {
    return isa<linalg::Conv3DNdhwcDhwcfOp>(op) && sharesRootOutput(op);
  });
  // (The first four loops of a convolution or pooling are those of its
  // output; a grouped one's fourth is its groups, [N, OH, OW, G, M/G].
  // A 3-D one's first five are its output's.)
  if (channelsLast3D && ranges.size() >= 5 && ranges[0] == 1 &&
      iterators[1] == utils::IteratorType::parallel &&
      iterators[2] == utils::IteratorType::parallel &&
      !ShapedType::isDynamic(ranges[1]) && !ShapedType::isDynamic(ranges[2])) {
    if (ranges[1] * ranges[2] >= 14)
      return cpu::attr::kRootNdhwcRows;
    if (dense3D && parallelDim(4) && ranges[4] % 32 == 0)
      return cpu::attr::kRootNdhwcChannels;
    return cpu::attr::kRootNdhwcRowsChannels;
  }
  // (A dynamic batch, design/0017, is tiled by one image, and each tile by
  // the rows, channels or groups of a batch of one: the tiles' shapes are
  // static.)
  bool oneImage = ranges.size() >= 4 &&
                  (ranges[0] == 1 || ShapedType::isDynamic(ranges[0]));
  if (channelsLastConvolution && oneImage && parallelDim(1)) {
    if (ranges[1] >= 14)
      return cpu::attr::kRootNhwcRows;
    if (groupedConvolution && parallelDim(3) && ranges[3] >= 4)
      return cpu::attr::kRootNhwcGroups;
    if (denseChannelsLastConvolution && parallelDim(3) && ranges[3] % 32 == 0)
      return cpu::attr::kRootNhwcChannels;
    return cpu::attr::kRootNhwcRowsChannels;
  }
  if (parallelDim(0) && ranges[0] >= 1024 && hasMatmulOfRows(1024))
    return cpu::attr::kRootTall;
  if (parallelDim(0) && ranges[0] >= 128 && hasMatmulOfRows(128))
    return cpu::attr::kRootWide;
  // Rows of a dynamic size (design/0017) are tiled as many rows are.
  if (parallelDim(0) && ShapedType::isDynamic(ranges[0]) &&
      hasMatmulOfRows(ShapedType::kDynamic))
    return cpu::attr::kRootWide;
  // A first loop too short for two 8-row tiles (the heads of an attention
  // softmax) is tiled by one, unless a matmul needs the rows for its
  // register tiles.
  if (parallelDim(0) && ranges[0] >= 2 && ranges[0] < 16 && !hasMatmulOfRows(1))
    return cpu::attr::kRootShort;
  // A dynamic first loop over 3-D or larger work (the batch of heads of an
  // attention, design/0017) is tiled by one too: its count may be as short.
  if (parallelDim(0) && ShapedType::isDynamic(ranges[0]) &&
      ranges.size() >= 3 && !hasMatmulOfRows(1))
    return cpu::attr::kRootShort;
  if (parallelDim(0))
    return attr::kFusionRoot;
  if (ranges.size() >= 2 && ranges[0] == 1 && parallelDim(1))
    return hasConvolution ? cpu::attr::kRootD1Conv : cpu::attr::kRootD1;
  return "";
}

/// Replaces the `orchestra.fusion_root` tag of `func`'s fusion root by the
/// tag of its tiling.
static void tagFusionRoot(func::FuncOp func) {
  Operation *root = nullptr;
  func.walk([&](Operation *op) {
    if (!op->hasAttr(attr::kFusionRoot))
      return WalkResult::advance();
    root = op;
    return WalkResult::interrupt();
  });
  if (!root)
    return;
  MLIRContext *ctx = func.getContext();
  // The step of a loop over time (a recurrent layer) is tiled by the
  // state's columns across the cores, with the step's matmuls fused in
  // (each core reads its share of the recurrent weights at every step, and
  // keeps it in its cache).
  if (root->getParentOp() != func.getOperation()) {
    root->removeAttr(attr::kFusionRoot);
    root->setAttr(cpu::attr::kRootCols, UnitAttr::get(ctx));
    return;
  }
  auto linalgRoot = dyn_cast<linalg::LinalgOp>(root);
  if (!linalgRoot)
    return;
  SmallVector<Operation *> slice;
  for (Operation &op : func.getBody().front())
    if (op.hasAttr(attr::kFusionProducer))
      slice.push_back(&op);
  StringRef tag = getFusionRootTag(linalgRoot, slice);
  if (tag.empty())
    return;
  root->removeAttr(attr::kFusionRoot);
  root->setAttr(tag, UnitAttr::get(ctx));
}

int64_t cpu::getInt8DotWidth(ModuleOp module) {
  std::string error;
  FailureOr<cpu::CPUDescription> description = cpu::CPUDescription::get(
      module->getAttrOfType<DictionaryAttr>(orchestra::attr::kTarget), "", "",
      error);
  // An unknown CPU is reported where the binary is emitted.
  if (failed(description))
    return 0;
  if (description->hasFeature("avx512vnni") &&
      description->hasFeature("avx512bw"))
    return 512;
  if (description->hasFeature("avxvnni") ||
      (description->hasFeature("avx512vnni") &&
       description->hasFeature("avx512vl")))
    return 256;
  return 0;
}

bool cpu::isInt8Contraction(linalg::LinalgOp op) {
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation())) {
    if (!linalg::MatmulOp::isDefaultIndexingMaps(
            matmul.getIndexingMapsAttr()) ||
        matmul.getCast() != linalg::TypeFn::cast_signed)
      return false;
  } else if (!isa<linalg::Conv2DNhwcHwcfOp>(op)) {
    return false;
  }
  auto elementType = [](Value value) {
    return cast<ShapedType>(value.getType()).getElementType();
  };
  return op.getNumDpsInputs() == 2 &&
         elementType(op.getDpsInputs()[0]).isInteger(8) &&
         elementType(op.getDpsInputs()[1]).isInteger(8) &&
         elementType(op.getDpsInits()[0]).isInteger(32);
}

/// Tags channels-last convolutions with the width of their register tiles
/// (`orchestra.conv_channels_32` or `_16`): 32 output channels, unless that
/// leaves a remainder that is not a power of two (24 of MobileNetV2's 24
/// channels), which LLVM splits into vectors badly; 16-channel tiles leave
/// one vector (8) instead. For a grouped convolution, the width is that of
/// one group's output channels: the strategy computes it one group at a
/// time, as dense convolutions that keep the tag. A 3-D convolution keeps
/// its tag too when the strategy rewrites each of its depth slices as a 2-D
/// one. A 2-D 8-bit convolution or matmul (i8 x i8 -> i32) on a CPU with
/// VNNI is tagged `orchestra.int8_dot` with the vector width instead: the
/// strategy computes its register tiles with dot-product instructions.
static void tagConvolutionTiles(func::FuncOp func,
                                llvm::function_ref<int64_t()> int8DotWidth) {
  MLIRContext *ctx = func.getContext();
  auto tagWidth = [&](Operation *conv, int64_t channels) {
    int64_t remainder = channels % 32;
    bool narrow = !ShapedType::isDynamic(channels) && remainder != 0 &&
                  !llvm::isPowerOf2_64(remainder);
    conv->setAttr(narrow ? cpu::attr::kConvChannels16
                         : cpu::attr::kConvChannels32,
                  UnitAttr::get(ctx));
  };
  func.walk([&](linalg::LinalgOp op) {
    if (cpu::isInt8Contraction(op))
      if (int64_t width = int8DotWidth()) {
        op->setAttr(cpu::attr::kInt8Dot,
                    IntegerAttr::get(IntegerType::get(ctx, 64), width));
        return;
      }
    if (isa<linalg::Conv2DNhwcHwcfOp, linalg::Conv3DNdhwcDhwcfOp>(op)) {
      auto output = cast<ShapedType>(op.getDpsInitOperand(0)->get().getType());
      tagWidth(op, output.getShape().back());
      return;
    }
    if (std::optional<GroupedConvolutionNhwc> grouped =
            matchGroupedConvolutionNhwc(op))
      tagWidth(op, grouped->outputChannels);
  });
}

/// Gives each matmul whose B is packed in cache blocks at compile time
/// (orchestra-cpu-pack-matmul-blocks) the variant whose blocks they are,
/// over any other (a tuning cache's names blocks of B as it is).
static void tagPackedMatmuls(func::FuncOp func) {
  func.walk([&](linalg::MatmulOp matmul) {
    if (cpu::readsPackedBlocks(matmul))
      matmul->setAttr(
          mlir::orchestra::attr::kTileVariant,
          StringAttr::get(func.getContext(), cpu::kPackedMatmulVariant));
  });
}

namespace {
class CPUTagTilingPass
    : public orchestra::cpu::impl::CPUTagTilingBase<CPUTagTilingPass> {
public:
  void runOnOperation() override {
    std::optional<int64_t> int8DotWidth;
    auto getWidth = [&] {
      if (!int8DotWidth)
        int8DotWidth = cpu::getInt8DotWidth(getOperation());
      return *int8DotWidth;
    };
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      tagFusionRoot(func);
      tagConvolutionTiles(func, getWidth);
      tagPackedMatmuls(func);
    }
  }
};
} // namespace
