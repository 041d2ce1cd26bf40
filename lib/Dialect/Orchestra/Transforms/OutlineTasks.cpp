//===- OutlineTasks.cpp - Tasks to kernels in per-device modules ----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Dialect/Orchestra/Utils/GroupedConvolution.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"

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
  Value init =
      tensor::EmptyOp::create(builder, loc, resultType.getShape(), elementType);
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
    Value converted =
        convertElements(builder, arg.getLoc(), arg,
                        cast<ShapedType>(original).getElementType());
    arg.replaceAllUsesExcept(converted, converted.getDefiningOp());
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

/// Tags the fusion root of `func` and the structured ops it depends on for
/// the strategy scripts.
void tagFusionRoot(func::FuncOp func) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (ret.getNumOperands() == 0)
    return;
  // A task that ends by padding its result (for the next task's
  // convolution or pooling) or reshaping it is rooted at the padded or
  // reshaped value: the parallel loop writes into the interior of the
  // padded buffer (x86_64: the strategy's step 7 and
  // eliminate-empty-tensors), and a reshape is a view.
  Value result = ret.getOperand(0);
  while (Operation *op = result.getDefiningOp()) {
    if (auto pad = dyn_cast<tensor::PadOp>(op))
      result = pad.getSource();
    else if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      result = op->getOperand(0);
    else
      break;
  }
  // A task around a loop over time (a recurrent layer) is rooted at the
  // step's op that computes the carried state: each step is tiled by the
  // state's columns across the cores, with the step's matmuls fused in
  // (each core reads its share of the recurrent weights at every step, and
  // keeps it in its cache).
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
    UnitAttr unit = UnitAttr::get(func.getContext());
    step->setAttr("orchestra.fusion_root_cols", unit);
    for (Operation *op : slice)
      op->setAttr("orchestra.fusion_producer", unit);
    return;
  }
  auto root = result.getDefiningOp<linalg::LinalgOp>();
  if (!root || root->getNumResults() != 1)
    return;
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = root.getIteratorTypesArray();
  auto parallelDim = [&](unsigned dim) {
    return dim < ranges.size() &&
           iterators[dim] == utils::IteratorType::parallel &&
           !ShapedType::isDynamic(ranges[dim]) && ranges[dim] >= 2;
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
  auto sharesRootOutput = [&](Operation *op) {
    return op->getResult(0).getType() == root->getResult(0).getType();
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
  StringRef tag;
  // (The first four loops of a convolution or pooling are those of its
  // output; a grouped one's fourth is its groups, [N, OH, OW, G, M/G].
  // A 3-D one's first five are its output's.)
  if (channelsLast3D && ranges.size() >= 5 && ranges[0] == 1 &&
      iterators[1] == utils::IteratorType::parallel &&
      iterators[2] == utils::IteratorType::parallel &&
      !ShapedType::isDynamic(ranges[1]) && !ShapedType::isDynamic(ranges[2])) {
    if (ranges[1] * ranges[2] >= 14)
      tag = "orchestra.fusion_root_ndhwc_rows";
    else if (dense3D && parallelDim(4) && ranges[4] % 32 == 0)
      tag = "orchestra.fusion_root_ndhwc_channels";
    else
      tag = "orchestra.fusion_root_ndhwc_rows_channels";
  } else if (channelsLastConvolution && ranges.size() >= 4 && ranges[0] == 1 &&
             parallelDim(1)) {
    if (ranges[1] >= 14)
      tag = "orchestra.fusion_root_nhwc_rows";
    else if (groupedConvolution && parallelDim(3) && ranges[3] >= 4)
      tag = "orchestra.fusion_root_nhwc_groups";
    else if (denseChannelsLastConvolution && parallelDim(3) &&
             ranges[3] % 32 == 0)
      tag = "orchestra.fusion_root_nhwc_channels";
    else
      tag = "orchestra.fusion_root_nhwc_rows_channels";
  } else if (parallelDim(0) && ranges[0] >= 1024 && hasMatmulOfRows(1024))
    tag = "orchestra.fusion_root_tall";
  else if (parallelDim(0) && ranges[0] >= 128 && hasMatmulOfRows(128))
    tag = "orchestra.fusion_root_wide";
  // A first loop too short for two 8-row tiles (the heads of an attention
  // softmax) is tiled by one, unless a matmul needs the rows for its
  // register tiles.
  else if (parallelDim(0) && ranges[0] >= 2 && ranges[0] < 16 &&
           !hasMatmulOfRows(1))
    tag = "orchestra.fusion_root_short";
  else if (parallelDim(0))
    tag = "orchestra.fusion_root";
  else if (ranges.size() >= 2 && ranges[0] == 1 && parallelDim(1))
    tag = hasConvolution ? "orchestra.fusion_root_d1_conv"
                         : "orchestra.fusion_root_d1";
  else
    return;
  UnitAttr unit = UnitAttr::get(func.getContext());
  root->setAttr(tag, unit);
  for (Operation *op : slice)
    if (isa<linalg::LinalgOp>(op))
      op->setAttr("orchestra.fusion_producer", unit);
}

/// Tags channels-last convolutions with the width of their register tiles
/// (`orchestra.conv_channels_32` or `_16`): 32 output channels, unless that
/// leaves a remainder that is not a power of two (24 of MobileNetV2's 24
/// channels), which LLVM splits into vectors badly; 16-channel tiles leave
/// one vector (8) instead. For a grouped convolution, the width is that of
/// one group's output channels: the strategy computes it one group at a
/// time, as dense convolutions that keep the tag. A 3-D convolution keeps
/// its tag too when the strategy rewrites each of its depth slices as a 2-D
/// one.
void tagConvolutionTiles(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  auto tagWidth = [&](Operation *conv, int64_t channels) {
    int64_t remainder = channels % 32;
    bool narrow = !ShapedType::isDynamic(channels) && remainder != 0 &&
                  !llvm::isPowerOf2_64(remainder);
    conv->setAttr(narrow ? "orchestra.conv_channels_16"
                         : "orchestra.conv_channels_32",
                  UnitAttr::get(ctx));
  };
  func.walk([&](linalg::LinalgOp op) {
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
    if (task.getNkiSource()) {
      task.emitOpError() << "carries 'nki_source', which only the NKI "
                            "compiler of its arch can build";
      return signalPassFailure();
    }
    // Transfers into kernel-scope memory (shared memory, LDS) inside a task
    // body are valid IR, but no backend lowers them yet: the NVIDIA strategy
    // stages tiles in shared memory itself.
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
        kernels->setAttr(OrchestraDialect::kArchAttrName,
                         StringAttr::get(ctx, task.getArch()));
        kernels->setAttr("orchestra.target", task.getTarget());
        moduleSymbols.insert(kernels);
      }
      kernelModules[moduleName] = kernels;
    }

    // The kernel function takes the task's body.
    OpBuilder builder = OpBuilder::atBlockEnd(kernels.getBody());
    auto func = func::FuncOp::create(
        builder, task.getLoc(), task.getName(),
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
    func->setAttr("orchestra.abi", ArrayAttr::get(ctx, abiAttrs));
    tagFusionRoot(func);
    tagConvolutionTiles(func);

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
