//===- CPUTransformOps.cpp - CPU transform dialect extension --------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The op definitions, the extension that registers them, and the rewrite of
// `transform.orchestra.cpu_int8_dot`: a register tile of an 8-bit
// convolution or matmul as VNNI dot products (design note 0018, decision 4).
//
//===----------------------------------------------------------------------===//

// The transform dialect's extension registration checks, in builds with
// assertions, that every op implements the transform interfaces, through a
// function that libMLIR.so has only when it was built with assertions too;
// the distributions' libMLIR.so is not. This file compiles without them.
#ifndef NDEBUG
#define NDEBUG
#endif

#include "orchestra/Target/CPU/TransformOps/CPUTransformOps.h"
#include "orchestra/Target/CPU/AttrNames.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

#include "llvm/Support/MathExtras.h"

#include <functional>

using namespace mlir;

#define GET_OP_CLASSES
#include "orchestra/Target/CPU/TransformOps/CPUTransformOps.cpp.inc"

namespace {
/// The intrinsics that the CPU strategy calls (`llvm.call_intrinsic`) and
/// that only compute on their operands.
constexpr llvm::StringLiteral kPureIntrinsics[] = {
    "llvm.x86.avx512.vpdpbusd.512", "llvm.x86.avx512.vpdpbusd.256"};

/// The memory effects of `llvm.call_intrinsic`, which upstream leaves
/// unknown, so that the buffer deallocation pipeline (after the strategy)
/// refuses the kernels that call one: none for kPureIntrinsics, a read and a
/// write of any memory for every other intrinsic.
struct CallIntrinsicMemoryEffects
    : public MemoryEffectOpInterface::ExternalModel<CallIntrinsicMemoryEffects,
                                                    LLVM::CallIntrinsicOp> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<MemoryEffects::EffectInstance> &effects) const {
    if (llvm::is_contained(kPureIntrinsics,
                           cast<LLVM::CallIntrinsicOp>(op).getIntrin()))
      return;
    effects.emplace_back(MemoryEffects::Read::get());
    effects.emplace_back(MemoryEffects::Write::get());
  }
};

/// The most accumulators a tile may keep in the 32 vector registers of
/// AVX-512, leaving room for the step's filter vectors, the correction
/// accumulators and the broadcast input.
constexpr int64_t kMaxAccumulators = 24;
constexpr int64_t kMaxColumns = 8;
constexpr int64_t kMaxChannelVectors = 4;

/// The builder of one tile's code: `lanes` 32-bit lanes per vector.
class Int8DotTileBuilder {
public:
  Int8DotTileBuilder(RewriterBase &rewriter, Location loc, int64_t lanes)
      : b(rewriter), loc(loc), lanes(lanes),
        accType(VectorType::get({lanes}, b.getI32Type())),
        bytesType(VectorType::get({4 * lanes}, b.getI8Type())),
        intrinsic(b.getStringAttr(lanes == 16 ? kPureIntrinsics[0]
                                              : kPureIntrinsics[1])) {}

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }

  /// acc + the dot products of the unsigned bytes of `a` and the signed
  /// bytes of `w`, four per lane.
  Value dot(Value acc, Value a, Value w) {
    return LLVM::CallIntrinsicOp::create(b, loc, accType, intrinsic,
                                         ValueRange{acc, a, w})
        .getResult(0);
  }

  /// The `vectors` channel vectors of `lanes x 4` bytes from the four
  /// filter rows `rows` (each `vectors * lanes` bytes): byte 4 f + j of
  /// vector v is row j's byte v * lanes + f. The rows are concatenated in
  /// pairs, then each vector is one two-source shuffle (`vpermi2b`).
  SmallVector<Value> interleave(ArrayRef<Value> rows, int64_t vectors) {
    int64_t width = vectors * lanes;
    SmallVector<int64_t> concat(2 * width);
    for (int64_t i = 0; i < 2 * width; ++i)
      concat[i] = i;
    Value low = vector::ShuffleOp::create(b, loc, rows[0], rows[1], concat);
    Value high = vector::ShuffleOp::create(b, loc, rows[2], rows[3], concat);
    SmallVector<Value> result;
    for (int64_t v = 0; v < vectors; ++v) {
      SmallVector<int64_t> mask;
      for (int64_t f = 0; f < lanes; ++f)
        for (int64_t j = 0; j < 4; ++j)
          mask.push_back(j * width + v * lanes + f);
      result.push_back(vector::ShuffleOp::create(b, loc, low, high, mask));
    }
    return result;
  }

  /// The four bytes `bytes` (vector<4xi8>) shifted to unsigned (x ^ 0x80)
  /// unless `shifted` says they are, and broadcast to every lane.
  Value broadcastUnsigned(Value bytes, bool shifted) {
    if (!shifted) {
      auto quad = VectorType::get({4}, b.getI8Type());
      Value flip = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(quad, b.getI8IntegerAttr(-128)));
      bytes = arith::XOrIOp::create(b, loc, bytes, flip);
    }
    Value word = vector::BitCastOp::create(
        b, loc, VectorType::get({1}, b.getI32Type()), bytes);
    Value scalar = vector::ExtractOp::create(b, loc, word, int64_t(0));
    Value splat = vector::BroadcastOp::create(b, loc, accType, scalar);
    return vector::BitCastOp::create(b, loc, bytesType, splat);
  }

  RewriterBase &b;
  Location loc;
  int64_t lanes;
  VectorType accType;
  VectorType bytesType;
  StringAttr intrinsic;
};

/// A register tile of an 8-bit contraction, seen as a convolution: a
/// matmul tile is a 1x1 convolution of its rows ("columns" below).
struct Int8DotOperands {
  Value input, filter, init;
  int64_t columns = 0, channelsOut = 0, channels = 0;
  int64_t filterRows = 1, filterColumns = 1;
  int64_t rowStride = 1, columnStride = 1, rowDilation = 1, columnDilation = 1;
  bool isConvolution = false;
  /// Whether the output channels are fewer than `channelsOut` (its bound)
  /// on some runs.
  bool dynamicChannels = false;
  /// The filter with four input channels innermost that `filter` unpacks
  /// (orchestra-cpu-pack-int8-operands: [KH, KW, C/4, F, 4], or [K/4, N, 4]
  /// for a matmul), and the offsets (summands, per dimension of `filter`)
  /// of the tile's filter in its unpacked form; null when the filter is
  /// read as it is.
  Value packedFilter;
  SmallVector<SmallVector<OpFoldResult>> packedOffsets;
};
} // namespace

/// Whether `value` is a multiple of `factor` wherever it is computed: a
/// constant, the induction variable of an scf.for whose lower bound and
/// step are, or a sum or constant multiple of such values (`arith` or
/// `affine.apply`).
static bool isMultipleOf(OpFoldResult value, int64_t factor) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return *constant % factor == 0;
  auto operand = dyn_cast<Value>(value);
  if (!operand)
    return false;
  if (auto forOp = scf::getForInductionVarOwner(operand)) {
    std::optional<int64_t> lower = getConstantIntValue(forOp.getLowerBound());
    std::optional<int64_t> step = getConstantIntValue(forOp.getStep());
    return lower && step && *lower % factor == 0 && *step % factor == 0;
  }
  if (auto add = operand.getDefiningOp<arith::AddIOp>())
    return isMultipleOf(add.getLhs(), factor) &&
           isMultipleOf(add.getRhs(), factor);
  if (auto mul = operand.getDefiningOp<arith::MulIOp>())
    return isMultipleOf(mul.getLhs(), factor) ||
           isMultipleOf(mul.getRhs(), factor);
  auto apply = operand.getDefiningOp<affine::AffineApplyOp>();
  if (!apply)
    return false;
  AffineMap map = apply.getAffineMap();
  std::function<bool(AffineExpr)> isMultiple = [&](AffineExpr expr) {
    if (auto constant = dyn_cast<AffineConstantExpr>(expr))
      return constant.getValue() % factor == 0;
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      return isMultipleOf(apply.getDimOperands()[dim.getPosition()], factor);
    if (auto symbol = dyn_cast<AffineSymbolExpr>(expr))
      return isMultipleOf(apply.getSymbolOperands()[symbol.getPosition()],
                          factor);
    auto binary = cast<AffineBinaryOpExpr>(expr);
    if (expr.getKind() == AffineExprKind::Add)
      return isMultiple(binary.getLHS()) && isMultiple(binary.getRHS());
    if (expr.getKind() == AffineExprKind::Mul)
      return isMultiple(binary.getLHS()) || isMultiple(binary.getRHS());
    return false;
  };
  return map.getNumResults() == 1 && isMultiple(map.getResult(0));
}

/// Records in `operands` the packed filter its filter unpacks, directly or
/// through slices (unit strides): `linalg.unpack` of four input channels
/// (rows of B) innermost, the layout the dot products read. A slice's
/// offset along the input channels must be a multiple of four.
static void matchPackedFilter(Int8DotOperands &operands) {
  Value filter = operands.filter;
  int64_t rank = cast<RankedTensorType>(filter.getType()).getRank();
  SmallVector<SmallVector<OpFoldResult>> offsets(rank);
  while (auto slice = filter.getDefiningOp<tensor::ExtractSliceOp>()) {
    if (!slice.hasUnitStride() || slice.getSourceType().getRank() != rank ||
        !isMultipleOf(slice.getMixedOffsets()[rank - 2], 4))
      return;
    for (auto [d, offset] : llvm::enumerate(slice.getMixedOffsets()))
      if (!isConstantIntValue(offset, 0))
        offsets[d].push_back(offset);
    filter = slice.getSource();
  }
  auto unpack = filter.getDefiningOp<linalg::UnPackOp>();
  if (!unpack || !unpack.getOuterDimsPerm().empty() ||
      unpack.getInnerDimsPos() != ArrayRef<int64_t>{rank - 2} ||
      unpack.getStaticInnerTiles() != ArrayRef<int64_t>{4} ||
      !unpack.getSourceType().hasStaticShape())
    return;
  operands.packedFilter = unpack.getSource();
  operands.packedOffsets = std::move(offsets);
}

/// The operands of `target`, a register tile of an i8 x i8 -> i32
/// `linalg.conv_2d_nhwc_hwcf` (one image, one output row) or `linalg.matmul`
/// (row-major operands) on static tensors; a failure names what is not so.
static FailureOr<Int8DotOperands> matchInt8Dot(Operation *target,
                                               std::string &why) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(target);
  Int8DotOperands operands;
  if (auto conv = dyn_cast<linalg::Conv2DNhwcHwcfOp>(target)) {
    operands.isConvolution = true;
    SmallVector<int64_t> strides(conv.getStrides().getValues<int64_t>());
    SmallVector<int64_t> dilations(conv.getDilations().getValues<int64_t>());
    operands.rowStride = strides[0];
    operands.columnStride = strides[1];
    operands.rowDilation = dilations[0];
    operands.columnDilation = dilations[1];
  } else if (auto matmul = dyn_cast<linalg::MatmulOp>(target)) {
    if (!linalg::MatmulOp::isDefaultIndexingMaps(
            matmul.getIndexingMapsAttr()) ||
        matmul.getCast() != linalg::TypeFn::cast_signed) {
      why = "the matmul transposes, broadcasts or casts unsigned";
      return failure();
    }
  } else {
    why = "the payload op is not a linalg.conv_2d_nhwc_hwcf or linalg.matmul";
    return failure();
  }
  if (!linalgOp.hasPureTensorSemantics()) {
    why = "it is not on tensors";
    return failure();
  }
  operands.input = linalgOp.getDpsInputs()[0];
  operands.filter = linalgOp.getDpsInputs()[1];
  operands.init = linalgOp.getDpsInits()[0];
  auto inputType = dyn_cast<RankedTensorType>(operands.input.getType());
  auto filterType = dyn_cast<RankedTensorType>(operands.filter.getType());
  auto initType = dyn_cast<RankedTensorType>(operands.init.getType());
  // Static shapes, but for the output channels (a parallel tile's
  // remainder), which need a constant bound.
  auto staticButLast = [](RankedTensorType type) {
    return type &&
           llvm::none_of(type.getShape().drop_back(), ShapedType::isDynamic);
  };
  if (!inputType || !inputType.hasStaticShape() || !staticButLast(filterType) ||
      !staticButLast(initType)) {
    why = "its shapes are not static";
    return failure();
  }
  if (!inputType.getElementType().isInteger(8) ||
      !filterType.getElementType().isInteger(8) ||
      !initType.getElementType().isInteger(32)) {
    why = "it does not multiply i8 by i8 into i32";
    return failure();
  }
  ArrayRef<int64_t> outShape = initType.getShape();
  ArrayRef<int64_t> filterShape = filterType.getShape();
  if (operands.isConvolution) {
    if (outShape[0] != 1 || outShape[1] != 1) {
      why = "the tile has more than one image or output row";
      return failure();
    }
    operands.filterRows = filterShape[0];
    operands.filterColumns = filterShape[1];
  }
  operands.channelsOut = outShape.back();
  if (ShapedType::isDynamic(operands.channelsOut)) {
    FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB,
        ValueBoundsConstraintSet::Variable(operands.init, outShape.size() - 1),
        /*stopCondition=*/nullptr, /*closedUB=*/true);
    if (failed(bound)) {
      why = "its output channels have no constant bound";
      return failure();
    }
    operands.channelsOut = *bound;
    operands.dynamicChannels = true;
  }
  operands.columns = outShape[outShape.size() - 2];
  operands.channels = filterShape[filterShape.size() - 2];
  matchPackedFilter(operands);
  return operands;
}

/// How many steps of the whole kernel read each byte of the tile's input:
/// one per tile of `tileChannels` output channels of the whole filter (or
/// B), per filter tap, divided by the strides.
static int64_t getInputReads(const Int8DotOperands &tile,
                             int64_t tileChannels) {
  Value filter = tile.filter;
  while (auto slice = filter.getDefiningOp<tensor::ExtractSliceOp>())
    filter = slice.getSource();
  auto type = cast<RankedTensorType>(filter.getType());
  int64_t channels = type.getShape().back();
  if (ShapedType::isDynamic(channels))
    return 0;
  int64_t reads = llvm::divideCeil(channels, tileChannels);
  if (tile.isConvolution && type.getRank() == 4 && type.hasStaticShape())
    reads = reads * type.getDimSize(0) * type.getDimSize(1) /
            (tile.rowStride * tile.columnStride);
  return reads;
}

/// `input` (a tile's input: slices of a tensor of the function's body) read
/// from the same slices of a copy of that tensor with its bytes shifted to
/// unsigned (x ^ 0x80): a `linalg.generic` beside it that the tiles of the
/// kernel share (the first creates it). Failure when the input is not such
/// a slice.
static FailureOr<Value> getUnsignedInput(RewriterBase &rewriter, Value input) {
  SmallVector<tensor::ExtractSliceOp> slices;
  Value source = input;
  while (auto slice = source.getDefiningOp<tensor::ExtractSliceOp>()) {
    slices.push_back(slice);
    source = slice.getSource();
  }
  auto sourceType = dyn_cast<RankedTensorType>(source.getType());
  Region *region = source.getParentRegion();
  if (slices.empty() || !sourceType || !sourceType.hasStaticShape() ||
      !region || !isa<func::FuncOp>(region->getParentOp()))
    return failure();
  Operation *shifted = nullptr;
  for (Operation *user : source.getUsers())
    if (user->hasAttr(orchestra::cpu::attr::kInt8UnsignedInput) &&
        user->getOperand(0) == source)
      shifted = user;
  if (!shifted) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointAfterValue(source);
    Location loc = source.getLoc();
    Value init = tensor::EmptyOp::create(rewriter, loc, sourceType.getShape(),
                                         sourceType.getElementType());
    AffineMap identity = rewriter.getMultiDimIdentityMap(sourceType.getRank());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, sourceType, ValueRange{source}, ValueRange{init},
        ArrayRef<AffineMap>{identity, identity},
        SmallVector<utils::IteratorType>(sourceType.getRank(),
                                         utils::IteratorType::parallel),
        [](OpBuilder &b, Location loc, ValueRange args) {
          Value flip =
              arith::ConstantOp::create(b, loc, b.getI8IntegerAttr(-128));
          linalg::YieldOp::create(
              b, loc, ValueRange{arith::XOrIOp::create(b, loc, args[0], flip)});
        });
    generic->setAttr(orchestra::cpu::attr::kInt8UnsignedInput,
                     rewriter.getUnitAttr());
    shifted = generic;
  }
  // The same slices, outermost first.
  Value value = shifted->getResult(0);
  for (tensor::ExtractSliceOp slice : llvm::reverse(slices)) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(slice);
    value = tensor::ExtractSliceOp::create(
                rewriter, slice.getLoc(), slice.getType(), value,
                slice.getMixedOffsets(), slice.getMixedSizes(),
                slice.getMixedStrides())
                .getResult();
  }
  return value;
}

/// Moves `ops` (consecutive ops of one block that use, besides each other's
/// results, only values defined above them) out of the enclosing scf.for
/// loops whose iterations they do not depend on.
static void hoistOutOfLoops(ArrayRef<Operation *> ops) {
  if (ops.empty())
    return;
  llvm::SmallPtrSet<Operation *, 32> moved(ops.begin(), ops.end());
  auto isMoved = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (!def)
      def = value.getParentBlock()->getParentOp();
    for (; def; def = def->getParentOp())
      if (moved.contains(def))
        return true;
    return false;
  };
  while (auto loop = dyn_cast<scf::ForOp>(ops.front()->getParentOp())) {
    bool invariant = true;
    for (Operation *op : ops)
      op->walk([&](Operation *nested) {
        for (Value operand : nested->getOperands())
          if (!isMoved(operand) && !loop.isDefinedOutsideOfLoop(operand))
            invariant = false;
      });
    if (!invariant)
      return;
    for (Operation *op : ops)
      op->moveBefore(loop);
  }
}

DiagnosedSilenceableFailure
transform::CPUInt8DotOp::applyToOne(transform::TransformRewriter &rewriter,
                                    Operation *target,
                                    transform::ApplyToEachResultList &results,
                                    transform::TransformState &state) {
  auto fail = [&](const Twine &why) {
    DiagnosedSilenceableFailure diag =
        emitSilenceableError()
        << "cannot compute the tile with 8-bit dot products: " << why;
    diag.attachNote(target->getLoc()) << "tile";
    return diag;
  };
  std::string why;
  FailureOr<Int8DotOperands> match = matchInt8Dot(target, why);
  if (failed(match))
    return fail(why);
  const Int8DotOperands &tile = *match;
  auto width =
      target->getAttrOfType<IntegerAttr>(orchestra::cpu::attr::kInt8Dot);
  if (!width || (width.getInt() != 512 && width.getInt() != 256))
    return fail("it has no `orchestra.int8_dot` width of 512 or 256");
  int64_t lanes = width.getInt() / 32;
  int64_t vectors = llvm::divideCeil(tile.channelsOut, lanes);
  if (tile.columns > kMaxColumns || vectors > kMaxChannelVectors ||
      tile.columns * vectors > kMaxAccumulators)
    return fail("the tile has more than 8 columns, 4 vectors of channels or "
                "24 accumulators");

  Location loc = target->getLoc();
  // The input with its bytes shifted to unsigned once for the whole kernel,
  // when the tile's input is a slice of a tensor of the function's body and
  // the kernel reads each input byte at least four times (the copy costs a
  // pass over the input; MobileNetV2's pointwise convolutions of 24
  // channels read each byte once).
  Value input = tile.input;
  bool unsignedInput = false;
  if (getInputReads(tile, lanes * vectors) >= 4)
    if (FailureOr<Value> shifted = getUnsignedInput(rewriter, tile.input);
        succeeded(shifted)) {
      input = *shifted;
      unsignedInput = true;
    }
  rewriter.setInsertionPoint(target);
  Int8DotTileBuilder build(rewriter, loc, lanes);
  int64_t width8 = vectors * lanes;
  auto whole = [&](int64_t v) {
    return SmallVector<bool>{!tile.dynamicChannels &&
                             (v + 1) * lanes <= tile.channelsOut};
  };
  bool wholeQuads = tile.channels % 4 == 0;
  auto quadType = VectorType::get({4}, rewriter.getI8Type());
  auto rowsType = VectorType::get({4, width8}, rewriter.getI8Type());
  int64_t filterRank = tile.isConvolution ? 4 : 2;
  AffineMap rowsMap =
      AffineMap::getMinorIdentityMap(filterRank, 2, rewriter.getContext());
  // The loops over the filter's rows and columns and the input channels by
  // four, outermost first, carrying `initial`; `body` computes one step.
  SmallVector<int64_t> tripCounts = {
      tile.filterRows, tile.filterColumns,
      static_cast<int64_t>(llvm::divideCeil(tile.channels, 4))};
  using StepFn =
      function_ref<SmallVector<Value>(Value, Value, Value, ValueRange)>;
  auto buildSteps = [&](ValueRange initial, StepFn body) -> SmallVector<Value> {
    SmallVector<Value> ivs;
    std::function<SmallVector<Value>(size_t, ValueRange)> loop =
        [&](size_t depth, ValueRange carried) -> SmallVector<Value> {
      if (depth == tripCounts.size())
        return body(ivs[0], ivs[1], ivs[2], carried);
      auto forOp = scf::ForOp::create(rewriter, loc, build.index(0),
                                      build.index(tripCounts[depth]),
                                      build.index(1), carried);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(forOp.getBody());
      ivs.push_back(forOp.getInductionVar());
      SmallVector<Value> yielded = loop(depth + 1, forOp.getRegionIterArgs());
      ivs.pop_back();
      scf::YieldOp::create(rewriter, loc, yielded);
      return SmallVector<Value>(forOp.getResults());
    };
    return loop(0, initial);
  };

  // What reads only the filter comes first, so that it can leave the loops
  // of the tiles it does not depend on (below): a packed filter read with
  // the channels and their four bytes as one dimension, [KH, KW, C/4, F * 4]
  // ([K/4, N * 4]), at the tile's offsets (the input channels' in fours).
  Block::iterator filterBegin = rewriter.getInsertionPoint();
  bool atBlockStart = filterBegin == rewriter.getInsertionBlock()->begin();
  if (!atBlockStart)
    --filterBegin;
  Value zeroI8 =
      arith::ConstantOp::create(rewriter, loc, rewriter.getI8IntegerAttr(0));
  Value zeroAcc = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(build.accType, rewriter.getI32IntegerAttr(0)));
  Value unsignedOffset = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(build.bytesType, rewriter.getI8IntegerAttr(-128)));
  Value packedFilter;
  SmallVector<Value> packedOffsets;
  if (tile.packedFilter) {
    SmallVector<ReassociationIndices> groups = {{0}, {1, 2}};
    if (tile.isConvolution)
      groups = {{0}, {1}, {2}, {3, 4}};
    packedFilter = tensor::CollapseShapeOp::create(rewriter, loc,
                                                   tile.packedFilter, groups);
    for (auto [d, summands] : llvm::enumerate(tile.packedOffsets)) {
      Value offset = build.index(0);
      for (OpFoldResult summand : summands)
        offset = arith::AddIOp::create(
            rewriter, loc, offset,
            getValueOrCreateConstantIndexOp(rewriter, loc, summand));
      if (d + 2 == tile.packedOffsets.size())
        offset = arith::DivUIOp::create(rewriter, loc, offset, build.index(4));
      packedOffsets.push_back(offset);
    }
  }
  // The filter bytes of tap (kh, kw) and four input channels from 4 * c4,
  // `lanes x 4` per channel vector.
  auto loadWeights = [&](Value kh, Value kw, Value c4) -> SmallVector<Value> {
    SmallVector<Value> weights;
    if (packedFilter) {
      // Each vector's 16 (8) output channels x 4 input channels are
      // contiguous: one load, masked past the last channel.
      auto plus = [&](Value index, Value offset) -> Value {
        return arith::AddIOp::create(rewriter, loc, index, offset);
      };
      for (int64_t v = 0; v < vectors; ++v) {
        Value channel = plus(packedOffsets.back(), build.index(v * lanes));
        Value byte =
            arith::MulIOp::create(rewriter, loc, channel, build.index(4));
        SmallVector<Value> indices = {plus(c4, packedOffsets[0]), byte};
        if (tile.isConvolution)
          indices = {plus(kh, packedOffsets[0]), plus(kw, packedOffsets[1]),
                     plus(c4, packedOffsets[2]), byte};
        weights.push_back(vector::TransferReadOp::create(
            rewriter, loc, build.bytesType, packedFilter, indices, zeroI8,
            ArrayRef<bool>(whole(v))));
      }
      return weights;
    }
    Value c = arith::MulIOp::create(rewriter, loc, c4, build.index(4));
    SmallVector<Value> filterIndices = {c, build.index(0)};
    if (tile.isConvolution)
      filterIndices = {kh, kw, c, build.index(0)};
    Value rows = vector::TransferReadOp::create(
        rewriter, loc, rowsType, tile.filter, filterIndices, zeroI8, rowsMap,
        ArrayRef<bool>{wholeQuads,
                       !tile.dynamicChannels && tile.channelsOut == width8});
    SmallVector<Value> row;
    for (int64_t j = 0; j < 4; ++j)
      row.push_back(vector::ExtractOp::create(rewriter, loc, rows, j));
    return build.interleave(row, vectors);
  };
  // `vpdpbusd` multiplies unsigned by signed bytes: the tile computes
  // sum (x ^ 0x80) w = sum x w + 128 sum w and subtracts the corrections
  // 128 sum w, one vector per channel vector. From a packed filter they are
  // their own loops, which leave the loops over the tile's columns (rows of
  // a matmul): computed once per channel tile instead of at every step of
  // every register tile.
  SmallVector<Value> corrections;
  auto correct = [&](ArrayRef<Value> weights, ValueRange carried) {
    SmallVector<Value> next(carried.begin(), carried.end());
    for (int64_t v = 0; v < vectors; ++v)
      next[v] = build.dot(next[v], unsignedOffset, weights[v]);
    return next;
  };
  if (packedFilter) {
    corrections =
        buildSteps(SmallVector<Value>(vectors, zeroAcc),
                   [&](Value kh, Value kw, Value c4, ValueRange carried) {
                     return correct(loadWeights(kh, kw, c4), carried);
                   });
    Block::iterator filterEnd = rewriter.getInsertionPoint();
    Block::iterator first = atBlockStart ? rewriter.getInsertionBlock()->begin()
                                         : std::next(filterBegin);
    SmallVector<Operation *> filterOps;
    for (Operation &op : llvm::make_range(first, filterEnd))
      filterOps.push_back(&op);
    hoistOutOfLoops(filterOps);
  }

  Value zero = build.index(0);
  Value zeroI32 =
      arith::ConstantOp::create(rewriter, loc, rewriter.getI32IntegerAttr(0));
  // The output's indices of column m, channel vector v.
  auto outputIndices = [&](int64_t m, int64_t v) -> SmallVector<Value> {
    Value column = build.index(m), channel = build.index(v * lanes);
    if (tile.isConvolution)
      return {zero, zero, column, channel};
    return {column, channel};
  };

  // The accumulators (by column, then channel vector), then, with a filter
  // read as it is, the corrections.
  SmallVector<Value> initial;
  for (int64_t m = 0; m < tile.columns; ++m)
    for (int64_t v = 0; v < vectors; ++v)
      initial.push_back(vector::TransferReadOp::create(
          rewriter, loc, build.accType, tile.init, outputIndices(m, v), zeroI32,
          ArrayRef<bool>(whole(v))));
  int64_t accumulators = tile.columns * vectors;
  if (!packedFilter)
    initial.append(vectors, zeroAcc);
  // One step: the filter bytes against each column's four input bytes.
  auto step = [&](Value kh, Value kw, Value c4,
                  ValueRange carried) -> SmallVector<Value> {
    Value c = arith::MulIOp::create(rewriter, loc, c4, build.index(4));
    SmallVector<Value> weights = loadWeights(kh, kw, c4);
    SmallVector<Value> next(carried.begin(), carried.end());
    Value inputRow =
        arith::MulIOp::create(rewriter, loc, kh, build.index(tile.rowDilation));
    Value inputColumn = arith::MulIOp::create(rewriter, loc, kw,
                                              build.index(tile.columnDilation));
    for (int64_t m = 0; m < tile.columns; ++m) {
      Value column = arith::AddIOp::create(rewriter, loc, inputColumn,
                                           build.index(m * tile.columnStride));
      SmallVector<Value> inputIndices = {column, c};
      if (tile.isConvolution)
        inputIndices = {zero, inputRow, column, c};
      Value bytes = vector::TransferReadOp::create(rewriter, loc, quadType,
                                                   input, inputIndices, zeroI8,
                                                   ArrayRef<bool>{wholeQuads});
      Value broadcast = build.broadcastUnsigned(bytes, unsignedInput);
      for (int64_t v = 0; v < vectors; ++v) {
        Value &acc = next[m * vectors + v];
        acc = build.dot(acc, broadcast, weights[v]);
      }
    }
    if (!packedFilter) {
      SmallVector<Value> corrected =
          correct(weights, ValueRange(carried).drop_front(accumulators));
      std::copy(corrected.begin(), corrected.end(),
                next.begin() + accumulators);
    }
    return next;
  };
  SmallVector<Value> sums = buildSteps(initial, step);
  if (!packedFilter)
    corrections.assign(sums.begin() + accumulators, sums.end());

  Value result = tile.init;
  for (int64_t m = 0; m < tile.columns; ++m)
    for (int64_t v = 0; v < vectors; ++v) {
      Value exact = arith::SubIOp::create(rewriter, loc, sums[m * vectors + v],
                                          corrections[v]);
      result = vector::TransferWriteOp::create(rewriter, loc, exact, result,
                                               outputIndices(m, v),
                                               ArrayRef<bool>(whole(v)))
                   .getResult();
    }
  rewriter.replaceOp(target, result);
  return DiagnosedSilenceableFailure::success();
}

void transform::CPUInt8DotOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}

namespace {
/// `tensor.extract_slice` of one tile of a `linalg.unpack`, directly or
/// through slices, -> a rank-reducing slice of the packed tensor (see the
/// op's description).
struct FoldUnpackSlice : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    int64_t rank = slice.getType().getRank();
    // The offsets of the slice in the unpacked tensor: summands per
    // dimension, one per slice on the way.
    SmallVector<SmallVector<OpFoldResult>> summands(rank);
    Value source = slice.getResult();
    while (auto link = source.getDefiningOp<tensor::ExtractSliceOp>()) {
      if (!link.hasUnitStride() || link.getSourceType().getRank() != rank ||
          link.getType().getRank() != rank)
        return rewriter.notifyMatchFailure(slice, "strided or rank-reducing");
      for (auto [d, offset] : llvm::enumerate(link.getMixedOffsets()))
        if (!isConstantIntValue(offset, 0))
          summands[d].push_back(offset);
      source = link.getSource();
    }
    auto unpack = source.getDefiningOp<linalg::UnPackOp>();
    if (!unpack)
      return rewriter.notifyMatchFailure(slice, "not a slice of an unpack");
    SmallVector<int64_t> tiles(unpack.getStaticInnerTiles());
    if (unpack.getInnerDimsPos() !=
            ArrayRef(llvm::to_vector(llvm::seq<int64_t>(0, rank))) ||
        llvm::any_of(tiles, ShapedType::isDynamic))
      return rewriter.notifyMatchFailure(slice, "not tiled in order");
    // At most one tile per dimension (a block at the end of a dimension
    // that is no multiple of the tile may be partial: its size is bounded
    // by the tile's).
    SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
    for (auto [size, tile] : llvm::zip(sizes, tiles)) {
      FailureOr<int64_t> bound = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(size),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (failed(bound) || *bound > tile)
        return rewriter.notifyMatchFailure(slice, "larger than a tile");
    }
    for (auto [offsets, tile] : llvm::zip(summands, tiles))
      if (!llvm::all_of(offsets, [&, tile = tile](OpFoldResult offset) {
            return isMultipleOf(offset, tile);
          }))
        return rewriter.notifyMatchFailure(slice, "an offset is not aligned");
    SmallVector<int64_t> perm(unpack.getOuterDimsPerm());
    if (perm.empty())
      perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));

    // The tile's position in the packed tensor's outer dimensions, then
    // the whole tile.
    Location loc = slice.getLoc();
    SmallVector<OpFoldResult> packedOffsets, packedSizes;
    for (int64_t d : perm) {
      AffineExpr sum = rewriter.getAffineConstantExpr(0);
      for (int64_t i = 0, e = summands[d].size(); i < e; ++i)
        sum = sum + rewriter.getAffineDimExpr(i);
      packedOffsets.push_back(affine::makeComposedFoldedAffineApply(
          rewriter, loc,
          AffineMap::get(summands[d].size(), 0, sum.floorDiv(tiles[d])),
          summands[d]));
    }
    packedSizes.assign(rank, rewriter.getIndexAttr(1));
    packedOffsets.append(rank, rewriter.getIndexAttr(0));
    packedSizes.append(sizes);
    SmallVector<OpFoldResult> strides(2 * rank, rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
        slice, slice.getType(), unpack.getSource(), packedOffsets, packedSizes,
        strides);
    return success();
  }
};
} // namespace

void transform::ApplyFoldUnpackSlicesPatternsOp::populatePatterns(
    RewritePatternSet &patterns) {
  patterns.add<FoldUnpackSlice>(patterns.getContext());
}

namespace {
class CPUTransformDialectExtension
    : public transform::TransformDialectExtension<
          CPUTransformDialectExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CPUTransformDialectExtension)

  using Base::Base;

  void init() {
    declareGeneratedDialect<affine::AffineDialect>();
    declareGeneratedDialect<arith::ArithDialect>();
    declareGeneratedDialect<LLVM::LLVMDialect>();
    declareGeneratedDialect<linalg::LinalgDialect>();
    declareGeneratedDialect<scf::SCFDialect>();
    declareGeneratedDialect<tensor::TensorDialect>();
    declareGeneratedDialect<vector::VectorDialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "orchestra/Target/CPU/TransformOps/CPUTransformOps.cpp.inc"
        >();
  }
};
} // namespace

void mlir::orchestra::cpu::registerTransformDialectExtension(
    DialectRegistry &registry) {
  registry.addExtensions<CPUTransformDialectExtension>();
  registry.addExtension(+[](MLIRContext *ctx, LLVM::LLVMDialect *) {
    LLVM::CallIntrinsicOp::attachInterface<CallIntrinsicMemoryEffects>(*ctx);
  });
}
