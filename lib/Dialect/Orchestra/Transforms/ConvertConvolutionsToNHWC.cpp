//===- ConvertConvolutionsToNHWC.cpp - Channels-last convolutions ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Transforms/Passes.h"
#include "orchestra/Dialect/Orchestra/Utils/GroupedConvolution.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::orchestra {
#define GEN_PASS_DEF_CONVERTCONVOLUTIONSTONHWC
#include "orchestra/Dialect/Orchestra/Transforms/Passes.h.inc"
} // namespace mlir::orchestra

using namespace mlir;

namespace {

/// `value` transposed with `permutation` (result dim i = source dim
/// permutation[i]).
Value transpose(PatternRewriter &rewriter, Location loc, Value value,
                ArrayRef<int64_t> permutation) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, value);
  SmallVector<OpFoldResult> permuted;
  for (int64_t dim : permutation)
    permuted.push_back(sizes[dim]);
  Value init =
      tensor::EmptyOp::create(rewriter, loc, permuted, type.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, value, init, permutation)
      ->getResult(0);
}

constexpr int64_t kToNHWC[] = {0, 2, 3, 1};
constexpr int64_t kToNCHW[] = {0, 3, 1, 2};

/// [N, C, spatial...] -> [N, spatial..., C] for a tensor of rank `rank`.
SmallVector<int64_t> toChannelsLast(int64_t rank) {
  SmallVector<int64_t> permutation = {0};
  for (int64_t dim = 2; dim < rank; ++dim)
    permutation.push_back(dim);
  permutation.push_back(1);
  return permutation;
}

/// [N, spatial..., C] -> [N, C, spatial...], the inverse of toChannelsLast.
SmallVector<int64_t> toChannelsFirst(int64_t rank) {
  return invertPermutationVector(toChannelsLast(rank));
}

/// Whether every operand is a ranked tensor (dynamic sizes, a dynamic
/// batch, go through the transposes as they are: design/0017).
bool isRankedTensorOp(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() &&
         llvm::all_of(op->getOperandTypes(),
                      [](Type type) { return isa<RankedTensorType>(type); });
}

bool isStaticTensorOp(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() &&
         llvm::all_of(op->getOperandTypes(), [](Type type) {
           auto tensor = dyn_cast<RankedTensorType>(type);
           return tensor && tensor.hasStaticShape();
         });
}

/// Rewrites the channels-first (NCHW, NCDHW) convolution or pooling
/// `SourceOp` as the channels-last `TargetOp`: input and output transposed
/// to NHWC (NDHWC) around it, the filter transposed by `filterPermutation`.
template <typename SourceOp, typename TargetOp>
struct ConvertToNHWC : OpRewritePattern<SourceOp> {
  ConvertToNHWC(MLIRContext *ctx, ArrayRef<int64_t> filterPermutation)
      : OpRewritePattern<SourceOp>(ctx), filterPermutation(filterPermutation) {}

  LogicalResult matchAndRewrite(SourceOp op,
                                PatternRewriter &rewriter) const override {
    if (!isRankedTensorOp(op))
      return rewriter.notifyMatchFailure(op, "needs ranked tensors");
    Location loc = op.getLoc();
    int64_t rank =
        cast<RankedTensorType>(op.getOutputs()[0].getType()).getRank();
    Value input =
        transpose(rewriter, loc, op.getInputs()[0], toChannelsLast(rank));
    Value filter =
        transpose(rewriter, loc, op.getInputs()[1], filterPermutation);
    Value init =
        transpose(rewriter, loc, op.getOutputs()[0], toChannelsLast(rank));
    auto conv = TargetOp::create(rewriter, loc, TypeRange{init.getType()},
                                 ValueRange{input, filter}, ValueRange{init},
                                 op.getStrides(), op.getDilations());
    rewriter.replaceOp(op, transpose(rewriter, loc, conv->getResult(0),
                                     toChannelsFirst(rank)));
    return success();
  }

  SmallVector<int64_t> filterPermutation;
};

/// The kind of a window reduction, the channels-last pooling op it becomes.
enum class WindowReduction { Max, Sum };

/// Rewrites the importer's 3-D pooling (upstream has no NCDHW pooling op):
/// a `linalg.generic` over (n, c, od, oh, ow, kd, kh, kw) reading the padded
/// [N, C, D, H, W] input at (n, c, od * s + kd * d, ...) and an unread
/// [KD, KH, KW] window, whose body is one `arith.maximumf` or `arith.addf`
/// of the input and the accumulator, as `linalg.pooling_ndhwc_max` or
/// `_sum` between transposes (MaxPool, AveragePool and their Global forms).
struct ConvertPooling3DToNDHWC : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!isStaticTensorOp(op) || op.getNumDpsInputs() != 2 ||
        op.getNumDpsInits() != 1 || op.getNumLoops() != 8)
      return rewriter.notifyMatchFailure(op, "not a static 3-D window "
                                             "reduction");
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    for (auto [i, iterator] : llvm::enumerate(iterators))
      if ((iterator == utils::IteratorType::parallel) != (i < 5))
        return rewriter.notifyMatchFailure(op, "not 5 parallel loops then 3 "
                                               "reductions");
    Block &body = op.getRegion().front();
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    Operation *combine = yield.getNumOperands() == 1
                             ? yield.getOperand(0).getDefiningOp()
                             : nullptr;
    if (!combine || body.getOperations().size() != 2 ||
        !isa<arith::MaximumFOp, arith::AddFOp>(combine) ||
        !isa<FloatType>(combine->getResult(0).getType()) ||
        !llvm::is_contained(combine->getOperands(), body.getArgument(0)) ||
        !llvm::is_contained(combine->getOperands(), body.getArgument(2)))
      return rewriter.notifyMatchFailure(op, "the body is not a float max or "
                                             "sum of the input");
    WindowReduction kind = isa<arith::MaximumFOp>(combine)
                               ? WindowReduction::Max
                               : WindowReduction::Sum;

    // The strides and dilations are the coefficients of the output and
    // window loops in the input map; the maps must then be exactly those
    // of a pooling.
    MLIRContext *ctx = op.getContext();
    AffineMap inputMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
    if (inputMap.getNumResults() != 5)
      return rewriter.notifyMatchFailure(op, "the input is not 5-D");
    auto coefficient = [&](AffineExpr expr, unsigned dim) -> int64_t {
      SmallVector<AffineExpr> values(8, getAffineConstantExpr(0, ctx));
      values[dim] = getAffineConstantExpr(1, ctx);
      auto constant = dyn_cast<AffineConstantExpr>(expr.replaceDims(values));
      return constant ? constant.getValue() : 0;
    };
    SmallVector<int64_t> strides, dilations;
    auto d = [&](unsigned dim) { return getAffineDimExpr(dim, ctx); };
    SmallVector<AffineExpr> inputExprs = {d(0), d(1)};
    for (unsigned i = 0; i < 3; ++i) {
      AffineExpr expr = inputMap.getResult(2 + i);
      strides.push_back(coefficient(expr, 2 + i));
      dilations.push_back(coefficient(expr, 5 + i));
      inputExprs.push_back(d(2 + i) * strides.back() +
                           d(5 + i) * dilations.back());
    }
    if (llvm::any_of(strides, [](int64_t s) { return s < 1; }) ||
        llvm::any_of(dilations, [](int64_t s) { return s < 1; }) ||
        inputMap != AffineMap::get(8, 0, inputExprs, ctx) ||
        op.getMatchingIndexingMap(op.getDpsInputOperand(1)) !=
            AffineMap::get(8, 0, {d(5), d(6), d(7)}, ctx) ||
        op.getMatchingIndexingMap(op.getDpsInitOperand(0)) !=
            AffineMap::get(8, 0, {d(0), d(1), d(2), d(3), d(4)}, ctx))
      return rewriter.notifyMatchFailure(op, "the maps are not those of a "
                                             "3-D pooling");

    Location loc = op.getLoc();
    Value input = transpose(rewriter, loc, op.getDpsInputOperand(0)->get(),
                            toChannelsLast(5));
    Value window = op.getDpsInputOperand(1)->get();
    Value init = transpose(rewriter, loc, op.getDpsInitOperand(0)->get(),
                           toChannelsLast(5));
    auto i64Vector = [&](ArrayRef<int64_t> values) {
      return DenseIntElementsAttr::get(
          RankedTensorType::get({int64_t(values.size())},
                                rewriter.getI64Type()),
          values);
    };
    auto create = [&](auto pooling) -> Value {
      return decltype(pooling)::create(rewriter, loc, TypeRange{init.getType()},
                                       ValueRange{input, window},
                                       ValueRange{init}, i64Vector(strides),
                                       i64Vector(dilations))
          ->getResult(0);
    };
    Value pooled = kind == WindowReduction::Max
                       ? create(linalg::PoolingNdhwcMaxOp())
                       : create(linalg::PoolingNdhwcSumOp());
    rewriter.replaceOp(op,
                       transpose(rewriter, loc, pooled, toChannelsFirst(5)));
    return success();
  }
};

/// The 4-D [N, C, H, W] tensor whose channels `grouped` [N, G, C/G, H, W]
/// splits: the source of the importer's expand_shape, or a collapse.
Value collapseGroups(PatternRewriter &rewriter, Location loc, Value grouped) {
  SmallVector<ReassociationIndices> reassociation = {{0}, {1, 2}, {3}, {4}};
  if (auto expand = grouped.getDefiningOp<tensor::ExpandShapeOp>())
    if (expand.getReassociationIndices() == reassociation)
      return expand.getSrc();
  return tensor::CollapseShapeOp::create(rewriter, loc, grouped, reassociation);
}

/// `nhwc` [N, H, W, C] with its channels split into `groups` groups:
/// [N, H, W, G, C/G], a view.
Value splitChannels(PatternRewriter &rewriter, Location loc, Value nhwc,
                    int64_t groups) {
  auto type = cast<RankedTensorType>(nhwc.getType());
  SmallVector<int64_t> shape(type.getShape().take_front(3));
  shape.push_back(groups);
  shape.push_back(type.getDimSize(3) / groups);
  return tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(shape, type.getElementType()), nhwc,
      SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
}

/// Rewrites `linalg.conv_2d_ngchw_gfchw` (the importer's grouped
/// convolution, on [N, G, C/G, H, W] views of NCHW tensors) as the
/// channels-last grouped convolution of GroupedConvolution.h: its input and
/// initial value transposed to NHWC and split into [N, H, W, G, C/G]
/// (views), its filter [G, M/G, C/G, KH, KW] transposed to
/// [G, KH, KW, C/G, M/G], and its result merged and transposed back. The
/// transposes then cancel against those of the dense convolutions around it
/// like theirs do. The payload is the named op's own (so the i32 arithmetic
/// of a ConvInteger stays as it is).
struct ConvertGroupedToNHWC : OpRewritePattern<linalg::Conv2DNgchwGfchwOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNgchwGfchwOp op,
                                PatternRewriter &rewriter) const override {
    if (!isStaticTensorOp(op))
      return rewriter.notifyMatchFailure(op, "needs static tensors");
    Location loc = op.getLoc();
    int64_t groups =
        cast<RankedTensorType>(op.getInputs()[1].getType()).getDimSize(0);
    auto toGroupedNHWC = [&](Value grouped) {
      Value nchw = collapseGroups(rewriter, loc, grouped);
      return splitChannels(rewriter, loc,
                           transpose(rewriter, loc, nchw, kToNHWC), groups);
    };
    Value input = toGroupedNHWC(op.getInputs()[0]);
    Value init = toGroupedNHWC(op.getOutputs()[0]);
    Value filter = transpose(rewriter, loc, op.getInputs()[1], {0, 3, 4, 2, 1});
    SmallVector<int64_t> strides(op.getStrides().getValues<int64_t>());
    SmallVector<int64_t> dilations(op.getDilations().getValues<int64_t>());
    SmallVector<utils::IteratorType> iterators(5,
                                               utils::IteratorType::parallel);
    iterators.append(3, utils::IteratorType::reduction);
    auto conv = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{input, filter},
        ValueRange{init},
        orchestra::getGroupedConvolutionNhwcMaps(rewriter.getContext(), strides,
                                                 dilations),
        iterators);
    rewriter.cloneRegionBefore(op->getRegion(0), conv.getRegion(),
                               conv.getRegion().end());
    // [N, OH, OW, G, M/G] -> [N, OH, OW, M] -> NCHW -> [N, G, M/G, OH, OW].
    Value merged = tensor::CollapseShapeOp::create(
        rewriter, loc, conv->getResult(0),
        SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}});
    Value nchw = transpose(rewriter, loc, merged, kToNCHW);
    // The importer's merge of the groups (collapse_shape) reads `nchw`
    // directly; anything else reads the grouped view of it.
    SmallVector<ReassociationIndices> groupDims = {{0}, {1, 2}, {3}, {4}};
    for (Operation *user : llvm::make_early_inc_range(op->getUsers())) {
      auto collapse = dyn_cast<tensor::CollapseShapeOp>(user);
      if (collapse && collapse.getReassociationIndices() == groupDims)
        rewriter.replaceOp(collapse, nchw);
    }
    if (op->use_empty()) {
      rewriter.eraseOp(op);
      return success();
    }
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, op->getResult(0).getType(), nchw, groupDims);
    return success();
  }
};

/// Which reshapes around a grouped convolution fold into their neighbours by
/// expanding them to 5-D: the merge of its result (or of its activation's)
/// into [N, OH, OW, M] with the elementwise ops and transposes (back to NCHW
/// at the network's boundary) that read it, and the split of its initial
/// value (the bias broadcast) with the op that computes it. All then fuse
/// into the convolution's parallel tiles. Nothing else is reshaped.
bool shouldFoldReshapeAroundGroupedConv(OpOperand *fused) {
  Operation *user = fused->getOwner();
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(user))
    return llvm::any_of(expand->getUses(), [](OpOperand &use) {
      auto conv = dyn_cast<linalg::LinalgOp>(use.getOwner());
      return conv && conv.isDpsInit(&use) &&
             orchestra::matchGroupedConvolutionNhwc(conv);
    });
  auto collapse = fused->get().getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || !isa<linalg::GenericOp, linalg::TransposeOp>(user))
    return false;
  auto consumer = cast<linalg::LinalgOp>(user);
  return consumer.getNumParallelLoops() == consumer.getNumLoops() &&
         orchestra::isGroupedConvolutionResult(collapse.getSrc());
}

/// Whether `op` is elementwise in the sense the layout patterns need: every
/// loop parallel, one result written through the identity map, its initial
/// value unread, every input read through a projected permutation (the
/// identity, or a broadcast such as a per-channel bias, whose map may have
/// constant 0 results: a [C, 1, 1] per-channel scale of a quantized model
/// read as (n, c, h, w) -> (c, 0, 0)).
bool isLayoutAgnosticElementwise(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!op.getMatchingIndexingMap(init).isIdentity() ||
      op.payloadUsesValueFromOperand(init))
    return false;
  return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    return isa<RankedTensorType>(input->get().getType()) &&
           op.getMatchingIndexingMap(input).isProjectedPermutation(
               /*allowZeroInResults=*/true);
  });
}

/// Whether an input of an elementwise op of `rank` loops read through `map`
/// is full-rank (one element per iteration), not a broadcast.
static bool readsEveryElement(AffineMap map, unsigned rank) {
  return map.getNumResults() == rank && map.isPermutation();
}

/// A copy of the elementwise `op` over `inputs` read through `maps`, whose
/// result has shape `shape`, with its loops permuted: the old loop d_k is the
/// new loop e_{newLoops[k]}. The payload's `linalg.index` ops follow their
/// loop (a resize or a gather computes its indices from them).
Value cloneElementwise(PatternRewriter &rewriter, linalg::GenericOp op,
                       ValueRange inputs, ArrayRef<AffineMap> maps,
                       ArrayRef<OpFoldResult> shape,
                       ArrayRef<int64_t> newLoops) {
  Location loc = op.getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Value init = tensor::EmptyOp::create(rewriter, loc, shape,
                                       resultType.getElementType());
  SmallVector<AffineMap> indexingMaps(maps);
  indexingMaps.push_back(rewriter.getMultiDimIdentityMap(shape.size()));
  auto clone = linalg::GenericOp::create(
      rewriter, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
      indexingMaps, op.getIteratorTypesArray());
  rewriter.cloneRegionBefore(op.getRegion(), clone.getRegion(),
                             clone.getRegion().end());
  clone.getRegion().walk([&](linalg::IndexOp index) {
    if (index->getParentOfType<linalg::LinalgOp>() != clone)
      return;
    rewriter.modifyOpInPlace(index,
                             [&] { index.setDim(newLoops[index.getDim()]); });
  });
  return clone->getResult(0);
}

/// elementwise(transpose(x, p), ...) -> transpose(elementwise'(x, ...), p):
/// the elementwise op runs in the layout of x. Every full-rank input must be
/// a transpose by the same permutation, read through the identity (the
/// others, broadcasts, are read through permuted maps), so that no transpose
/// is added. A transpose that meets its inverse below cancels, which is how
/// the channels-last layout of convolutions flows through activations,
/// residual additions and paddings to the next convolution.
struct SinkTransposeThroughElementwise : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!isLayoutAgnosticElementwise(op))
      return rewriter.notifyMatchFailure(op, "not elementwise");
    unsigned rank = op.getNumLoops();
    std::optional<SmallVector<int64_t>> permutation;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (!readsEveryElement(map, rank))
        continue;
      auto transpose = input->get().getDefiningOp<linalg::TransposeOp>();
      if (!map.isIdentity() || !transpose)
        return rewriter.notifyMatchFailure(op, "a full-rank input is not a "
                                               "transpose");
      ArrayRef<int64_t> p = transpose.getPermutation();
      if (permutation && ArrayRef<int64_t>(*permutation) != p)
        return rewriter.notifyMatchFailure(op, "different permutations");
      permutation = SmallVector<int64_t>(p);
    }
    if (!permutation)
      return rewriter.notifyMatchFailure(op, "no transposed input");

    // The new loop e_i runs over dimension i of x; the old loop d_k is
    // e_{p[k]}.
    AffineMap toOld =
        AffineMap::getPermutationMap(*permutation, rewriter.getContext());
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (readsEveryElement(map, rank)) {
        inputs.push_back(
            input->get().getDefiningOp<linalg::TransposeOp>().getInput());
        maps.push_back(map);
        continue;
      }
      inputs.push_back(input->get());
      maps.push_back(map.compose(toOld));
    }
    // The sizes of the init (not of the result, which is replaced).
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, op.getLoc(), op.getDpsInits()[0]);
    SmallVector<OpFoldResult> shape(rank);
    for (auto [k, dim] : llvm::enumerate(*permutation))
      shape[dim] = sizes[k];
    Value result =
        cloneElementwise(rewriter, op, inputs, maps, shape, *permutation);
    rewriter.replaceOp(op,
                       transpose(rewriter, op.getLoc(), result, *permutation));
    return success();
  }
};

/// pad(transpose(x, p)) -> transpose(pad'(x), p) for a constant padding
/// value: the padding of dimension k moves to dimension p[k].
struct SinkTransposeThroughPad : OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::PadOp pad,
                                PatternRewriter &rewriter) const override {
    auto transposeOp = pad.getSource().getDefiningOp<linalg::TransposeOp>();
    Value padValue = pad.getConstantPaddingValue();
    if (!transposeOp || !padValue)
      return rewriter.notifyMatchFailure(pad, "not a constant padding of a "
                                              "transpose");
    ArrayRef<int64_t> permutation = transposeOp.getPermutation();
    SmallVector<OpFoldResult> oldLow = pad.getMixedLowPad();
    SmallVector<OpFoldResult> oldHigh = pad.getMixedHighPad();
    SmallVector<OpFoldResult> low(permutation.size()), high(permutation.size());
    SmallVector<int64_t> shape(permutation.size());
    for (auto [k, dim] : llvm::enumerate(permutation)) {
      low[dim] = oldLow[k];
      high[dim] = oldHigh[k];
      shape[dim] = pad.getResultType().getDimSize(k);
    }
    auto type =
        RankedTensorType::get(shape, pad.getResultType().getElementType());
    auto padded =
        tensor::PadOp::create(rewriter, pad.getLoc(), type,
                              transposeOp.getInput(), low, high, padValue);
    rewriter.replaceOp(pad, transpose(rewriter, pad.getLoc(),
                                      padded.getResult(), permutation));
    return success();
  }
};

/// transpose(broadcast(...), p) -> broadcast'(...): an elementwise op whose
/// inputs are all broadcasts (a convolution's bias spread over its output,
/// which becomes the convolution's initial value) is computed in the
/// transposed layout directly.
struct FoldTransposeOfBroadcast : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp transposeOp,
                                PatternRewriter &rewriter) const override {
    auto producer = transposeOp.getInput().getDefiningOp<linalg::GenericOp>();
    if (!producer || !producer->hasOneUse() ||
        !isLayoutAgnosticElementwise(producer))
      return rewriter.notifyMatchFailure(transposeOp, "not a broadcast");
    unsigned rank = producer.getNumLoops();
    if (llvm::any_of(producer.getDpsInputOperands(), [&](OpOperand *input) {
          return readsEveryElement(producer.getMatchingIndexingMap(input),
                                   rank);
        }))
      return rewriter.notifyMatchFailure(transposeOp, "a full-rank input");
    // Result loop e_k runs over the producer's dimension p[k]: d_{p[k]} =
    // e_k.
    SmallVector<int64_t> newLoops =
        invertPermutationVector(transposeOp.getPermutation());
    AffineMap toOld =
        AffineMap::getPermutationMap(newLoops, rewriter.getContext());
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (OpOperand *input : producer.getDpsInputOperands()) {
      inputs.push_back(input->get());
      maps.push_back(producer.getMatchingIndexingMap(input).compose(toOld));
    }
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(
        rewriter, transposeOp.getLoc(), transposeOp.getInit());
    rewriter.replaceOp(transposeOp, cloneElementwise(rewriter, producer, inputs,
                                                     maps, sizes, newLoops));
    return success();
  }
};

/// A channels-last convolution whose windows tile its input without
/// overlapping (strides equal to the kernel, no dilation: the patch
/// embedding of a vision transformer) is a matmul of the patches,
/// [N*OH*OW, KH*KW*C] by the filter [KH*KW*C, F] (a view of HWCF). The
/// patches are the input [N, OH, KH, OW, KW, C] with KH and OW swapped, one
/// transpose; the result is a view of the output. The matmul then gets the
/// register-tiled matmul route: ViT-B/32's 32x32 patches ran at a tenth of
/// its rate as a convolution.
struct PatchConvolutionToMatmul : OpRewritePattern<linalg::Conv2DNhwcHwcfOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::Conv2DNhwcHwcfOp conv,
                                PatternRewriter &rewriter) const override {
    if (!isStaticTensorOp(conv))
      return rewriter.notifyMatchFailure(conv, "needs static tensors");
    auto inputType = cast<RankedTensorType>(conv.getInputs()[0].getType());
    auto filterType = cast<RankedTensorType>(conv.getInputs()[1].getType());
    auto outputType = cast<RankedTensorType>(conv.getOutputs()[0].getType());
    Type elementType = outputType.getElementType();
    if (inputType.getElementType() != elementType ||
        filterType.getElementType() != elementType)
      return rewriter.notifyMatchFailure(conv, "mixed element types");
    ArrayRef<int64_t> filter = filterType.getShape();
    int64_t kh = filter[0], kw = filter[1], c = filter[2];
    SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
    if (!llvm::all_of(conv.getDilations().getValues<int64_t>(),
                      [](int64_t d) { return d == 1; }) ||
        strides[0] != kh || strides[1] != kw || kh * kw == 1)
      return rewriter.notifyMatchFailure(conv, "windows overlap or are 1x1");
    ArrayRef<int64_t> out = outputType.getShape();
    int64_t n = out[0], oh = out[1], ow = out[2];
    Location loc = conv.getLoc();
    Value input = conv.getInputs()[0];
    // Rows and columns past the last whole window are never read.
    if (inputType.getDimSize(1) != oh * kh ||
        inputType.getDimSize(2) != ow * kw)
      input = tensor::ExtractSliceOp::create(
          rewriter, loc, input,
          getAsIndexOpFoldResult(rewriter.getContext(), {0, 0, 0, 0}),
          getAsIndexOpFoldResult(rewriter.getContext(),
                                 {n, oh * kh, ow * kw, c}),
          getAsIndexOpFoldResult(rewriter.getContext(), {1, 1, 1, 1}));
    Value windows = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({n, oh, kh, ow, kw, c}, elementType), input,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3, 4}, {5}});
    Value patches = transpose(rewriter, loc, windows, {0, 1, 3, 2, 4, 5});
    Value rows = tensor::CollapseShapeOp::create(
        rewriter, loc, patches,
        SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
    Value matrix = tensor::CollapseShapeOp::create(
        rewriter, loc, conv.getInputs()[1],
        SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});
    SmallVector<ReassociationIndices> outputDims = {{0, 1, 2}, {3}};
    Value init = tensor::CollapseShapeOp::create(
        rewriter, loc, conv.getOutputs()[0], outputDims);
    Value product =
        linalg::MatmulOp::create(rewriter, loc, init.getType(),
                                 ValueRange{rows, matrix}, ValueRange{init})
            .getResult(0);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(conv, outputType,
                                                       product, outputDims);
    return success();
  }
};

class ConvertConvolutionsToNHWCPass
    : public orchestra::impl::ConvertConvolutionsToNHWCBase<
          ConvertConvolutionsToNHWCPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // FCHW -> HWCF.
    patterns
        .add<ConvertToNHWC<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcHwcfOp>>(
            &getContext(), ArrayRef<int64_t>{2, 3, 1, 0});
    // CHW -> HWC.
    patterns.add<ConvertToNHWC<linalg::DepthwiseConv2DNchwChwOp,
                               linalg::DepthwiseConv2DNhwcHwcOp>>(
        &getContext(), ArrayRef<int64_t>{1, 2, 0});
    // Poolings: the window is a shape, not data.
    patterns
        .add<ConvertToNHWC<linalg::PoolingNchwMaxOp, linalg::PoolingNhwcMaxOp>,
             ConvertToNHWC<linalg::PoolingNchwSumOp, linalg::PoolingNhwcSumOp>>(
            &getContext(), ArrayRef<int64_t>{0, 1});
    // 3-D: FCDHW -> DHWCF, CDHW -> DHWC; the importer's 3-D poolings are
    // generics.
    patterns.add<
        ConvertToNHWC<linalg::Conv3DNcdhwFcdhwOp, linalg::Conv3DNdhwcDhwcfOp>>(
        &getContext(), ArrayRef<int64_t>{2, 3, 4, 1, 0});
    patterns.add<ConvertToNHWC<linalg::DepthwiseConv3DNcdhwCdhwOp,
                               linalg::DepthwiseConv3DNdhwcDhwcOp>>(
        &getContext(), ArrayRef<int64_t>{1, 2, 3, 0});
    patterns.add<ConvertPooling3DToNDHWC>(&getContext());
    // The channels-last layout flows from one convolution to the next.
    patterns.add<SinkTransposeThroughElementwise, SinkTransposeThroughPad,
                 FoldTransposeOfBroadcast>(&getContext());
    // A fill transposed is a fill of the transposed shape, and transposes
    // of transposes compose.
    linalg::FillOp::getCanonicalizationPatterns(patterns, &getContext());
    linalg::TransposeOp::getCanonicalizationPatterns(patterns, &getContext());
    // Dynamic sizes (design/0017) are read from the ops' operands, so that a
    // `tensor.dim` does not keep a transpose that the layout removed alive.
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    tensor::DimOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::EmptyOp::getCanonicalizationPatterns(patterns, &getContext());
    patterns.add<ConvertGroupedToNHWC>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();

    // Once the layout has settled, the bias and activation of each grouped
    // convolution run in its 5-D shape, so that they fuse into its tiles.
    RewritePatternSet grouped(&getContext());
    linalg::populateFoldReshapeOpsByExpansionPatterns(
        grouped, shouldFoldReshapeAroundGroupedConv);
    linalg::FillOp::getCanonicalizationPatterns(grouped, &getContext());
    tensor::populateFoldTensorEmptyPatterns(grouped);
    if (failed(applyPatternsGreedily(getOperation(), std::move(grouped))))
      return signalPassFailure();

    RewritePatternSet patches(&getContext());
    patches.add<PatchConvolutionToMatmul>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patches))))
      return signalPassFailure();
  }
};

} // namespace
