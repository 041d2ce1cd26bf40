//===- StagedMatmul.cpp - What the NVIDIA MMA transform ops share ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

// Like the core transform ops, these compile without assertions: see
// NVIDIATransformOps.cpp.
#ifndef NDEBUG
#define NDEBUG
#endif

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

namespace mlir::orchestra::nvidia {

/// Whether the thread is the first of the block (x, y and z all 0).
Value buildIsFirstThread(OpBuilder &b, Location loc) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value isFirst;
  for (gpu::Dimension dim :
       {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z}) {
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              gpu::ThreadIdOp::create(b, loc, dim), zero);
    isFirst = isFirst
                  ? arith::AndIOp::create(b, loc, isFirst, isZero).getResult()
                  : isZero;
  }
  return isFirst;
}

/// Whether `op` is nested in a block-level (`#gpu.block`) scf.forall; sets
/// `outermost` to the outermost such forall.
bool findBlockForall(Operation *op, scf::ForallOp &outermost) {
  for (auto forall = op->getParentOfType<scf::ForallOp>(); forall;
       forall = forall->getParentOfType<scf::ForallOp>()) {
    std::optional<ArrayAttr> mapping = forall.getMapping();
    if (mapping && !mapping->empty() &&
        isa<gpu::GPUBlockMappingAttr>(mapping->getValue().front()))
      outermost = forall;
  }
  return static_cast<bool>(outermost);
}

/// The multibuffered shared-memory allocation `view` is a stage of
/// (`memref.subview` of a `memref.alloc`), or null.
static memref::AllocOp getStageAllocation(Value view) {
  auto stage = view.getDefiningOp<memref::SubViewOp>();
  return stage ? stage.getSource().getDefiningOp<memref::AllocOp>()
               : memref::AllocOp();
}

/// Whether `value` is `buffer` or a (chain of) `memref.subview` of it.
static bool isViewOf(Value value, Value buffer) {
  while (value != buffer) {
    auto view = value.getDefiningOp<memref::SubViewOp>();
    if (!view)
      return false;
    value = view.getSource();
  }
  return true;
}

/// Whether `forall` is a thread-level loop that only writes zeros into
/// views of `buffer`: a zero `linalg.fill` tiled over the threads,
/// vectorized or not.
static bool onlyZeroes(scf::ForallOp forall, Value buffer) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  if (!mapping || mapping->empty() ||
      !isa<gpu::GPUThreadMappingAttr>(mapping->getValue().front()))
    return false;
  bool writes = false;
  WalkResult walk = forall.getBody()->walk([&](Operation *op) {
    if (auto write = dyn_cast<vector::TransferWriteOp>(op)) {
      if (write.getMask() || !isViewOf(write.getBase(), buffer) ||
          !matchPattern(write.getVector(), m_AnyZeroFloat()))
        return WalkResult::interrupt();
      writes = true;
      return WalkResult::advance();
    }
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      if (!fill.hasPureBufferSemantics() ||
          !isViewOf(fill.getOutputs()[0], buffer) ||
          !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
        return WalkResult::interrupt();
      writes = true;
      return WalkResult::advance();
    }
    return isPure(op) || isa<scf::InParallelOp>(op) ? WalkResult::advance()
                                                    : WalkResult::interrupt();
  });
  return writes && !walk.wasInterrupted();
}

/// Appends to `users` the ops that use `buffer` or a view of it, the views
/// themselves excepted.
void collectUsersThroughViews(Value buffer,
                              SmallVectorImpl<Operation *> &users) {
  SmallVector<Value> values = {buffer};
  while (!values.empty()) {
    Value value = values.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (isa<ViewLikeOpInterface>(user) &&
          cast<ViewLikeOpInterface>(user).getViewSource() == value) {
        llvm::append_range(values, user->getResults());
        continue;
      }
      users.push_back(user);
    }
  }
}

/// The thread loops before `loop` (in its block) that only zero `buffer`,
/// when nothing else in the block before `loop`, or in it, uses the memory
/// `buffer` views (its base buffer, through any view of it), `ignore`
/// aside; none when something does. The warpgroup MMA store after the loop
/// overwrites all of `buffer`, so these fills are dead. (Distinct function
/// arguments are taken not to alias, as bufferization makes them.)
static std::optional<SmallVector<scf::ForallOp>>
findDeadZeroFills(scf::ForOp loop, Value buffer, Operation *ignore) {
  Block *block = loop->getBlock();
  Value base = buffer;
  while (auto view = base.getDefiningOp<ViewLikeOpInterface>())
    base = view.getViewSource();
  SmallVector<Operation *> users;
  collectUsersThroughViews(base, users);
  SmallVector<scf::ForallOp> fills;
  for (Operation *user : users) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    if (!inBlock || loop->isBeforeInBlock(inBlock) || user == ignore)
      continue; // outside this block's code, or after the MMA store
    auto forall = dyn_cast<scf::ForallOp>(inBlock);
    if (!forall || !onlyZeroes(forall, buffer))
      return std::nullopt; // read or written by something else
    if (!llvm::is_contained(fills, forall))
      fills.push_back(forall);
  }
  return fills;
}

/// Erases the dead zero fills of `buffer` before `loop`
/// (findDeadZeroFills), and the barrier after them when nothing before it
/// in the block touches memory.
void eraseDeadZeroFills(RewriterBase &rewriter, scf::ForOp loop, Value buffer) {
  std::optional<SmallVector<scf::ForallOp>> found =
      findDeadZeroFills(loop, buffer, /*ignore=*/nullptr);
  if (!found || found->empty())
    return;
  SmallVector<scf::ForallOp> fills = std::move(*found);
  llvm::sort(fills, [](scf::ForallOp a, scf::ForallOp b) {
    return a->isBeforeInBlock(b);
  });
  Operation *next = fills.back()->getNextNode();
  for (scf::ForallOp forall : fills)
    rewriter.eraseOp(forall);
  // The barrier that waited for the fills, when nothing before it in the
  // block touches memory any more (allocations aside).
  auto barrier = dyn_cast_or_null<gpu::BarrierOp>(next);
  if (!barrier)
    return;
  auto onlyAllocates = [](Operation *op) {
    std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
        getEffectsRecursively(op);
    return effects && llvm::all_of(*effects, [](const auto &effect) {
             return isa<MemoryEffects::Allocate>(effect.getEffect());
           });
  };
  for (Operation *op = barrier->getPrevNode(); op; op = op->getPrevNode())
    if (!onlyAllocates(op))
      return;
  rewriter.eraseOp(barrier);
}

/// Whether `alloc` is a static workgroup allocation with the identity layout
/// in `block`.
bool isWorkgroupAllocIn(memref::AllocOp alloc, Block *block) {
  auto space =
      dyn_cast_or_null<gpu::AddressSpaceAttr>(alloc.getType().getMemorySpace());
  return alloc->getBlock() == block && space &&
         space.getValue() == gpu::AddressSpace::Workgroup &&
         alloc.getType().hasStaticShape() &&
         alloc.getType().getLayout().isIdentity() &&
         alloc.getDynamicSizes().empty() && alloc.getSymbolOperands().empty();
}

/// The workgroup allocation in `loop`'s block that the accumulator buffer `c`
/// is (a view of), or null.
static memref::AllocOp getTileAllocation(Value c, scf::ForOp loop) {
  while (auto view = c.getDefiningOp<memref::SubViewOp>())
    c = view.getSource();
  auto alloc = c.getDefiningOp<memref::AllocOp>();
  return alloc && isWorkgroupAllocIn(alloc, loop->getBlock()) ? alloc : nullptr;
}

/// Whether every use of `alloc` (through views) is in an op of `loop`'s
/// block before `loop`, or in `loop` (`before`), or after `loop` (not
/// `before`).
static bool usedOnlyOnOneSide(memref::AllocOp alloc, scf::ForOp loop,
                              bool before) {
  SmallVector<Operation *> users;
  collectUsersThroughViews(alloc.getResult(), users);
  Block *block = loop->getBlock();
  return llvm::all_of(users, [&](Operation *user) {
    Operation *inBlock = block->findAncestorOpInBlock(*user);
    return inBlock && (inBlock == loop.getOperation() ||
                       inBlock->isBeforeInBlock(loop)) == before;
  });
}

/// Places the stage buffers of the operands and the accumulator tile in the
/// same bytes, when the stages are used only up to the end of `loop` and the
/// accumulator tile only after it (once its zero fill is gone): one
/// workgroup allocation of the larger of the two, whose views replace the
/// three allocations (`c`, when it is the accumulator's allocation, becomes
/// its view). Returns whether it did; the caller must then keep the
/// accumulator stores after every warpgroup's last MMA, behind a barrier.
bool shareStagesWithAccumulator(RewriterBase &rewriter, scf::ForOp loop,
                                memref::AllocOp aStages,
                                memref::AllocOp bStages, Value &c) {
  memref::AllocOp cAlloc = getTileAllocation(c, loop);
  if (!cAlloc || cAlloc == aStages || cAlloc == bStages ||
      !isWorkgroupAllocIn(aStages, loop->getBlock()) ||
      !isWorkgroupAllocIn(bStages, loop->getBlock()) ||
      !usedOnlyOnOneSide(cAlloc, loop, /*before=*/false) ||
      !usedOnlyOnOneSide(aStages, loop, /*before=*/true) ||
      !usedOnlyOnOneSide(bStages, loop, /*before=*/true))
    return false;
  auto bytesOf = [](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    return type.getNumElements() * static_cast<int64_t>(llvm::divideCeil(
                                       type.getElementTypeBitWidth(), 8));
  };
  auto alignmentOf = [](memref::AllocOp alloc) {
    return std::max<int64_t>(1, alloc.getAlignment().value_or(1));
  };
  int64_t bOffset = static_cast<int64_t>(
      llvm::alignTo(bytesOf(aStages), alignmentOf(bStages)));
  int64_t bytes = std::max(bOffset + bytesOf(bStages), bytesOf(cAlloc));
  int64_t alignment = std::max(
      {alignmentOf(aStages), alignmentOf(bStages), alignmentOf(cAlloc)});

  SmallVector<memref::AllocOp> allocs = {aStages, bStages, cAlloc};
  llvm::sort(allocs, [](memref::AllocOp a, memref::AllocOp b) {
    return a->isBeforeInBlock(b);
  });
  rewriter.setInsertionPoint(allocs.front());
  Location loc = allocs.front().getLoc();
  auto type = MemRefType::get({bytes}, rewriter.getI8Type(), AffineMap(),
                              aStages.getType().getMemorySpace());
  auto shared = memref::AllocOp::create(rewriter, loc, type,
                                        rewriter.getI64IntegerAttr(alignment));
  for (auto [alloc, offset] :
       {std::pair(aStages, int64_t(0)), std::pair(bStages, bOffset),
        std::pair(cAlloc, int64_t(0))}) {
    Value at = arith::ConstantIndexOp::create(rewriter, loc, offset);
    Value view = memref::ViewOp::create(
        rewriter, alloc.getLoc(), alloc.getType(), shared, at, ValueRange());
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        rewriter.eraseOp(user);
    if (c == alloc.getResult())
      c = view;
    rewriter.replaceOp(alloc, view);
  }
  return true;
}

/// Matches the K loop `target` of a tensor-core MMA op: one zero-initialized
/// row-major f16 or bf16 matmul into f32, 128 x N x K with N a multiple of
/// `nMultiple` up to 256 and K of 16, whose operands are stages written by
/// swizzled TMA copies. With `shareAccumulator`, an accumulator tile in
/// shared memory must be able to take the stages' bytes. Sets `why` when
/// it does not match.
std::optional<StagedMatmul> matchStagedMatmul(Operation *target,
                                              int64_t nMultiple,
                                              bool shareAccumulator,
                                              std::string &why) {
  auto loop = dyn_cast<scf::ForOp>(target);
  if (!loop) {
    why = "the payload op is not an scf.for";
    return std::nullopt;
  }
  auto fail = [&](const Twine &reason) -> std::optional<StagedMatmul> {
    why = reason.str();
    return std::nullopt;
  };
  auto matmuls = llvm::to_vector(loop.getBody()->getOps<linalg::MatmulOp>());
  if (matmuls.size() != 1)
    return fail("its body does not hold exactly one linalg.matmul");
  StagedMatmul staged;
  linalg::MatmulOp matmul = staged.matmul = matmuls.front();
  if (!matmul->hasAttr(orchestra::nvidia::attr::kZeroInit))
    return fail("the matmul does not carry orchestra.gpu_zero_init (its "
                "accumulator must start at zero)");
  if (!matmul.hasPureBufferSemantics() ||
      matmul.getIndexingMapsArray() !=
          linalg::MatmulOp::getDefaultIndexingMaps(matmul.getContext()))
    return fail("the matmul is not a plain row-major matmul on buffers");
  scf::ForallOp blockForall;
  if (!findBlockForall(loop, blockForall))
    return fail("it is not inside a block-level scf.forall");

  Value a = staged.a = matmul.getDpsInputOperand(0)->get();
  Value b = staged.b = matmul.getDpsInputOperand(1)->get();
  Value c = staged.c = matmul.getDpsInitOperand(0)->get();
  auto aType = staged.aType = cast<MemRefType>(a.getType());
  auto bType = staged.bType = cast<MemRefType>(b.getType());
  auto cType = cast<MemRefType>(c.getType());
  memref::AllocOp aStages = staged.aStages = getStageAllocation(a);
  memref::AllocOp bStages = staged.bStages = getStageAllocation(b);
  if (!aStages || !bStages)
    return fail("an operand is not a stage of a shared-memory allocation");
  // The tensor maps of the swizzled TMA copies into the stages.
  DenseMap<Operation *, Value> tensorMaps;
  blockForall.walk([&](nvgpu::TmaAsyncLoadOp load) {
    auto view = load.getDst().getDefiningOp<memref::ReinterpretCastOp>();
    auto alloc =
        view ? view.getSource().getDefiningOp<memref::AllocOp>() : nullptr;
    if (alloc)
      tensorMaps[alloc] = load.getTensorMapDescriptor();
  });
  staged.aMap = tensorMaps.lookup(aStages);
  staged.bMap = tensorMaps.lookup(bStages);
  auto isSwizzled = [](Value map) {
    return map &&
           cast<nvgpu::TensorMapDescriptorType>(map.getType()).getSwizzle() ==
               nvgpu::TensorMapSwizzleKind::SWIZZLE_128B;
  };
  if (!isSwizzled(staged.aMap) || !isSwizzled(staged.bMap))
    return fail("an operand's stages are not written by TMA copies with the "
                "128-byte swizzle (transform.orchestra.nvidia_tma_k_loop "
                "{swizzle_128b})");
  // A step's MMA may still run while `lag` further steps begin: the TMA
  // copies refill its stage only then.
  auto lagAttr =
      loop->getAttrOfType<IntegerAttr>(orchestra::nvidia::attr::kRefillLag);
  if (!lagAttr)
    return fail("it does not say when its stages are refilled (no "
                "orchestra.tma_refill_lag: stage it with "
                "transform.orchestra.nvidia_tma_k_loop first)");
  staged.lag = lagAttr.getInt();
  Type element = staged.element = aType.getElementType();
  if (element != bType.getElementType() ||
      !(element.isF16() || element.isBF16()) || !cType.getElementType().isF32())
    return fail("the matmul is not f16 x f16 or bf16 x bf16 into f32");
  int64_t m = staged.m = aType.getDimSize(0);
  int64_t k = staged.k = aType.getDimSize(1);
  int64_t n = staged.n = bType.getDimSize(1);
  if (!aType.hasStaticShape() || !bType.hasStaticShape() ||
      !cType.hasStaticShape() || m != 128 || k % 16 != 0 ||
      n % nMultiple != 0 || n > 256 || cType.getDimSize(0) != m ||
      cType.getDimSize(1) != n)
    return fail("the matmul is not 128 x N x K with N a multiple of " +
                Twine(nMultiple) + " up to 256 and K a multiple of 16");
  if (Operation *def = c.getDefiningOp(); def && loop->isAncestor(def))
    return fail("the accumulator buffer is defined inside the loop");
  // With share_accumulator, an accumulator tile in shared memory must be
  // able to take the stages' bytes (what the recipe's shared-memory budget
  // counted on).
  if (shareAccumulator && getTileAllocation(c, loop)) {
    SmallVector<Operation *> stageUsers;
    collectUsersThroughViews(aStages.getResult(), stageUsers);
    collectUsersThroughViews(bStages.getResult(), stageUsers);
    Block *block = loop->getBlock();
    bool stagesDieInLoop = llvm::all_of(stageUsers, [&](Operation *user) {
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      return inBlock && !loop->isBeforeInBlock(inBlock);
    });
    if (!isWorkgroupAllocIn(aStages, block) ||
        !isWorkgroupAllocIn(bStages, block) || !stagesDieInLoop ||
        !findDeadZeroFills(loop, c, matmul))
      return fail("the accumulator tile cannot share the stages' shared "
                  "memory (share_accumulator): it is used before the K "
                  "loop, or the stages after it");
  }
  return staged;
}

/// Whether the offset `offset` of a view made in `forall` is its induction
/// variable `dim` times `size`.
bool isIvTimes(OpFoldResult offset, scf::ForallOp forall, int dim,
               int64_t size) {
  auto value = dyn_cast<Value>(offset);
  if (!value)
    return false;
  if (value == forall.getInductionVar(dim))
    return size == 1;
  auto apply = value.getDefiningOp<affine::AffineApplyOp>();
  return apply && apply.getMapOperands().size() == 1 &&
         apply.getMapOperands()[0] == forall.getInductionVar(dim) &&
         apply.getAffineMap().getResult(0) ==
             getAffineDimExpr(0, forall.getContext()) * size;
}

} // namespace mlir::orchestra::nvidia
