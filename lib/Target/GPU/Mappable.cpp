//===- Mappable.cpp - What the GPU strategies can map onto a GPU ----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/GPU/Mappable.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::orchestra;

/// Whether `type` is a ranked tensor of static shape.
static bool isStaticTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.hasStaticShape();
}

/// Whether `op` computes one integer or float scalar from scalars, as the
/// importers build loop counters and conditions (arith and math ops).
static bool isScalarOp(Operation *op) {
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
      op->getNumResults() != 1 || op->getNumRegions() != 0 || !isPure(op) ||
      op->hasTrait<OpTrait::ConstantLike>())
    return false;
  auto isScalar = [](Type type) { return type.isIntOrFloat(); };
  return isScalar(op->getResult(0).getType()) &&
         llvm::all_of(op->getOperandTypes(), isScalar);
}

/// The element of a 0-d tensor of static shape that `op` reads, if it is a
/// `tensor.extract` of one.
static bool isScalarRead(Operation *op) {
  auto extract = dyn_cast<tensor::ExtractOp>(op);
  return extract && extract.getTensor().getType().getRank() == 0;
}

/// Whether `value` is the induction variable of an scf.for.
static bool isInductionVariable(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  auto loop =
      arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
  return loop && loop.getInductionVar() == value;
}

/// An integer cast of a counted loop's induction variable (which
/// orchestra-gpu-scalars-to-linalg reads from a counter the GPU keeps).
static bool isInductionCast(Operation *op) {
  return isa_and_nonnull<arith::IndexCastOp, arith::IndexCastUIOp>(op) &&
         isInductionVariable(op->getOperand(0)) &&
         op->getResult(0).getType().isInteger();
}

/// Whether the GPU computes `value`, a scalar: a constant, the element of a
/// 0-d tensor, an integer cast of a counted loop's induction variable, or a
/// scalar op of such (orchestra-gpu-scalars-to-linalg puts such chains into
/// 0-d kernels).
static bool isDeviceScalar(Value value, unsigned depth = 0) {
  Operation *def = value.getDefiningOp();
  if (!def || depth > 32)
    return false;
  if (def->hasTrait<OpTrait::ConstantLike>() || isScalarRead(def) ||
      isInductionCast(def))
    return value.getType().isIntOrFloat();
  return isScalarOp(def) &&
         llvm::all_of(def->getOperands(), [&](Value operand) {
           return isDeviceScalar(operand, depth + 1);
         });
}

/// Whether every use of the scalar `op` computes stays on the GPU: a 0-d
/// tensor.from_elements, a loop's condition, or another scalar op whose
/// uses do.
static bool isDeviceScalarUse(Operation *op, unsigned depth = 0) {
  if (depth > 32)
    return false;
  return llvm::all_of(op->getUsers(), [&](Operation *user) {
    if (isa<scf::ConditionOp>(user))
      return user->getOperand(0) == op->getResult(0);
    if (auto elements = dyn_cast<tensor::FromElementsOp>(user))
      return elements.getType().getRank() == 0;
    return isScalarOp(user) && isDeviceScalarUse(user, depth + 1);
  });
}

bool gpucommon::isCounterUse(OpOperand &use) {
  Operation *user = use.getOwner();
  if (isInductionCast(user))
    return isDeviceScalarUse(user);
  // A row (of size 1 along the offset) inserted at the variable, at static
  // offsets otherwise, with static sizes and unit strides.
  auto insert = dyn_cast<tensor::InsertSliceOp>(user);
  if (!insert || !insert.getDestType().hasStaticShape() ||
      !insert.getSourceType().hasStaticShape() ||
      llvm::any_of(insert.getStaticSizes(), ShapedType::isDynamic) ||
      !llvm::all_of(insert.getStaticStrides(),
                    [](int64_t stride) { return stride == 1; }) ||
      insert.getOffsets().size() != 1 || insert.getOffsets()[0] != use.get())
    return false;
  for (auto [offset, size] :
       llvm::zip(insert.getStaticOffsets(), insert.getStaticSizes()))
    if (ShapedType::isDynamic(offset) && size != 1)
      return false;
  return true;
}

/// `value`, or the 0-d tensor it copies (a `tensor.from_elements` of its
/// element, which orchestra-gpu-scalars-to-linalg and canonicalization
/// reduce to the tensor itself).
static Value lookThroughScalarCopy(Value value) {
  auto elements = value.getDefiningOp<tensor::FromElementsOp>();
  if (!elements || elements.getType().getRank() != 0)
    return value;
  Operation *read = elements.getElements()[0].getDefiningOp();
  return isScalarRead(read) ? read->getOperand(0) : value;
}

bool gpucommon::keepsCarriedPositions(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (auto [j, value] : llvm::enumerate(yield.getOperands())) {
      auto arg = dyn_cast<BlockArgument>(lookThroughScalarCopy(value));
      if (arg && arg.getOwner() == loop.getBody() &&
          arg != loop.getRegionIterArgs()[j])
        return false;
    }
    return true;
  }
  auto loop = dyn_cast<scf::WhileOp>(op);
  if (!loop)
    return true;
  scf::ConditionOp condition = loop.getConditionOp();
  for (auto [j, value] : llvm::enumerate(loop.getYieldOp().getOperands())) {
    auto arg = dyn_cast<BlockArgument>(lookThroughScalarCopy(value));
    if (!arg || arg.getOwner() != loop.getAfterBody())
      continue;
    // An after argument is a condition argument of the same iteration: it
    // must be the before argument the yield returns it to.
    auto source = dyn_cast<BlockArgument>(
        lookThroughScalarCopy(condition.getArgs()[arg.getArgNumber()]));
    if (!source || source.getOwner() != loop.getBeforeBody() ||
        source.getArgNumber() != j)
      return false;
  }
  return true;
}

bool gpucommon::isGpuMappable(Operation *op) {
  if (op->hasTrait<OpTrait::ConstantLike>())
    return true;
  // Loops (design/0019): their control on the host side of the kernel, the
  // ops of their regions kernels each iteration launches, the scalars of
  // their counters and conditions 0-d kernels; the condition is read back
  // each iteration. A counted loop whose body reads its induction variable
  // is not mapped yet.
  auto inLoop = [](Operation *loop) {
    return loop->getParentOfType<scf::WhileOp>() ||
           loop->getParentOfType<scf::ForOp>();
  };
  if (isa<scf::WhileOp>(op))
    return !inLoop(op) && keepsCarriedPositions(op) &&
           llvm::all_of(op->getOperandTypes(), isStaticTensor) &&
           llvm::all_of(op->getResultTypes(), isStaticTensor);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return !inLoop(op) && keepsCarriedPositions(op) &&
           llvm::all_of(loop.getInductionVar().getUses(), isCounterUse) &&
           loop.getStaticTripCount().has_value() &&
           llvm::all_of(loop.getInitArgs().getTypes(), isStaticTensor);
  if (auto condition = dyn_cast<scf::ConditionOp>(op))
    return isDeviceScalar(condition.getCondition()) &&
           llvm::all_of(condition.getArgs().getTypes(), isStaticTensor);
  if (isa<scf::YieldOp>(op))
    return isa<scf::WhileOp, scf::ForOp>(op->getParentOp()) &&
           llvm::all_of(op->getOperandTypes(), isStaticTensor);
  if (isScalarRead(op) || isScalarOp(op) || isInductionCast(op))
    return isDeviceScalar(op->getResult(0)) && isDeviceScalarUse(op);
  if (auto elements = dyn_cast<tensor::FromElementsOp>(op))
    return elements.getType().getRank() == 0 &&
           isDeviceScalar(elements.getElements()[0]);
  if (auto empty = dyn_cast<tensor::EmptyOp>(op))
    return empty.getType().hasStaticShape();
  // Tensors without elements have nothing for a kernel's threads to do (and
  // nothing to tile): their ops stay on the CPU.
  auto isEmptyTensor = [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return shaped && shaped.hasStaticShape() && shaped.getNumElements() == 0;
  };
  if (llvm::any_of(op->getOperandTypes(), isEmptyTensor) ||
      llvm::any_of(op->getResultTypes(), isEmptyTensor))
    return false;
  if (isa<tensor::EmptyOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
          tensor::ConcatOp>(op))
    return llvm::all_of(op->getResultTypes(), [](Type type) {
      auto shaped = dyn_cast<ShapedType>(type);
      return shaped && shaped.hasStaticShape();
    });
  // Static slices: views of a device buffer (a copy where a kernel's result
  // is one), and copies into views (concatenations).
  // A row inserted at a counted loop's induction variable (a scan output):
  // orchestra-gpu-scalars-to-linalg rewrites it into a select.
  if (auto insert = dyn_cast<tensor::InsertSliceOp>(op);
      insert && insert.getOffsets().size() == 1 &&
      isInductionVariable(insert.getOffsets()[0]))
    return gpucommon::isCounterUse(
        insert->getOpOperand(insert.getOffsets().getBeginOperandIndex()));
  if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(op)) {
    auto slice = cast<OffsetSizeAndStrideOpInterface>(op);
    auto isStatic = [](ArrayRef<int64_t> values) {
      return llvm::none_of(values, ShapedType::isDynamic);
    };
    return isStatic(slice.getStaticOffsets()) &&
           isStatic(slice.getStaticSizes()) &&
           llvm::all_of(slice.getStaticStrides(),
                        [](int64_t stride) { return stride >= 1; }) &&
           llvm::all_of(op->getOperandTypes(), [](Type type) {
             auto shaped = dyn_cast<ShapedType>(type);
             return !shaped || shaped.hasStaticShape();
           });
  }
  // Pads that orchestra-gpu-pads-to-linalg makes elementwise ops (and
  // what their region holds: the yield of the padding value).
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    return gpucommon::getConstantPadValue(pad) != nullptr;
  if (isa<tensor::YieldOp>(op))
    return isa_and_nonnull<tensor::PadOp>(op->getParentOp());
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureTensorSemantics() &&
         !linalgOp.hasDynamicShape() && linalgOp.getNumDpsInits() >= 1;
}
