//===- Tcgen05Mma.cpp - transform.orchestra.nvidia_tcgen05_mma ------------===//
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

/// The shared-window address of the (aligned) start of the workgroup buffer
/// `memref`, plus `offset` bytes (an index value), as an i64.
static Value buildSharedAddress(OpBuilder &b, Location loc, Value memref,
                                Value offset) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  if (offset)
    base = arith::AddIOp::create(b, loc, base, offset);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), base);
}

/// The epilogue that reads the 128 x `n` accumulator buffer `c` (after
/// `loop`, in its block) in the thread tiles the tcgen05 recipe gives it:
/// an `scf.forall` over (128, 2) threads, thread t at (t mod 128, t / 128),
/// each reading row t mod 128, half t / 128 of the columns, of `c` with one
/// unmasked in-bounds `vector.transfer_read` of a 1 x n/2 view; `reads` gets
/// them. Null when `c` has other uses, or none.
static scf::ForallOp
findRegisterEpilogue(Value c, scf::ForOp loop, int64_t n,
                     SmallVectorImpl<vector::TransferReadOp> &reads) {
  // Only a buffer of the block's own, which nothing else can see.
  auto alloc = c.getDefiningOp<memref::AllocOp>();
  if (!alloc || !isWorkgroupAllocIn(alloc, loop->getBlock()))
    return nullptr;
  scf::ForallOp forall;
  for (Operation *user : c.getUsers()) {
    auto view = dyn_cast<memref::SubViewOp>(user);
    auto parent =
        view ? dyn_cast<scf::ForallOp>(view->getParentOp()) : scf::ForallOp();
    if (!parent || (forall && parent != forall))
      return nullptr;
    forall = parent;
    std::optional<ArrayAttr> mapping = forall.getMapping();
    auto threadDim = [&](int i) {
      auto attr = dyn_cast<gpu::GPUThreadMappingAttr>(mapping->getValue()[i]);
      return attr ? static_cast<int64_t>(attr.getMappingId()) : -1;
    };
    if (forall->getBlock() != loop->getBlock() ||
        !loop->isBeforeInBlock(forall) || forall.getRank() != 2 || !mapping ||
        mapping->size() != 2 ||
        threadDim(0) != static_cast<int64_t>(gpu::MappingId::LinearDim0) ||
        threadDim(1) != static_cast<int64_t>(gpu::MappingId::LinearDim1) ||
        forall.getStaticUpperBound() != ArrayRef<int64_t>{128, 2} ||
        llvm::any_of(forall.getStaticLowerBound(),
                     [](int64_t v) { return v != 0; }) ||
        llvm::any_of(forall.getStaticStep(), [](int64_t v) { return v != 1; }))
      return nullptr;
    SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
    if (!areAllConstantIntValue(view.getMixedStrides(), 1) ||
        view.getType().getShape() != ArrayRef<int64_t>{1, n / 2} ||
        !isIvTimes(offsets[0], forall, 0, 1) ||
        !isIvTimes(offsets[1], forall, 1, n / 2))
      return nullptr;
    for (Operation *reader : view->getUsers()) {
      auto read = dyn_cast<vector::TransferReadOp>(reader);
      if (!read || read->getParentOp() != forall.getOperation() ||
          read.getMask() ||
          read.getVectorType().getShape() != ArrayRef<int64_t>{1, n / 2} ||
          !read.getPermutationMap().isMinorIdentity() ||
          llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }) ||
          llvm::any_of(read.getIndices(),
                       [](Value index) { return !isZeroInteger(index); }))
        return nullptr;
      reads.push_back(read);
    }
  }
  return reads.empty() ? nullptr : forall;
}

DiagnosedSilenceableFailure transform::NVIDIATcgen05MmaOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  std::string why;
  std::optional<StagedMatmul> staged =
      matchStagedMatmul(target, /*nMultiple=*/16, getShareAccumulator(), why);
  auto loop = dyn_cast<scf::ForOp>(target);
  std::optional<int64_t> lb, ub, stepSize;
  if (staged) {
    lb = getConstantIntValue(loop.getLowerBound());
    ub = getConstantIntValue(loop.getUpperBound());
    stepSize = getConstantIntValue(loop.getStep());
    if (!lb || !ub || !stepSize || *stepSize <= 0 || *ub <= *lb ||
        (*ub - *lb) % *stepSize != 0)
      why = "its bounds and step are not static";
    else if (staged->aStages.getType().getRank() != 3 ||
             staged->aStages.getType().getDimSize(0) !=
                 staged->bStages.getType().getDimSize(0))
      why = "its operands do not have the same number of stages";
    else if (staged->lag != 0 && staged->lag != 1)
      why = "its refill lag is not 0 or 1";
  }
  if (!staged || !why.empty()) {
    DiagnosedSilenceableFailure diag =
        emitSilenceableError()
        << "cannot compute the K loop with tcgen05 MMA: " << why;
    diag.attachNote(target->getLoc()) << "K loop";
    return diag;
  }
  linalg::MatmulOp matmul = staged->matmul;
  Value c = staged->c;
  memref::AllocOp aStages = staged->aStages, bStages = staged->bStages;
  int64_t n = staged->n, k = staged->k, lag = staged->lag;
  int64_t numStages = aStages.getType().getDimSize(0);
  int64_t steps = (*ub - *lb) / *stepSize;
  constexpr int64_t kRows = 128;         // M of the MMA and of the tile
  constexpr int64_t kMmaK = 16;          // K of one MMA (16-bit operands)
  constexpr int64_t kSwizzleElems = 64;  // 16-bit elements of a swizzle row
  constexpr int64_t kSwizzleBytes = 128; // a swizzle row
  constexpr int64_t kAtomBytes = 1024;   // 8 swizzle rows
  constexpr int64_t kChunkColumns = 32;  // columns of one tcgen05.ld
  // Tensor memory is allocated in powers of two of at least 32 columns.
  int64_t columns = std::max<int64_t>(32, llvm::PowerOf2Ceil(n));

  Location loc = matmul.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Type i1 = rewriter.getI1Type(), i8 = rewriter.getI8Type(),
       i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();
  auto sharedPtr = LLVM::LLVMPointerType::get(ctx, 3);
  auto tensorPtr = LLVM::LLVMPointerType::get(ctx, 6);
  auto workgroup = gpu::AddressSpaceAttr::get(
      ctx, gpu::GPUDialect::getWorkgroupAddressSpace());
  auto cta1 = NVVM::CTAGroupKindAttr::get(ctx, NVVM::CTAGroupKind::CTA_1);
  auto i32Const = [&](OpBuilder &b, int64_t value) -> Value {
    return arith::ConstantIntOp::create(b, loc, i32, value);
  };
  auto indexConst = [&](OpBuilder &b, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  auto apply = [&](OpBuilder &b, AffineExpr expr, Value value) -> Value {
    return affine::AffineApplyOp::create(b, loc, AffineMap::get(1, 0, expr),
                                         ValueRange{value});
  };
  auto fence = [&](OpBuilder &b, NVVM::Tcgen05FenceKind kind) {
    NVVM::Tcgen05FenceOp::create(b, loc,
                                 NVVM::Tcgen05FenceKindAttr::get(ctx, kind));
  };
  AffineExpr d0 = getAffineDimExpr(0, ctx);

  // Before the loop: the tensor memory (its address through a shared slot)
  // and the MMA barriers.
  rewriter.setInsertionPoint(loop);
  Value slot = memref::AllocOp::create(
      rewriter, loc, MemRefType::get({1}, i32, AffineMap(), workgroup),
      rewriter.getI64IntegerAttr(4));
  Value mmaBarriers = memref::AllocOp::create(
      rewriter, loc, MemRefType::get({numStages}, i64, AffineMap(), workgroup),
      rewriter.getI64IntegerAttr(8));
  Value barrierBase = buildSharedAddress(rewriter, loc, mmaBarriers, Value());
  auto barrierAt = [&](OpBuilder &b, Value stage) -> Value {
    Value offset = apply(b, d0 * 8, stage);
    Value address = arith::AddIOp::create(
        b, loc, barrierBase, arith::IndexCastOp::create(b, loc, i64, offset));
    return LLVM::IntToPtrOp::create(b, loc, sharedPtr, address);
  };
  Value thread = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  Value isFirst = buildIsFirstThread(rewriter, loc);
  Value isWarp0 = arith::AndIOp::create(
      rewriter, loc,
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, thread,
                            indexConst(rewriter, 32)),
      arith::AndIOp::create(
          rewriter, loc,
          arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::eq,
              gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::y),
              indexConst(rewriter, 0)),
          arith::CmpIOp::create(
              rewriter, loc, arith::CmpIPredicate::eq,
              gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::z),
              indexConst(rewriter, 0))));
  {
    auto byWarp0 = scf::IfOp::create(rewriter, loc, isWarp0,
                                     /*withElse=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(byWarp0.thenBlock());
    Value slotAddress = LLVM::IntToPtrOp::create(
        rewriter, loc, sharedPtr,
        buildSharedAddress(rewriter, loc, slot, Value()));
    NVVM::Tcgen05AllocOp::create(rewriter, loc, slotAddress,
                                 i32Const(rewriter, columns), cta1);
    NVVM::Tcgen05RelinquishAllocPermitOp::create(rewriter, loc, cta1);
  }
  {
    auto byFirst = scf::IfOp::create(rewriter, loc, isFirst,
                                     /*withElse=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(byFirst.thenBlock());
    for (int64_t i = 0; i < numStages; ++i)
      NVVM::MBarrierInitOp::create(
          rewriter, loc, barrierAt(rewriter, indexConst(rewriter, i)),
          i32Const(rewriter, 1), /*predicate=*/Value());
    // tcgen05.commit arrives on them from the tensor cores.
    NVVM::FenceMbarrierInitOp::create(rewriter, loc);
  }
  fence(rewriter, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  gpu::BarrierOp::create(rewriter, loc);
  fence(rewriter, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  Value tmem = memref::LoadOp::create(rewriter, loc, slot,
                                      ValueRange{indexConst(rewriter, 0)});
  Value aBase = buildSharedAddress(rewriter, loc, aStages, Value());
  Value bBase = buildSharedAddress(rewriter, loc, bStages, Value());

  // The shared memory descriptor of a 128-byte swizzled operand at `address`
  // (leading and stride byte offsets in bytes).
  auto descriptor = [&](OpBuilder &b, Value address, int64_t leading,
                        int64_t stride) -> Value {
    Value start = arith::TruncIOp::create(
        b, loc, i32,
        arith::ShRUIOp::create(b, loc, address,
                               arith::ConstantIntOp::create(b, loc, i64, 4)));
    return NVVM::Tcgen05MmaSmemDescOp::create(
        b, loc, i64, start, i32Const(b, leading >> 4), i32Const(b, stride >> 4),
        arith::ConstantIntOp::create(b, loc, i8, 0),
        arith::ConstantIntOp::create(b, loc, i1, 0),
        arith::ConstantIntOp::create(b, loc, i8, /*128-byte swizzle=*/2));
  };
  // The instruction descriptor: f32 D, A and B f16 (0) or bf16 (1), B
  // MN-major (transposed), N >> 3 and M >> 4.
  int64_t abType = staged->element.isBF16() ? 1 : 0;
  int64_t instruction = (1 << 4) | (abType << 7) | (abType << 10) | (1 << 16) |
                        ((n >> 3) << 17) | ((kRows >> 4) << 24);

  // In the loop: thread 0 issues the step's MMAs and commits them to the
  // step's barrier; every thread waits for the MMAs `lag` steps back.
  rewriter.setInsertionPoint(matmul);
  Value iv = loop.getInductionVar();
  AffineExpr stepIndex = (d0 - *lb).floorDiv(*stepSize);
  Value index = apply(rewriter, stepIndex, iv);
  Value stage = apply(rewriter, stepIndex % numStages, iv);
  {
    auto byFirst = scf::IfOp::create(rewriter, loc, isFirst,
                                     /*withElse=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(byFirst.thenBlock());
    fence(rewriter, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value aStage = arith::IndexCastOp::create(
        rewriter, loc, i64, apply(rewriter, d0 * (kRows * k * 2), stage));
    Value bStage = arith::IndexCastOp::create(
        rewriter, loc, i64, apply(rewriter, d0 * (k * n * 2), stage));
    Value aAt = arith::AddIOp::create(rewriter, loc, aBase, aStage);
    Value bAt = arith::AddIOp::create(rewriter, loc, bBase, bStage);
    Value notFirstStep =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ne, index,
                              indexConst(rewriter, 0));
    Value accumulate = arith::ConstantIntOp::create(rewriter, loc, i1, 1);
    Value tmemPtr = LLVM::IntToPtrOp::create(rewriter, loc, tensorPtr, tmem);
    Value instructionValue = i32Const(rewriter, instruction);
    for (int64_t kk = 0; kk < k / kMmaK; ++kk) {
      // A (K-major): K columns in swizzle rows of 64, column blocks of
      // 128 rows; B (MN-major): 16 rows of 128 bytes per MMA, column blocks
      // of 64 (k rows each) one leading byte offset apart.
      int64_t col = kk * kMmaK;
      int64_t aOffset = (col / kSwizzleElems) * (kRows * kSwizzleBytes) +
                        (col % kSwizzleElems) * 2;
      int64_t bOffset = col * kSwizzleBytes;
      Value aDesc =
          descriptor(rewriter,
                     arith::AddIOp::create(rewriter, loc, aAt,
                                           arith::ConstantIntOp::create(
                                               rewriter, loc, i64, aOffset)),
                     /*leading=*/16, /*stride=*/kAtomBytes);
      Value bDesc =
          descriptor(rewriter,
                     arith::AddIOp::create(rewriter, loc, bAt,
                                           arith::ConstantIntOp::create(
                                               rewriter, loc, i64, bOffset)),
                     /*leading=*/k * kSwizzleBytes, /*stride=*/kAtomBytes);
      NVVM::Tcgen05MMAOp::create(
          rewriter, loc,
          NVVM::Tcgen05MMAKindAttr::get(ctx, NVVM::Tcgen05MMAKind::F16), cta1,
          NVVM::Tcgen05MMACollectorOpAttr::get(
              ctx, NVVM::Tcgen05MMACollectorOp::DISCARD),
          /*aShift=*/nullptr, tmemPtr, aDesc, bDesc, instructionValue,
          kk == 0 ? notFirstStep : accumulate, /*scaleInputD=*/Value(),
          /*disableOutputLane=*/Value());
    }
    NVVM::Tcgen05CommitOp::create(rewriter, loc, barrierAt(rewriter, stage),
                                  /*multicastMask=*/Value(), cta1);
  }
  // Waits for the MMAs of step j (an index value) to complete.
  auto waitFor = [&](OpBuilder &b, Value j) {
    Value parity = arith::IndexCastOp::create(
        b, loc, i32, apply(b, d0.floorDiv(numStages) % 2, j));
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, barrierAt(b, apply(b, d0 % numStages, j)), parity,
        i32Const(b, 10000000));
  };
  if (lag == 0) {
    waitFor(rewriter, index);
  } else {
    Value started =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::uge, index,
                              indexConst(rewriter, lag));
    auto ifStarted = scf::IfOp::create(rewriter, loc, started,
                                       /*withElse=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(ifStarted.thenBlock());
    waitFor(rewriter, apply(rewriter, d0 - lag, index));
  }
  rewriter.eraseOp(matmul);
  // As with warpgroup MMA: the zero fill of the accumulator is dead, and the
  // tile may reuse the stages' bytes (every thread waits for the last MMAs
  // before it stores, which ends their reads of the stages).
  eraseDeadZeroFills(rewriter, loop, c);
  SmallVector<vector::TransferReadOp> epilogueReads;
  scf::ForallOp epilogue = findRegisterEpilogue(c, loop, n, epilogueReads);
  if (!epilogue)
    shareStagesWithAccumulator(rewriter, loop, aStages, bStages, c);

  // After the loop: wait for the last step's MMAs.
  Operation *next = loop->getNextNode();
  rewriter.setInsertionPointAfter(loop);
  waitFor(rewriter, indexConst(rewriter, steps - 1));
  fence(rewriter, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  // Loads 32x32b chunks of `count` columns from `address` (an i32 tensor
  // memory address) and returns them as one vector of f32.
  int64_t chunk = std::min<int64_t>(kChunkColumns, n / 2);
  auto chunkType = VectorType::get({chunk}, i32);
  // Loads `count` columns from `address` (an i32 tensor memory address),
  // `chunk` at a time, and returns them as i32 words.
  auto loadColumns = [&](OpBuilder &b, Value address,
                         int64_t count) -> SmallVector<Value> {
    SmallVector<Value> all;
    for (int64_t j = 0; j < count; j += chunk) {
      Value at = LLVM::IntToPtrOp::create(
          b, loc, tensorPtr,
          arith::AddIOp::create(b, loc, address, i32Const(b, j)).getResult());
      Value bits = NVVM::Tcgen05LdOp::create(
          b, loc, chunkType, /*pack=*/nullptr,
          NVVM::Tcgen05LdStShapeAttr::get(ctx,
                                          NVVM::Tcgen05LdStShape::SHAPE_32X32B),
          at, /*offset=*/Value());
      // The registers are valid only after tcgen05.wait::ld, but nothing
      // ties their uses to an `nvvm.tcgen05.wait`: LLVM moved pure uses
      // above it. So the wait is an inline asm that takes the registers in
      // and gives them back (tied operands): their uses depend on it. (This
      // relies on the register allocator not copying the tied registers
      // before the asm, which it does not at the default optimization
      // level; the emulator checks the PTX.)
      SmallVector<Value> words;
      std::string constraints;
      for (int64_t e = 0; e < chunk; ++e) {
        words.push_back(vector::ExtractOp::create(b, loc, bits, e));
        constraints += "=r,";
      }
      for (int64_t e = 0; e < chunk; ++e)
        constraints += std::to_string(e) + (e + 1 < chunk ? "," : "");
      auto wait = LLVM::InlineAsmOp::create(
          b, loc,
          LLVM::LLVMStructType::getLiteral(ctx, SmallVector<Type>(chunk, i32)),
          words, "tcgen05.wait::ld.sync.aligned;", constraints,
          /*has_side_effects=*/true, /*is_align_stack=*/false,
          LLVM::tailcallkind::TailCallKind::None, LLVM::AsmDialectAttr(),
          ArrayAttr());
      wait->setAttr(orchestra::nvidia::attr::kTcgen05Wait, b.getUnitAttr());
      for (int64_t e = 0; e < chunk; ++e)
        all.push_back(LLVM::ExtractValueOp::create(b, loc, wait.getRes(), e));
    }
    return all;
  };
  // `words` as a vector of f32.
  auto asF32 = [&](OpBuilder &b, ArrayRef<Value> words) -> Value {
    auto size = static_cast<int64_t>(words.size());
    return vector::BitCastOp::create(
        b, loc, VectorType::get({size}, b.getF32Type()),
        vector::FromElementsOp::create(b, loc, VectorType::get({size}, i32),
                                       words));
  };
  if (epilogue) {
    // The epilogue takes the accumulators in registers: thread (i, j) of
    // its loop is thread i + 128 j of the block, in warp (i + 128 j) / 32,
    // whose lanes are rows 32 (i / 32) + ...: it loads row i, columns
    // [j n/2, (j + 1) n/2) itself, and the accumulator buffer goes.
    rewriter.setInsertionPointToStart(epilogue.getBody());
    // (A barrier may come between the wait for the MMAs and the loop.)
    fence(rewriter, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    Value laneBase = arith::IndexCastOp::create(
        rewriter, loc, i32,
        apply(rewriter, d0.floorDiv(32) * 32, epilogue.getInductionVar(0)));
    Value columnBase = arith::IndexCastOp::create(
        rewriter, loc, i32,
        apply(rewriter, d0 * (n / 2), epilogue.getInductionVar(1)));
    Value address = arith::AddIOp::create(
        rewriter, loc, tmem,
        arith::AddIOp::create(rewriter, loc,
                              arith::ShLIOp::create(rewriter, loc, laneBase,
                                                    i32Const(rewriter, 16)),
                              columnBase));
    Value row = vector::ShapeCastOp::create(
        rewriter, loc, VectorType::get({1, n / 2}, rewriter.getF32Type()),
        asF32(rewriter, loadColumns(rewriter, address, n / 2)));
    for (vector::TransferReadOp read : epilogueReads)
      rewriter.replaceOp(read, row);
    // The views of the accumulator buffer, and the buffer, are dead.
    for (Operation *user : llvm::make_early_inc_range(c.getUsers()))
      if (user->use_empty())
        rewriter.eraseOp(user);
    if (auto alloc = c.getDefiningOp<memref::AllocOp>(); alloc && c.use_empty())
      rewriter.eraseOp(alloc);
    // Once every warp's loads are done, warp 0 frees the tensor memory.
    rewriter.setInsertionPointAfter(epilogue);
    fence(rewriter, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
    gpu::BarrierOp::create(rewriter, loc);
    fence(rewriter, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    auto byWarp0 =
        scf::IfOp::create(rewriter, loc, isWarp0, /*withElse=*/false);
    rewriter.setInsertionPointToStart(byWarp0.thenBlock());
    NVVM::Tcgen05DeallocOp::create(
        rewriter, loc, LLVM::IntToPtrOp::create(rewriter, loc, tensorPtr, tmem),
        i32Const(rewriter, columns), cta1);
    return DiagnosedSilenceableFailure::success();
  }
  // Otherwise warp w loads rows 32 (w mod 4) + lane of half w / 4 of the
  // columns and stores them into the accumulator buffer.
  Value row = apply(rewriter, d0 % kRows, thread);
  Value half = apply(rewriter, d0.floorDiv(kRows), thread);
  Value laneBase = arith::IndexCastOp::create(
      rewriter, loc, i32,
      apply(rewriter, (d0 % kRows).floorDiv(32) * 32, thread));
  Value columnBase = apply(rewriter, d0 * (n / 2), half);
  Value warpTmem = arith::AddIOp::create(
      rewriter, loc, tmem,
      arith::AddIOp::create(
          rewriter, loc,
          arith::ShLIOp::create(rewriter, loc, laneBase,
                                i32Const(rewriter, 16)),
          arith::IndexCastOp::create(rewriter, loc, i32, columnBase)));
  SmallVector<Value> words = loadColumns(rewriter, warpTmem, n / 2);
  for (int64_t j = 0; j < n / 2; j += chunk) {
    Value values = asF32(rewriter, ArrayRef<Value>(words).slice(j, chunk));
    // The row's columns are 16-byte aligned: the chunk is stored 16 bytes
    // at a time.
    Value column = apply(rewriter, d0 + j, columnBase);
    auto store = vector::StoreOp::create(
        rewriter, loc, values, c, ValueRange{row, column},
        /*nontemporal=*/false, llvm::Align(16));
    // Together, the block's threads write every element of `c`.
    store->setAttr(orchestra::nvidia::attr::kTileStore, rewriter.getUnitAttr());
  }
  // Then, once every warp's loads are done, warp 0 frees the tensor memory.
  fence(rewriter, NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  if (auto barrier = dyn_cast_or_null<gpu::BarrierOp>(next))
    rewriter.setInsertionPointAfter(barrier);
  else
    gpu::BarrierOp::create(rewriter, loc);
  fence(rewriter, NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  auto byWarp0 = scf::IfOp::create(rewriter, loc, isWarp0, /*withElse=*/false);
  rewriter.setInsertionPointToStart(byWarp0.thenBlock());
  NVVM::Tcgen05DeallocOp::create(
      rewriter, loc, LLVM::IntToPtrOp::create(rewriter, loc, tensorPtr, tmem),
      i32Const(rewriter, columns), cta1);
  return DiagnosedSilenceableFailure::success();
}

void transform::NVIDIATcgen05MmaOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}
