//===- GroupedConvolution.cpp - Channels-last grouped convolutions --------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Utils/GroupedConvolution.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

SmallVector<AffineMap>
orchestra::getGroupedConvolutionNhwcMaps(MLIRContext *context,
                                         ArrayRef<int64_t> strides,
                                         ArrayRef<int64_t> dilations) {
  assert(strides.size() == 2 && dilations.size() == 2 &&
         "a 2-D convolution has two strides and two dilations");
  AffineExpr n, oh, ow, g, f, kh, kw, c;
  bindDims(context, n, oh, ow, g, f, kh, kw, c);
  auto map = [&](ArrayRef<AffineExpr> results) {
    return AffineMap::get(8, 0, results, context);
  };
  return {map({n, oh * strides[0] + kh * dilations[0],
               ow * strides[1] + kw * dilations[1], g, c}),
          map({g, kh, kw, c, f}), map({n, oh, ow, g, f})};
}

/// Whether `block` (of a structured op with operands in, filter, out)
/// computes out + in * filter, in either operand order, without casts.
static bool isMultiplyAccumulate(Block &block) {
  if (block.getNumArguments() != 3 || block.getOperations().size() != 3)
    return false;
  Operation *mul = &block.front();
  Operation *add = mul->getNextNode();
  auto yield = dyn_cast<linalg::YieldOp>(block.getTerminator());
  if (!isa<arith::MulFOp, arith::MulIOp>(mul) ||
      !isa<arith::AddFOp, arith::AddIOp>(add) || !yield ||
      yield->getNumOperands() != 1 || yield->getOperand(0) != add->getResult(0))
    return false;
  if (isa<arith::MulFOp>(mul) != isa<arith::AddFOp>(add))
    return false;
  Value in = block.getArgument(0), filter = block.getArgument(1),
        out = block.getArgument(2);
  auto isPair = [](Operation *op, Value a, Value b) {
    return (op->getOperand(0) == a && op->getOperand(1) == b) ||
           (op->getOperand(0) == b && op->getOperand(1) == a);
  };
  return isPair(mul, in, filter) && isPair(add, out, mul->getResult(0));
}

std::optional<orchestra::GroupedConvolutionNhwc>
orchestra::matchGroupedConvolutionNhwc(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumDpsInits() != 1 || generic.getNumLoops() != 8)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  for (auto [i, iterator] : llvm::enumerate(iterators))
    if ((iterator == utils::IteratorType::parallel) != (i < 5))
      return std::nullopt;
  SmallVector<Type> elementTypes;
  for (Value operand : generic->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || type.getRank() != 5)
      return std::nullopt;
    elementTypes.push_back(type.getElementType());
  }
  if (elementTypes[0] != elementTypes[1] || elementTypes[0] != elementTypes[2])
    return std::nullopt;
  FailureOr<linalg::ConvolutionDimensions> dims =
      linalg::inferConvolutionDims(op);
  if (failed(dims) || dims->strides.size() != 2 || dims->dilations.size() != 2)
    return std::nullopt;
  if (generic.getIndexingMapsArray() !=
      getGroupedConvolutionNhwcMaps(op.getContext(), dims->strides,
                                    dims->dilations))
    return std::nullopt;
  if (!isMultiplyAccumulate(*generic.getBlock()))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  return GroupedConvolutionNhwc{ranges[3], ranges[7], ranges[4],
                                SmallVector<int64_t, 2>(dims->strides),
                                SmallVector<int64_t, 2>(dims->dilations)};
}

bool orchestra::isGroupedConvolutionResult(Value value) {
  // (A bounded walk: activations are a few ops deep.)
  for (int depth = 0; depth < 8; ++depth) {
    auto op = value.getDefiningOp<linalg::LinalgOp>();
    if (!op)
      return false;
    if (matchGroupedConvolutionNhwc(op))
      return true;
    if (op.getNumDpsInits() != 1 ||
        op.getNumParallelLoops() != op.getNumLoops())
      return false;
    // (getDpsInputOperands() returns a new vector: keep it while its
    // iterators live.)
    SmallVector<OpOperand *> inputs = op.getDpsInputOperands();
    auto grouped = llvm::find_if(inputs, [](OpOperand *in) {
      auto type = dyn_cast<RankedTensorType>(in->get().getType());
      return type && type.getRank() == 5;
    });
    if (grouped == inputs.end())
      return false;
    value = (*grouped)->get();
  }
  return false;
}

bool orchestra::isConvolutionOp(Operation *op) {
  if (isa<linalg::ConvolutionOpInterface>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && matchGroupedConvolutionNhwc(linalgOp).has_value();
}
