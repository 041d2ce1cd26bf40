//===- PackInt8Operands.cpp - Dot-product layout of 8-bit filters ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Asks for the filters of the VNNI path's convolutions and matmuls with four
// input channels innermost (design note 0018, decision 4): the layout
// `vpdpbusd` multiplies, which orchestra-hoist-constant-layouts makes at
// compile time when the filter is a constant.
//
//===----------------------------------------------------------------------===//

#include "Int8Dot.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::orchestra::cpu {
#define GEN_PASS_DEF_CPUPACKINT8OPERANDS
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
/// as a layout request.
static void requestPackedLayout(BlockArgument argument, int64_t dimension) {
  auto type = cast<RankedTensorType>(argument.getType());
  Location loc = argument.getLoc();
  OpBuilder builder = OpBuilder::atBlockBegin(argument.getOwner());
  SmallVector<OpFoldResult> tiles = {builder.getIndexAttr(4)};
  SmallVector<int64_t> positions = {dimension};
  // Channels that are not a multiple of four are padded with zeros, which
  // add nothing to the sums.
  std::optional<Value> padding;
  if (type.getDimSize(dimension) % 4 != 0)
    padding = arith::ConstantOp::create(
        builder, loc, builder.getZeroAttr(type.getElementType()));
  Value packedInit = linalg::PackOp::createDestinationTensor(
      builder, loc, argument, tiles, positions, /*outerDimsPerm=*/{});
  auto pack = linalg::PackOp::create(builder, loc, argument, packedInit,
                                     positions, tiles, padding);
  pack->setAttr(attr::kConstantLayout, builder.getUnitAttr());
  Value init = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                       type.getElementType());
  auto unpack = linalg::UnPackOp::create(builder, loc, pack.getResult(), init,
                                         positions, tiles);
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
          requestPackedLayout(argument, *dimension);
    }
  }
};
} // namespace
