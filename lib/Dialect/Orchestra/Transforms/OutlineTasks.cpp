//===- OutlineTasks.cpp - Tasks to kernels in per-device modules ----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Dialect/Orchestra/Utils/GroupedConvolution.h"
#include "orchestra/Dialect/Orchestra/Utils/Tiling.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_OUTLINETASKS
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;
using namespace mlir::orchestra;

namespace {

/// Converts every element of the tensor `value` to `elementType` (i1 <-> i8).
Value convertElements(OpBuilder &builder, Location loc, Value value,
                      Type elementType) {
  auto type = cast<RankedTensorType>(value.getType());
  auto resultType = type.clone(elementType);
  Value init = tensor::EmptyOp::create(
      builder, loc, tensor::getMixedSizes(builder, loc, value), elementType);
  AffineMap identity = builder.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, resultType, value, init,
      ArrayRef<AffineMap>{identity, identity}, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value converted = elementType.isInteger(1)
                              ? arith::TruncIOp::create(nested, nestedLoc,
                                                        elementType, args[0])
                                    .getResult()
                              : arith::ExtUIOp::create(nested, nestedLoc,
                                                       elementType, args[0])
                                    .getResult();
        linalg::YieldOp::create(nested, nestedLoc, converted);
      });
  return generic.getResult(0);
}

/// Gives `func` the kernel ABI types of its task: i1 tensors become i8 at
/// the boundary, converted inside.
void applyKernelABITypes(func::FuncOp func) {
  Block &entry = func.getBody().front();
  OpBuilder builder = OpBuilder::atBlockBegin(&entry);
  MLIRContext *ctx = func.getContext();
  for (BlockArgument arg : entry.getArguments()) {
    Type abiType = getKernelABIType(arg.getType());
    if (abiType == arg.getType())
      continue;
    Type original = arg.getType();
    arg.setType(abiType);
    // The uses before the conversion, whose sizes (tensor.dim) read the
    // argument too.
    SmallVector<OpOperand *> uses =
        llvm::to_vector(llvm::make_pointer_range(arg.getUses()));
    Value converted =
        convertElements(builder, arg.getLoc(), arg,
                        cast<ShapedType>(original).getElementType());
    for (OpOperand *use : uses)
      use->set(converted);
  }
  auto ret = cast<func::ReturnOp>(entry.getTerminator());
  builder.setInsertionPoint(ret);
  for (OpOperand &operand : ret->getOpOperands()) {
    Type abiType = getKernelABIType(operand.get().getType());
    if (abiType != operand.get().getType())
      operand.set(convertElements(builder, ret.getLoc(), operand.get(),
                                  IntegerType::get(ctx, 8)));
  }
  func.setType(
      FunctionType::get(ctx, entry.getArgumentTypes(), ret.getOperandTypes()));
}

/// Whether `op` is a channels-last 3-D convolution or pooling
/// ([N, D, H, W, C] output).
bool isChannelsLast3D(Operation *op) {
  return isa<linalg::Conv3DNdhwcDhwcfOp, linalg::DepthwiseConv3DNdhwcDhwcOp,
             linalg::PoolingNdhwcMaxOp, linalg::PoolingNdhwcSumOp>(op);
}

/// Tags the fusion root of `func` (`orchestra.fusion_root`) and the
/// structured ops it depends on (`orchestra.fusion_producer`) for the
/// strategy scripts, when the root has a parallel loop to tile. Which tiles
/// a root gets is the target's choice: a backend's pre-strategy passes may
/// refine the tag (orchestra-cpu-tag-tiling).
void tagFusionRoot(func::FuncOp func) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (ret.getNumOperands() == 0)
    return;
  // A task that ends by padding its result (for the next task's
  // convolution or pooling) or reshaping it is rooted at the padded or
  // reshaped value: the parallel loop writes into the interior of the
  // padded buffer, and a reshape is a view.
  Value result = ret.getOperand(0);
  while (Operation *op = result.getDefiningOp()) {
    if (auto pad = dyn_cast<tensor::PadOp>(op))
      result = pad.getSource();
    else if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      result = op->getOperand(0);
    else
      break;
  }
  UnitAttr unit = UnitAttr::get(func.getContext());
  // A task around a loop over time (a recurrent layer) is rooted at the
  // step's op that computes the carried state, with the step's structured
  // ops as its producers.
  if (auto loop = result.getDefiningOp<scf::ForOp>()) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    auto step = yield.getOperand(0).getDefiningOp<linalg::GenericOp>();
    if (!step || step.getNumLoops() != 2 || step.getNumParallelLoops() != 2 ||
        llvm::any_of(step.getIndexingMapsArray(), [](AffineMap map) {
          return !map.isProjectedPermutation();
        }))
      return;
    BackwardSliceOptions options;
    options.omitBlockArguments = true;
    options.filter = [&](Operation *op) {
      return op->getBlock() == step->getBlock() && isa<linalg::LinalgOp>(op);
    };
    llvm::SetVector<Operation *> slice;
    (void)getBackwardSlice(step.getOperation(), &slice, options);
    step->setAttr(attr::kFusionRoot, unit);
    for (Operation *op : slice)
      op->setAttr(attr::kFusionProducer, unit);
    return;
  }
  auto root = result.getDefiningOp<linalg::LinalgOp>();
  if (!root || root->getNumResults() != 1)
    return;
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  auto parallelDim = [&](unsigned dim) {
    return isTileableParallelLoop(root, dim);
  };
  BackwardSliceOptions options;
  options.omitBlockArguments = true;
  // Tiling fuses producers through structured ops only (not through
  // reshapes or other tensor ops), so the slice stops at anything else.
  //
  // A convolution reads its whole input for every tile of output channels,
  // so fusing the input's producer into those tiles would recompute it once
  // per tile; it stays outside the parallel loop and runs once.
  auto feedsConvolutionInput = [](Operation *op) {
    return llvm::any_of(op->getUsers(), [&](Operation *user) {
      auto conv = dyn_cast<linalg::LinalgOp>(user);
      return conv && isConvolutionOp(user) &&
             conv.getDpsInputOperand(0)->get() == op->getResult(0);
    });
  };
  options.filter = [&](Operation *op) {
    return op->getParentOp() == func.getOperation() &&
           isa<linalg::LinalgOp>(op) && !feedsConvolutionInput(op);
  };
  llvm::SetVector<Operation *> slice;
  (void)getBackwardSlice(root.getOperation(), &slice, options);

  // The root has a loop to tile in parallel: its first loop, or its second
  // after a unit first one (a batch of one); for a channels-last 3-D
  // convolution or pooling of a batch of one that shares the root's
  // output, its depths and rows.
  bool channelsLast3D = llvm::any_of(
      llvm::concat<Operation *const>(ArrayRef<Operation *>(root.getOperation()),
                                     slice.getArrayRef()),
      [&](Operation *op) {
        return isChannelsLast3D(op) &&
               op->getResult(0).getType() == root->getResult(0).getType();
      });
  bool tileable =
      parallelDim(0) ||
      (ranges.size() >= 2 && ranges[0] == 1 && parallelDim(1)) ||
      (channelsLast3D && ranges.size() >= 5 && ranges[0] == 1 &&
       iterators[1] == utils::IteratorType::parallel &&
       iterators[2] == utils::IteratorType::parallel &&
       !ShapedType::isDynamic(ranges[1]) && !ShapedType::isDynamic(ranges[2]));
  if (!tileable)
    return;
  root->setAttr(attr::kFusionRoot, unit);
  for (Operation *op : slice)
    if (isa<linalg::LinalgOp>(op))
      op->setAttr(attr::kFusionProducer, unit);
}

class OutlineTasksPass
    : public orchestra::impl::OutlineTasksBase<OutlineTasksPass> {
public:
  void runOnOperation() override;
};

} // namespace

void OutlineTasksPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  SymbolTable moduleSymbols(module);
  llvm::StringMap<ModuleOp> kernelModules;

  SmallVector<TaskOp> tasks;
  module.walk([&](TaskOp task) { tasks.push_back(task); });

  for (TaskOp task : tasks) {
    // Transfers into kernel-scope memory (shared memory, LDS) inside a task
    // body are valid IR, but no backend lowers them yet: the GPU strategies
    // stage tiles in shared memory themselves.
    WalkResult inner = task.getBody().walk([&](TransferOp transfer) {
      transfer.emitOpError()
          << "inside task '" << task.getName()
          << "' is not supported by the kernel backends yet (they place "
             "kernel-scope memory such as shared memory themselves); move "
             "the transfer out of the task or drop it";
      return WalkResult::interrupt();
    });
    if (inner.wasInterrupted())
      return signalPassFailure();
    std::string moduleName =
        ("kernels_" + task.getArch() + "_" + Twine(task.getDeviceId())).str();
    ModuleOp kernels = kernelModules.lookup(moduleName);
    if (!kernels) {
      kernels = dyn_cast_or_null<ModuleOp>(moduleSymbols.lookup(moduleName));
      if (!kernels) {
        OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
        kernels = ModuleOp::create(builder, module.getLoc(), moduleName);
        kernels->setAttr(attr::kArch, StringAttr::get(ctx, task.getArch()));
        kernels->setAttr(attr::kTarget, task.getTarget());
        moduleSymbols.insert(kernels);
      }
      kernelModules[moduleName] = kernels;
    }

    // The kernel function takes the task's body. Its name becomes a symbol
    // of every kind of binary (`orx_kernel_<name>`, a GPU kernel entry):
    // letters, digits and underscores only ("pick.then" -> "pick_then").
    std::string symbol = task.getName().str();
    for (char &c : symbol)
      if (!llvm::isAlnum(c) && c != '_')
        c = '_';
    if (symbol.empty() || llvm::isDigit(symbol.front()))
      symbol = "k" + symbol;
    OpBuilder builder = OpBuilder::atBlockEnd(kernels.getBody());
    auto func = func::FuncOp::create(
        builder, task.getLoc(), symbol,
        FunctionType::get(ctx, task.getBody().getArgumentTypes(),
                          task.getResultTypes()));
    SymbolTable(kernels).insert(func);
    func.getBody().takeBody(task.getBody());
    YieldOp yield = cast<YieldOp>(func.getBody().front().getTerminator());
    builder.setInsertionPoint(yield);
    func::ReturnOp::create(builder, yield.getLoc(), yield.getValues());
    yield.erase();
    applyKernelABITypes(func);
    // The plan's buffers of a task's operands may be read after the task (by
    // other tasks, or as results): bufferization must not write into them.
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (isa<TensorType>(func.getArgumentTypes()[i]))
        func.setArgAttr(i, "bufferization.writable", BoolAttr::get(ctx, false));
    SmallVector<Attribute> abiAttrs;
    for (Type type : func.getArgumentTypes())
      abiAttrs.push_back(TypeAttr::get(type));
    for (Type type : func.getResultTypes())
      abiAttrs.push_back(TypeAttr::get(type));
    func->setAttr(attr::kAbi, ArrayAttr::get(ctx, abiAttrs));
    // An NKI kernel replaces the body (orchestra-lower-nki-tasks); the body
    // stays as its signature and reference.
    if (StringAttr nki = task.getNkiSourceAttr())
      func->setAttr(attr::kNkiSource, nki);
    // So does an assembly kernel (orchestra-gpu-lower-asm-kernels).
    if (DictionaryAttr asmKernel = task.getAsmKernelAttr())
      func->setAttr(attr::kAsmKernel, asmKernel);
    tagFusionRoot(func);

    builder.setInsertionPoint(task);
    auto launch = LaunchOp::create(
        builder, task.getLoc(), task.getResultTypes(), task.getArgs(),
        task.getNameAttr(),
        SymbolRefAttr::get(kernels.getSymNameAttr(),
                           {FlatSymbolRefAttr::get(func.getSymNameAttr())}),
        task.getTarget(), task.getPredictedStartAttr(),
        task.getPredictedFinishAttr());
    task.replaceAllUsesWith(launch.getResults());
    task.erase();
  }
}
