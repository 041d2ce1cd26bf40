//===- PadsToLinalg.cpp - tensor.pad as a linalg.generic for the GPU ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/Mappable.h"
#include "orchestra/Target/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra::gpucommon {
#define GEN_PASS_DEF_GPUPADSTOLINALG
#include "orchestra/Target/GPU/Passes.h.inc"
} // namespace mlir::orchestra::gpucommon

using namespace mlir;

/// The padded tensor `pad` computes, as a linalg.generic over its shape.
static Value buildPadAsGeneric(OpBuilder &builder, tensor::PadOp pad,
                               Value padValue) {
  Location loc = pad.getLoc();
  RankedTensorType resultType = pad.getResultType();
  RankedTensorType sourceType = pad.getSourceType();
  int64_t rank = resultType.getRank();
  Value init = tensor::EmptyOp::create(builder, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<AffineMap> maps = {builder.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  ArrayRef<int64_t> low = pad.getStaticLow();
  Value source = pad.getSource();
  auto generic = linalg::GenericOp::create(
      builder, loc, resultType, ValueRange{}, ValueRange{init}, maps, iterators,
      [&](OpBuilder &b, Location nested, ValueRange) {
        Value inside;
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d) {
          Value index = linalg::IndexOp::create(b, nested, d);
          Value shifted = arith::SubIOp::create(
              b, nested, index,
              arith::ConstantIndexOp::create(b, nested, low[d]));
          // Unsigned: a negative index (in the low padding) is out of range.
          Value inRange = arith::CmpIOp::create(
              b, nested, arith::CmpIPredicate::ult, shifted,
              arith::ConstantIndexOp::create(b, nested,
                                             sourceType.getDimSize(d)));
          inside = inside ? arith::AndIOp::create(b, nested, inside, inRange)
                          : inRange;
          indices.push_back(arith::SelectOp::create(
              b, nested, inRange, shifted,
              arith::ConstantIndexOp::create(b, nested, 0)));
        }
        Value element = tensor::ExtractOp::create(b, nested, source, indices);
        Value result = inside ? arith::SelectOp::create(b, nested, inside,
                                                        element, padValue)
                                    .getResult()
                              : element;
        linalg::YieldOp::create(b, nested, result);
      });
  return generic.getResult(0);
}

namespace {
class GPUPadsToLinalgPass
    : public orchestra::gpucommon::impl::GPUPadsToLinalgBase<
          GPUPadsToLinalgPass> {
public:
  void runOnOperation() override {
    SmallVector<tensor::PadOp> pads;
    getOperation().walk([&](tensor::PadOp pad) { pads.push_back(pad); });
    for (tensor::PadOp pad : pads) {
      Value padValue = orchestra::gpucommon::getConstantPadValue(pad);
      if (!padValue)
        continue;
      OpBuilder builder(pad);
      pad.getResult().replaceAllUsesWith(
          buildPadAsGeneric(builder, pad, padValue));
      pad.erase();
    }
  }
};
} // namespace
