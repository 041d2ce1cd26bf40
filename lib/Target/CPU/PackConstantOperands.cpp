//===- PackConstantOperands.cpp - Layouts of constant kernel operands -----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The x86_64 constant-layout passes: a kernel argument is read through a
// `linalg.unpack` of the layout its kernel computes best from, which
// orchestra-hoist-constant-layouts makes at compile time when the plan
// passes a constant (the weights):
//
//   * orchestra-cpu-pack-int8-operands: the filters of the VNNI path's
//     convolutions and matmuls with four input channels innermost (design
//     note 0018, decision 4), the layout `vpdpbusd` multiplies;
//   * orchestra-cpu-pack-matmul-blocks: the B of a float matmul as the
//     cache blocks the strategy's register tiles read (design note 0020).
//
//===----------------------------------------------------------------------===//

#include "Int8Dot.h"
#include "PackedMatmul.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::orchestra::cpu {
#define GEN_PASS_DEF_CPUPACKINT8OPERANDS
#define GEN_PASS_DEF_CPUPACKMATMULBLOCKS
#include "orchestra/Target/CPU/Passes.h.inc"
} // namespace mlir::orchestra::cpu

using namespace mlir;
using namespace mlir::orchestra;

/// The dimension of `argument` that holds the input channels (the rows of
/// B) when every use of it is the filter of an 8-bit contraction of the
/// VNNI path, all of one kind; none otherwise.
static std::optional<int64_t> getPackedDimension(BlockArgument argument) {
  auto type = dyn_cast<RankedTensorType>(argument.getType());
  if (!type || !type.hasStaticShape() || argument.use_empty())
    return std::nullopt;
  std::optional<int64_t> dimension;
  for (OpOperand &use : argument.getUses()) {
    auto op = dyn_cast<linalg::LinalgOp>(use.getOwner());
    if (!op || !cpu::isInt8Contraction(op) || use.getOperandNumber() != 1 ||
        !op.hasPureTensorSemantics())
      return std::nullopt;
    int64_t useDimension = isa<linalg::MatmulOp>(op.getOperation()) ? 0 : 2;
    if (dimension && *dimension != useDimension)
      return std::nullopt;
    dimension = useDimension;
  }
  return dimension;
}

/// Reads `argument` through `unpack(pack(argument))`, with the pack marked
/// as a layout request: dimensions `positions` tiled by `tiles` (zero-padded
/// where a tile is partial), the outer dimensions in the order `outerPerm`.
static void requestPackedLayout(BlockArgument argument,
                                ArrayRef<int64_t> positions,
                                ArrayRef<int64_t> tiles,
                                ArrayRef<int64_t> outerPerm = {}) {
  auto type = cast<RankedTensorType>(argument.getType());
  Location loc = argument.getLoc();
  OpBuilder builder = OpBuilder::atBlockBegin(argument.getOwner());
  SmallVector<OpFoldResult> tileSizes =
      llvm::map_to_vector(tiles, [&](int64_t tile) -> OpFoldResult {
        return builder.getIndexAttr(tile);
      });
  // Padding elements are zeros, which add nothing to the sums.
  std::optional<Value> padding;
  if (llvm::any_of(llvm::zip(positions, tiles), [&](auto positionAndTile) {
        auto [position, tile] = positionAndTile;
        return type.getDimSize(position) % tile != 0;
      }))
    padding = arith::ConstantOp::create(
        builder, loc, builder.getZeroAttr(type.getElementType()));
  Value packedInit = linalg::PackOp::createDestinationTensor(
      builder, loc, argument, tileSizes, positions, outerPerm);
  auto pack = linalg::PackOp::create(builder, loc, argument, packedInit,
                                     positions, tileSizes, padding, outerPerm);
  pack->setAttr(attr::kConstantLayout, builder.getUnitAttr());
  Value init = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                       type.getElementType());
  auto unpack = linalg::UnPackOp::create(builder, loc, pack.getResult(), init,
                                         positions, tileSizes, outerPerm);
  argument.replaceAllUsesExcept(unpack.getResult(), pack);
}

namespace {
class CPUPackInt8OperandsPass
    : public orchestra::cpu::impl::CPUPackInt8OperandsBase<
          CPUPackInt8OperandsPass> {
public:
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (cpu::getInt8DotWidth(module) == 0)
      return;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      for (BlockArgument argument : func.getArguments())
        if (std::optional<int64_t> dimension = getPackedDimension(argument))
          requestPackedLayout(argument, {*dimension}, {4});
    }
  }
};
} // namespace

/// The cache blocks of B (columns x rows of K) of the strategy's variant
/// `cpu::kPackedMatmulVariant`, the layout its register tiles read.
static constexpr int64_t kBlockColumns = cpu::kPackedMatmulBlockColumns;
static constexpr int64_t kBlockDepth = cpu::kPackedMatmulBlockDepth;
/// Fewer rows than this are not row-tiled matmuls (one-row roots stream B
/// by rows instead, design note 0020).
static constexpr int64_t kMinRows = 16;
/// The most the zero padding of partial blocks may add to B, in parts of
/// its size (a K of 784 padded to 1024 would add 31%).
static constexpr double kMaxPaddingFraction = 0.25;

/// Whether every use of `argument` is the B of an f32 matmul that the
/// strategy can tile in packed blocks: row-major, static, at least
/// kMinRows rows, at least one whole block, and not much padding.
static bool isPackableMatmulRhs(BlockArgument argument) {
  auto type = dyn_cast<RankedTensorType>(argument.getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape() ||
      !type.getElementType().isF32() || argument.use_empty())
    return false;
  int64_t depth = type.getDimSize(0), columns = type.getDimSize(1);
  int64_t padded =
      llvm::alignTo(depth, kBlockDepth) * llvm::alignTo(columns, kBlockColumns);
  if (depth < kBlockDepth || columns < kBlockColumns ||
      padded > (1.0 + kMaxPaddingFraction) * depth * columns)
    return false;
  return llvm::all_of(argument.getUses(), [](OpOperand &use) {
    auto matmul = dyn_cast<linalg::MatmulOp>(use.getOwner());
    if (!matmul || use.getOperandNumber() != 1 ||
        !matmul.hasPureTensorSemantics() ||
        !linalg::MatmulOp::isDefaultIndexingMaps(matmul.getIndexingMapsAttr()))
      return false;
    SmallVector<int64_t> mnk = matmul.getStaticLoopRanges();
    return !ShapedType::isDynamic(mnk[0]) && mnk[0] >= kMinRows;
  });
}

namespace {
class CPUPackMatmulBlocksPass
    : public orchestra::cpu::impl::CPUPackMatmulBlocksBase<
          CPUPackMatmulBlocksPass> {
public:
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      // [N / NC, K / KC, KC, NC] (rounded up, zero-padded): each block's
      // rows of NC columns are contiguous, and a column block's blocks
      // follow each other.
      for (BlockArgument argument : func.getArguments())
        if (isPackableMatmulRhs(argument))
          requestPackedLayout(argument, {0, 1}, {kBlockDepth, kBlockColumns},
                              {1, 0});
    }
  }
};
} // namespace
