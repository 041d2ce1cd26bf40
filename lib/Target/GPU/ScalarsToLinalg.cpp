//===- ScalarsToLinalg.cpp - Scalar chains as 0-d kernels -----------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/Mappable.h"
#include "orchestra/Target/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir::orchestra::gpucommon {
#define GEN_PASS_DEF_GPUSCALARSTOLINALG
#include "orchestra/Target/GPU/Passes.h.inc"
} // namespace mlir::orchestra::gpucommon

using namespace mlir;

/// The element a 0-d `tensor.extract` reads, or null.
static Value getScalarSource(Operation *op) {
  auto extract = dyn_cast_or_null<tensor::ExtractOp>(op);
  return extract && extract.getTensor().getType().getRank() == 0
             ? extract.getTensor()
             : Value();
}

/// Collects the chain that computes `value` in the order to clone it: the
/// scalar ops and constants, and the 0-d tensors it reads. Fails on
/// anything else (a block argument, an op with regions).
static LogicalResult collectChain(Value value,
                                  llvm::SetVector<Operation *> &chain,
                                  llvm::SetVector<Value> &inputs) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return failure();
  if (Value tensor = getScalarSource(def)) {
    inputs.insert(tensor);
    return success();
  }
  if (chain.contains(def))
    return success();
  if (def->getNumRegions() != 0 || def->getNumResults() != 1 ||
      !isa<arith::ArithDialect, math::MathDialect>(def->getDialect()))
    return failure();
  for (Value operand : def->getOperands())
    if (failed(collectChain(operand, chain, inputs)))
      return failure();
  chain.insert(def);
  return success();
}

/// A 0-d `linalg.generic` computing `value` (a scalar chain) at `builder`'s
/// point, or null when `value` is not one.
static Value buildScalarKernel(OpBuilder &builder, Location loc, Value value) {
  // The element of a 0-d tensor, put back into one: that tensor.
  if (Value tensor = getScalarSource(value.getDefiningOp()))
    return tensor;
  llvm::SetVector<Operation *> chain;
  llvm::SetVector<Value> inputs;
  if (failed(collectChain(value, chain, inputs)))
    return nullptr;
  MLIRContext *ctx = builder.getContext();
  Type element = value.getType();
  auto type = RankedTensorType::get({}, element);
  Value init = tensor::EmptyOp::create(builder, loc, type.getShape(), element);
  SmallVector<AffineMap> maps(inputs.size() + 1, AffineMap::get(ctx));
  SmallVector<utils::IteratorType> iterators;
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{type}, inputs.getArrayRef(), ValueRange{init},
      maps, iterators, [&](OpBuilder &b, Location nested, ValueRange args) {
        // The chain's reads of the inputs become the block's arguments.
        IRMapping mapping;
        auto mapRead = [&](Value scalar) {
          if (Value tensor = getScalarSource(scalar.getDefiningOp()))
            mapping.map(scalar,
                        args[std::distance(inputs.begin(),
                                           llvm::find(inputs, tensor))]);
        };
        mapRead(value);
        for (Operation *op : chain)
          for (Value operand : op->getOperands())
            mapRead(operand);
        for (Operation *op : chain)
          b.clone(*op, mapping);
        linalg::YieldOp::create(b, nested, mapping.lookupOrDefault(value));
      });
  return generic.getResult(0);
}

/// A 0-d tensor of `value` (an i64 constant), written by a kernel.
static Value fillScalar(OpBuilder &b, Location loc, int64_t value) {
  Value empty =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, b.getI64Type());
  Value constant =
      arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(value));
  return linalg::FillOp::create(b, loc, ValueRange{constant}, ValueRange{empty})
      .getResult(0);
}

/// `insert` (a row inserted at `offset`, the element of a 0-d i64 tensor)
/// as a linalg.generic over the destination: each element is the source's
/// where the row covers it (read with tensor.extract at indices clamped
/// into the source), the destination's elsewhere.
static Value buildRowSelect(OpBuilder &b, tensor::InsertSliceOp insert,
                            Value offset) {
  Location loc = insert.getLoc();
  RankedTensorType dest = insert.getDestType();
  int64_t rank = dest.getRank();
  MLIRContext *ctx = b.getContext();
  // The source dims the slice keeps (a rank-reduced source drops unit ones).
  llvm::SmallBitVector dropped = insert.getDroppedDims();
  Value init =
      tensor::EmptyOp::create(b, loc, dest.getShape(), dest.getElementType());
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, {}, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Value source = insert.getSource();
  return linalg::GenericOp::create(
             b, loc, TypeRange{dest}, ValueRange{insert.getDest(), offset},
             ValueRange{init}, maps, iterators,
             [&](OpBuilder &nb, Location nested, ValueRange args) {
               Value row = arith::IndexCastOp::create(
                   nb, nested, nb.getIndexType(), args[1]);
               Value inside;
               SmallVector<Value> indices;
               for (int64_t d = 0; d < rank; ++d) {
                 Value index = linalg::IndexOp::create(nb, nested, d);
                 int64_t staticOffset = insert.getStaticOffsets()[d];
                 Value start = ShapedType::isDynamic(staticOffset)
                                   ? row
                                   : arith::ConstantIndexOp::create(
                                         nb, nested, staticOffset);
                 int64_t size = insert.getStaticSizes()[d];
                 Value end = arith::AddIOp::create(
                     nb, nested, start,
                     arith::ConstantIndexOp::create(nb, nested, size));
                 Value covered = arith::AndIOp::create(
                     nb, nested,
                     arith::CmpIOp::create(
                         nb, nested, arith::CmpIPredicate::sge, index, start),
                     arith::CmpIOp::create(
                         nb, nested, arith::CmpIPredicate::slt, index, end));
                 inside =
                     inside ? arith::AndIOp::create(nb, nested, inside, covered)
                            : covered;
                 if (dropped.test(d))
                   continue;
                 // index - start, clamped into [0, size).
                 Value local = arith::SubIOp::create(nb, nested, index, start);
                 local = arith::MaxSIOp::create(
                     nb, nested, local,
                     arith::ConstantIndexOp::create(nb, nested, 0));
                 local = arith::MinSIOp::create(
                     nb, nested, local,
                     arith::ConstantIndexOp::create(nb, nested, size - 1));
                 indices.push_back(local);
               }
               Value element =
                   tensor::ExtractOp::create(nb, nested, source, indices);
               linalg::YieldOp::create(
                   nb, nested,
                   arith::SelectOp::create(nb, nested, inside, element, args[0])
                       .getResult());
             })
      .getResult(0);
}

/// Gives the counted loop `loop`, whose body reads its induction variable,
/// a counter the GPU keeps: a 0-d i64 tensor carried from the lower bound
/// and advanced by the step each iteration by a kernel. The variable's
/// integer casts read the counter; a row inserted at the variable becomes a
/// select over the destination (buildRowSelect). isCounterUse says which
/// uses these are; the scheduler gives GPUs no other.
static void countOnDevice(scf::ForOp loop) {
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !step)
    return;
  IRRewriter rewriter(loop.getContext());
  rewriter.setInsertionPoint(loop);
  Location loc = loop.getLoc();
  Value start = fillScalar(rewriter, loc, *lower);
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, ValueRange{start}, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &b, Location nested, ArrayRef<BlockArgument> args) {
        Value empty = tensor::EmptyOp::create(b, nested, ArrayRef<int64_t>{},
                                              b.getI64Type());
        MLIRContext *ctx = b.getContext();
        SmallVector<AffineMap> maps(2, AffineMap::get(ctx));
        Value next =
            linalg::GenericOp::create(
                b, nested, TypeRange{empty.getType()}, ValueRange{args[0]},
                ValueRange{empty}, maps, ArrayRef<utils::IteratorType>{},
                [&](OpBuilder &bb, Location l, ValueRange values) {
                  Value increment = arith::ConstantOp::create(
                      bb, l, bb.getI64IntegerAttr(*step));
                  linalg::YieldOp::create(
                      bb, l,
                      arith::AddIOp::create(bb, l, values[0], increment)
                          .getResult());
                })
                .getResult(0);
        return SmallVector<Value>{next};
      });
  if (failed(replaced))
    return;
  auto counted = cast<scf::ForOp>(replaced->getOperation());
  Value counter = counted.getRegionIterArgs().back();
  Value variable = counted.getInductionVar();
  for (OpOperand &use : llvm::make_early_inc_range(variable.getUses())) {
    Operation *user = use.getOwner();
    OpBuilder b(user);
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(user)) {
      Value read =
          tensor::ExtractOp::create(b, user->getLoc(), counter, ValueRange{});
      auto type = cast<IntegerType>(user->getResult(0).getType());
      if (type.getWidth() < 64)
        read = arith::TruncIOp::create(b, user->getLoc(), type, read);
      else if (type.getWidth() > 64)
        read = arith::ExtSIOp::create(b, user->getLoc(), type, read);
      user->getResult(0).replaceAllUsesWith(read);
      user->erase();
    } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(user)) {
      insert.getResult().replaceAllUsesWith(buildRowSelect(b, insert, counter));
      insert.erase();
    }
  }
}

namespace {
class GPUScalarsToLinalgPass
    : public orchestra::gpucommon::impl::GPUScalarsToLinalgBase<
          GPUScalarsToLinalgPass> {
public:
  void runOnOperation() override {
    // Counted loops that read their induction variable count on the device.
    SmallVector<scf::ForOp> counted;
    getOperation().walk([&](scf::ForOp loop) {
      if (!loop.getInductionVar().use_empty() &&
          llvm::all_of(loop.getInductionVar().getUses(),
                       orchestra::gpucommon::isCounterUse))
        counted.push_back(loop);
    });
    for (scf::ForOp loop : counted)
      countOnDevice(loop);

    SmallVector<tensor::FromElementsOp> elements;
    SmallVector<scf::ConditionOp> conditions;
    getOperation().walk([&](Operation *op) {
      if (auto fromElements = dyn_cast<tensor::FromElementsOp>(op)) {
        if (fromElements.getType().getRank() == 0)
          elements.push_back(fromElements);
      } else if (auto condition = dyn_cast<scf::ConditionOp>(op)) {
        if (!getScalarSource(condition.getCondition().getDefiningOp()))
          conditions.push_back(condition);
      }
    });
    SmallVector<Operation *> maybeDead;
    auto noteOperands = [&](Operation *op) {
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          maybeDead.push_back(def);
    };
    for (tensor::FromElementsOp fromElements : elements) {
      OpBuilder builder(fromElements);
      Value kernel = buildScalarKernel(builder, fromElements.getLoc(),
                                       fromElements.getElements()[0]);
      if (!kernel)
        continue;
      noteOperands(fromElements);
      fromElements.replaceAllUsesWith(kernel);
      fromElements.erase();
    }
    // A condition computed from scalars: computed on the device, its
    // element read back.
    for (scf::ConditionOp condition : conditions) {
      OpBuilder builder(condition);
      Value kernel = buildScalarKernel(builder, condition.getLoc(),
                                       condition.getCondition());
      if (!kernel)
        continue;
      if (Operation *def = condition.getCondition().getDefiningOp())
        maybeDead.push_back(def);
      condition.getConditionMutable().assign(tensor::ExtractOp::create(
          builder, condition.getLoc(), kernel, ValueRange{}));
    }
    // A loop's initial value that is a constant: written into a buffer of
    // its own by a kernel (the host side of a kernel cannot address the
    // device module's constants).
    SmallVector<Operation *> loops;
    getOperation().walk([&](Operation *op) {
      if (isa<scf::WhileOp, scf::ForOp>(op))
        loops.push_back(op);
    });
    for (Operation *loop : loops) {
      MutableArrayRef<OpOperand> inits =
          isa<scf::WhileOp>(loop) ? cast<scf::WhileOp>(loop).getInitsMutable()
                                  : cast<scf::ForOp>(loop).getInitArgsMutable();
      for (OpOperand &init : inits) {
        auto constant = init.get().getDefiningOp<arith::ConstantOp>();
        auto type = dyn_cast<RankedTensorType>(init.get().getType());
        if (!constant || !type)
          continue;
        OpBuilder builder(loop);
        Location loc = constant.getLoc();
        Value empty = tensor::EmptyOp::create(builder, loc, type.getShape(),
                                              type.getElementType());
        auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
        Value copy =
            dense && dense.isSplat()
                ? linalg::FillOp::create(
                      builder, loc,
                      ValueRange{arith::ConstantOp::create(
                          builder, loc,
                          cast<TypedAttr>(dense.getSplatValue<Attribute>()))},
                      ValueRange{empty})
                      .getResult(0)
                : linalg::CopyOp::create(builder, loc, init.get(), empty)
                      .getResult(0);
        init.set(copy);
        if (constant->use_empty())
          constant.erase();
      }
    }
    // The scalar ops nothing reads any more, users first.
    SmallVector<Operation *> worklist(maybeDead.begin(), maybeDead.end());
    llvm::SmallPtrSet<Operation *, 16> erased;
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (erased.contains(op) || !op->use_empty() || op->getNumRegions() != 0 ||
          !(getScalarSource(op) ||
            isa<arith::ArithDialect, math::MathDialect>(op->getDialect())))
        continue;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          worklist.push_back(def);
      erased.insert(op);
      op->erase();
    }
  }
};
} // namespace
