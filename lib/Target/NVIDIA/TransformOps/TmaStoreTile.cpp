//===- TmaStoreTile.cpp - transform.orchestra.nvidia_tma_store_tile -------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

// Like the core transform ops, these compile without assertions: see
// NVIDIATransformOps.cpp.
#ifndef NDEBUG
#define NDEBUG
#endif

#include "orchestra/Target/NVIDIA/TransformOps/NVIDIATransformOps.h"

#include "StagedMatmul.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/IntegerSet.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::orchestra::nvidia;

/// The memref an op that may write a block's output tile writes, or null.
static Value getWrittenMemRef(Operation *op) {
  if (auto write = dyn_cast<vector::TransferWriteOp>(op))
    return write.getBase();
  if (auto store = dyn_cast<vector::StoreOp>(op))
    return store.getBase();
  if (auto store = dyn_cast<memref::StoreOp>(op))
    return store.getMemref();
  if (auto store = dyn_cast<nvgpu::WarpgroupMmaStoreOp>(op))
    return store.getDstMemref();
  return Value();
}

/// Whether `value` lives in global memory (no memory space).
static bool isGlobalMemRef(Value value) {
  auto type = dyn_cast<BaseMemRefType>(value.getType());
  return type && !type.getMemorySpace();
}

/// Rebuilds the uses of `oldValue` on `newValue` (same shape, another
/// layout and memory space): subviews are made again on it, other users
/// take it as their operand.
static void rebuildOnTile(RewriterBase &rewriter, Value oldValue,
                          Value newValue) {
  for (OpOperand &use : llvm::make_early_inc_range(oldValue.getUses())) {
    Operation *user = use.getOwner();
    if (auto view = dyn_cast<memref::SubViewOp>(user)) {
      rewriter.setInsertionPoint(view);
      auto type = memref::SubViewOp::inferRankReducedResultType(
          view.getType().getShape(), cast<MemRefType>(newValue.getType()),
          view.getMixedOffsets(), view.getMixedSizes(), view.getMixedStrides());
      Value rebuilt = memref::SubViewOp::create(
          rewriter, view.getLoc(), cast<MemRefType>(type), newValue,
          view.getMixedOffsets(), view.getMixedSizes(), view.getMixedStrides());
      rebuildOnTile(rewriter, view.getResult(), rebuilt);
      rewriter.eraseOp(view);
      continue;
    }
    rewriter.modifyOpInPlace(user, [&] { use.set(newValue); });
  }
}

/// Whether the writes through `tile` (a static rows x cols buffer) provably
/// write every element of it, all of them in `block`: each use is either
///   * a view of rows 0-63 of a 128-row tile that only
///     `nvgpu.warpgroup.mma.store`s write (their lowering writes rows 0-127,
///     see nvidia_warpgroup_mma);
///   * a `vector.store` of `nvidia_tcgen05_mma` (`orchestra.gpu_tile_store`),
///   all of
///     whose stores together write the tile;
///   * a view, in a thread-level `scf.forall` of `block` with static bounds
///     (b0, b1), of the block [i0 s0, i1 s1] x [s0, s1] with b0 s0 = rows and
///     b1 s1 = cols, that only unmasked in-bounds `vector.transfer_write`s
///     of the whole view, directly in the forall's body, write.
static bool writesWholeTile(Value tile, Block *block) {
  auto type = cast<MemRefType>(tile.getType());
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  bool covered = false;
  for (OpOperand &use : tile.getUses()) {
    Operation *user = use.getOwner();
    if (auto store = dyn_cast<vector::StoreOp>(user)) {
      if (!store->hasAttr(orchestra::nvidia::attr::kTileStore) ||
          store->getBlock() != block)
        return false;
      covered = true;
      continue;
    }
    auto view = dyn_cast<memref::SubViewOp>(user);
    if (!view || !areAllConstantIntValue(view.getMixedStrides(), 1) ||
        view.getType().getRank() != 2 || !view.getType().hasStaticShape())
      return false;
    ArrayRef<int64_t> sizes = view.getType().getShape();
    if (view->getBlock() == block) {
      // The warpgroup MMA store's view.
      if (rows != 128 || sizes[0] != 64 || sizes[1] != cols ||
          !areAllConstantIntValue(view.getMixedOffsets(), 0) ||
          !llvm::all_of(view->getUsers(), [](Operation *op) {
            return isa<nvgpu::WarpgroupMmaStoreOp>(op);
          }))
        return false;
      covered = true;
      continue;
    }
    auto forall = dyn_cast<scf::ForallOp>(view->getParentOp());
    if (!forall || forall->getBlock() != block || forall.getRank() != 2 ||
        !forall.getMapping() || forall.getMapping()->empty() ||
        !isa<gpu::GPUThreadMappingAttr>(forall.getMapping()->getValue()[0]))
      return false;
    // (Dynamic bounds are ShapedType::kDynamic here, which fails the
    // comparisons.)
    ArrayRef<int64_t> lbs = forall.getStaticLowerBound();
    ArrayRef<int64_t> ubs = forall.getStaticUpperBound();
    ArrayRef<int64_t> steps = forall.getStaticStep();
    if (llvm::any_of(lbs, [](int64_t v) { return v != 0; }) ||
        llvm::any_of(steps, [](int64_t v) { return v != 1; }) ||
        ShapedType::isDynamic(ubs[0]) || ShapedType::isDynamic(ubs[1]) ||
        ubs[0] * sizes[0] != rows || ubs[1] * sizes[1] != cols)
      return false;
    SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
    for (int d = 0; d < 2; ++d)
      if (!isIvTimes(offsets[d], forall, d, sizes[d]))
        return false;
    for (Operation *writer : view->getUsers()) {
      auto write = dyn_cast<vector::TransferWriteOp>(writer);
      if (!write || write->getParentOp() != forall.getOperation() ||
          write.getMask() || write.getVectorType().getShape() != sizes ||
          !write.getPermutationMap().isMinorIdentity() ||
          llvm::any_of(write.getInBoundsValues(), [](bool b) { return !b; }) ||
          llvm::any_of(write.getIndices(),
                       [](Value index) { return !isZeroInteger(index); }))
        return false;
    }
    covered = true;
  }
  return covered;
}

DiagnosedSilenceableFailure transform::NVIDIATmaStoreTileOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  auto fail = [&](const Twine &why) {
    DiagnosedSilenceableFailure diag =
        emitSilenceableError()
        << "cannot store the block's output tile with TMA: " << why;
    diag.attachNote(target->getLoc()) << "K loop";
    return diag;
  };
  auto loop = dyn_cast<scf::ForOp>(target);
  if (!loop)
    return fail("the payload op is not an scf.for");
  scf::ForallOp blockForall;
  if (!findBlockForall(loop, blockForall))
    return fail("it is not inside a block-level scf.forall");
  Block *block = loop->getBlock();
  auto isOutside = [&](Value value) {
    Operation *owner = value.getDefiningOp();
    if (!owner)
      owner = cast<BlockArgument>(value).getOwner()->getParentOp();
    return !blockForall->isAncestor(owner);
  };

  // The tile: the one view of a global buffer that the ops after the loop
  // write global memory through.
  memref::SubViewOp tileView;
  std::string problem;
  for (Operation *op = loop->getNextNode(); op && problem.empty();
       op = op->getNextNode()) {
    op->walk([&](Operation *inner) {
      // The NVVM ops of the MMA ops and the waits of their tcgen05.ld (an
      // inline asm with side effects) work on registers, tensor memory and
      // shared memory.
      StringRef name = inner->getName().getStringRef();
      if (name.starts_with("nvvm.tcgen05.") ||
          name.starts_with("nvvm.wgmma.") ||
          name.starts_with("nvvm.mbarrier.") ||
          name.starts_with("nvvm.fence.") ||
          inner->hasAttr(orchestra::nvidia::attr::kTcgen05Wait))
        return;
      SmallVector<Value> written;
      if (Value memref = getWrittenMemRef(inner))
        written.push_back(memref);
      else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(inner))
        for (OpOperand &init : linalgOp.getDpsInitsMutable())
          written.push_back(init.get());
      else if (auto effects = dyn_cast<MemoryEffectOpInterface>(inner)) {
        SmallVector<MemoryEffects::EffectInstance> instances;
        effects.getEffects(instances);
        for (auto &instance : instances)
          if (isa<MemoryEffects::Write>(instance.getEffect()) &&
              (!instance.getValue() || isGlobalMemRef(instance.getValue())))
            problem =
                ("an op after the loop ('" + inner->getName().getStringRef() +
                 "') writes global memory in a way this op does not "
                 "handle")
                    .str();
      } else if (!inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
                 !inner->hasTrait<OpTrait::IsTerminator>() &&
                 !isa<gpu::BarrierOp>(inner)) {
        // Unknown effects (barriers only synchronize).
        problem = ("an op after the loop ('" + inner->getName().getStringRef() +
                   "') has unknown memory effects")
                      .str();
      }
      for (Value memref : written) {
        if (!isGlobalMemRef(memref))
          continue;
        Value value = memref;
        memref::SubViewOp found;
        while (auto view = value.getDefiningOp<memref::SubViewOp>()) {
          if (isOutside(view.getSource())) {
            found = view;
            break;
          }
          value = view.getSource();
        }
        if (!found || (tileView && found != tileView))
          problem = "the ops after the loop do not write global memory "
                    "through one view of a global buffer";
        else
          tileView = found;
      }
    });
  }
  if (!problem.empty())
    return fail(problem);
  if (!tileView)
    return fail("nothing after the loop writes global memory");
  auto tileType = cast<MemRefType>(tileView.getType());
  auto bufferType = dyn_cast<MemRefType>(tileView.getSource().getType());
  if (tileView->getBlock() != block || !bufferType ||
      bufferType.getRank() != 2 || !bufferType.hasStaticShape() ||
      !bufferType.getLayout().isIdentity() || tileType.getRank() != 2 ||
      !tileType.hasStaticShape() ||
      !areAllConstantIntValue(tileView.getMixedStrides(), 1))
    return fail("the tile is not a static unit-stride 2-D view, in the "
                "loop's block, of a static row-major 2-D global buffer");
  int64_t rows = tileType.getDimSize(0), cols = tileType.getDimSize(1);
  Type element = tileType.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return fail("the tile's elements are not whole bytes");
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  if (rows > 256 || cols > 256 || (cols * elementBytes) % 16 != 0 ||
      (bufferType.getDimSize(1) * elementBytes) % 16 != 0)
    return fail("the tile does not fit a TMA box (at most 256 elements per "
                "dimension, rows a multiple of 16 bytes)");
  // Everything that uses the tile writes it, after the loop.
  {
    SmallVector<Value> values = {tileView.getResult()};
    while (!values.empty()) {
      Value value = values.pop_back_val();
      for (OpOperand &use : value.getUses()) {
        Operation *user = use.getOwner();
        Operation *inBlock = block->findAncestorOpInBlock(*user);
        if (!inBlock || !loop->isBeforeInBlock(inBlock))
          return fail("the tile is used before or in the loop");
        if (auto view = dyn_cast<memref::SubViewOp>(user)) {
          values.push_back(view.getResult());
          continue;
        }
        bool writes = getWrittenMemRef(user) == value;
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user))
          writes = linalgOp.isDpsInit(&use) &&
                   !linalgOp.payloadUsesValueFromOperand(&use) &&
                   llvm::none_of(linalgOp.getDpsInputs(),
                                 [&](Value input) { return input == value; });
        if (!writes)
          return fail("something reads the tile, or uses it in a way this "
                      "op does not handle");
      }
    }
  }
  if (!writesWholeTile(tileView.getResult(), block))
    return fail("the ops after the loop do not provably write the whole tile "
                "(a TMA store of the tile would write the rest)");

  // Room for the tile: the stage buffers' bytes, dead after the loop.
  SetVector<Value> stageBuffers;
  blockForall.walk([&](nvgpu::TmaAsyncLoadOp load) {
    if (auto view = load.getDst().getDefiningOp<memref::ReinterpretCastOp>())
      stageBuffers.insert(view.getSource());
    else if (auto view = load.getDst().getDefiningOp<memref::SubViewOp>())
      stageBuffers.insert(view.getSource());
  });
  int64_t tileBytes = rows * cols * elementBytes;
  auto tileSharedType = MemRefType::get(
      {rows, cols}, element, AffineMap(),
      gpu::AddressSpaceAttr::get(rewriter.getContext(),
                                 gpu::GPUDialect::getWorkgroupAddressSpace()));
  auto bytesOf = [](MemRefType type) {
    return type.getNumElements() * static_cast<int64_t>(llvm::divideCeil(
                                       type.getElementTypeBitWidth(), 8));
  };
  Location loc = loop.getLoc();
  Value tile;
  auto firstView = stageBuffers.empty()
                       ? memref::ViewOp()
                       : stageBuffers.front().getDefiningOp<memref::ViewOp>();
  if (stageBuffers.size() == 2 && firstView &&
      llvm::all_of(stageBuffers, [&](Value buffer) {
        auto view = buffer.getDefiningOp<memref::ViewOp>();
        return view && view.getSource() == firstView.getSource();
      })) {
    // The stages already share their bytes with the accumulator tile: the
    // output tile goes after what is used after the loop.
    auto shared = firstView.getSource().getDefiningOp<memref::AllocOp>();
    if (!shared || !isWorkgroupAllocIn(shared, block))
      return fail("the stages' shared allocation is not in the loop's block");
    int64_t used = 0;
    for (Operation *user : shared->getUsers()) {
      auto view = dyn_cast<memref::ViewOp>(user);
      std::optional<int64_t> shift =
          view ? getConstantIntValue(view.getByteShift()) : std::nullopt;
      if (!view || !shift || !view.getType().hasStaticShape())
        return fail("the stages' shared allocation has a view this op does "
                    "not understand");
      SmallVector<Operation *> users;
      collectUsersThroughViews(view.getResult(), users);
      bool after = llvm::any_of(users, [&](Operation *other) {
        Operation *inBlock = block->findAncestorOpInBlock(*other);
        return !inBlock || loop->isBeforeInBlock(inBlock);
      });
      if (after)
        used = std::max(used, *shift + bytesOf(view.getType()));
    }
    int64_t offset = static_cast<int64_t>(llvm::alignTo(used, 128));
    if (offset + tileBytes <= bytesOf(shared.getType())) {
      rewriter.setInsertionPoint(loop);
      tile = memref::ViewOp::create(
          rewriter, loc, tileSharedType, shared,
          arith::ConstantIndexOp::create(rewriter, loc, offset), ValueRange());
    }
  } else if (stageBuffers.size() == 2) {
    auto aStages = stageBuffers[0].getDefiningOp<memref::AllocOp>();
    auto bStages = stageBuffers[1].getDefiningOp<memref::AllocOp>();
    if (aStages && bStages &&
        tileBytes <= bytesOf(aStages.getType()) + bytesOf(bStages.getType())) {
      rewriter.setInsertionPoint(loop);
      auto alloc = memref::AllocOp::create(rewriter, loc, tileSharedType,
                                           rewriter.getI64IntegerAttr(128));
      tile = alloc.getResult();
      if (!shareStagesWithAccumulator(rewriter, loop, aStages, bStages, tile)) {
        rewriter.eraseOp(alloc);
        tile = Value();
      }
    }
  }
  if (!tile)
    return DiagnosedSilenceableFailure::success(); // no room: left alone

  // The tensor map of the global buffer, on the host.
  MLIRContext *ctx = rewriter.getContext();
  Value buffer = tileView.getSource();
  rewriter.setInsertionPoint(blockForall);
  Value unranked = memref::CastOp::create(
      rewriter, loc, UnrankedMemRefType::get(element, Attribute()), buffer);
  auto mapType = nvgpu::TensorMapDescriptorType::get(
      ctx, tileSharedType, nvgpu::TensorMapSwizzleKind::SWIZZLE_NONE,
      nvgpu::TensorMapL2PromoKind::L2PROMO_NONE,
      nvgpu::TensorMapOOBKind::OOB_ZERO,
      nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
  Value map = nvgpu::TmaCreateDescriptorOp::create(
      rewriter, loc, mapType, unranked,
      ValueRange{arith::ConstantIndexOp::create(rewriter, loc, rows),
                 arith::ConstantIndexOp::create(rewriter, loc, cols)});

  // The writers write the shared tile; after the last of them, the store.
  Operation *last = nullptr;
  {
    SmallVector<Operation *> users;
    collectUsersThroughViews(tileView.getResult(), users);
    for (Operation *user : users)
      if (Operation *inBlock = block->findAncestorOpInBlock(*user);
          !last || last->isBeforeInBlock(inBlock))
        last = inBlock;
  }
  SmallVector<OpFoldResult> origin = tileView.getMixedOffsets();
  rebuildOnTile(rewriter, tileView.getResult(), tile);
  rewriter.setInsertionPointAfter(last);
  NVVM::FenceProxyOp::create(
      rewriter, loc,
      NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  gpu::BarrierOp::create(rewriter, loc);
  auto byFirst =
      scf::IfOp::create(rewriter, loc, buildIsFirstThread(rewriter, loc),
                        /*withElse=*/false);
  rewriter.setInsertionPointToStart(byFirst.thenBlock());
  nvgpu::TmaFenceOp::create(rewriter, loc, map);
  // TMA coordinates are innermost first: (column, row).
  nvgpu::TmaAsyncStoreOp::create(
      rewriter, loc, tile, map,
      ValueRange{getValueOrCreateConstantIndexOp(rewriter, loc, origin[1]),
                 getValueOrCreateConstantIndexOp(rewriter, loc, origin[0])},
      /*predicate=*/Value());
  NVVM::CpAsyncBulkCommitGroupOp::create(rewriter, loc);
  // The shared tile must outlive the store's reads of it; the global writes
  // complete with the grid (as CUTLASS's epilogues rely on).
  NVVM::CpAsyncBulkWaitGroupOp::create(
      rewriter, loc, rewriter.getI32IntegerAttr(0), rewriter.getUnitAttr());
  if (tileView->use_empty())
    rewriter.eraseOp(tileView);
  return DiagnosedSilenceableFailure::success();
}

void transform::NVIDIATmaStoreTileOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}
