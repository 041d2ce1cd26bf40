//===- WarpgroupMma.cpp - transform.orchestra.nvidia_warpgroup_mma --------===//
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

DiagnosedSilenceableFailure transform::NVIDIAWarpgroupMmaOp::applyToOne(
    transform::TransformRewriter &rewriter, Operation *target,
    transform::ApplyToEachResultList &results,
    transform::TransformState &state) {
  std::string why;
  std::optional<StagedMatmul> staged =
      matchStagedMatmul(target, /*nMultiple=*/8, getShareAccumulator(), why);
  // Upstream's descriptors step through K inside one 128-byte swizzle row of
  // A (+32 bytes per 16 columns) and advance B by 16 rows of K x 2 bytes:
  // right for a K step of 64 16-bit elements alone.
  if (staged && staged->k != 64) {
    why = "its K step is " + std::to_string(staged->k) +
          ", not 64 (one 128-byte swizzle row of 16-bit elements, what the "
          "warpgroup MMA descriptors' advance assumes)";
    staged.reset();
  }
  if (!staged) {
    DiagnosedSilenceableFailure diag =
        emitSilenceableError()
        << "cannot compute the K loop with warpgroup MMA: " << why;
    diag.attachNote(target->getLoc()) << "K loop";
    return diag;
  }
  auto loop = cast<scf::ForOp>(target);
  linalg::MatmulOp matmul = staged->matmul;
  Value a = staged->a, b = staged->b, c = staged->c;
  MemRefType aType = staged->aType;
  memref::AllocOp aStages = staged->aStages, bStages = staged->bStages;
  Value aMap = staged->aMap, bMap = staged->bMap;
  Type element = staged->element;
  int64_t k = staged->k, n = staged->n, lag = staged->lag;

  Location loc = matmul.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  int64_t rowsPerGroup = 64;
  auto accType = nvgpu::WarpgroupAccumulatorType::get(
      ctx, VectorType::get({rowsPerGroup, n}, rewriter.getF32Type()));
  auto descriptorType = [&](int64_t rows, int64_t cols) {
    return nvgpu::WarpgroupMatrixDescriptorType::get(
        ctx, MemRefType::get({rows, cols}, element, AffineMap(),
                             aType.getMemorySpace()));
  };

  // Before the loop: the warpgroup of the thread, the first row of A it
  // multiplies, and its zero accumulator.
  rewriter.setInsertionPoint(loop);
  Value thread = gpu::ThreadIdOp::create(rewriter, loc, gpu::Dimension::x);
  AffineExpr t = getAffineDimExpr(0, ctx);
  Value firstRow = affine::AffineApplyOp::create(
      rewriter, loc, AffineMap::get(1, 0, t.floorDiv(128) * rowsPerGroup),
      ValueRange{thread});
  Value zero =
      nvgpu::WarpgroupMmaInitAccumulatorOp::create(rewriter, loc, accType);

  // In the loop: the descriptors and the warpgroup MMA, carried.
  FailureOr<LoopLikeOpInterface> extended =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(
              rewriter, ValueRange{zero},
              /*replaceInitOperandUsesInLoop=*/false,
              [&](OpBuilder &builder, Location,
                  ArrayRef<BlockArgument> args) -> SmallVector<Value> {
                builder.setInsertionPoint(matmul);
                Value rows = memref::SubViewOp::create(
                    builder, loc, a,
                    ArrayRef<OpFoldResult>{firstRow, builder.getIndexAttr(0)},
                    ArrayRef<OpFoldResult>{builder.getIndexAttr(rowsPerGroup),
                                           builder.getIndexAttr(k)},
                    ArrayRef<OpFoldResult>{builder.getIndexAttr(1),
                                           builder.getIndexAttr(1)});
                Value aDesc = nvgpu::WarpgroupGenerateDescriptorOp::create(
                    builder, loc, descriptorType(rowsPerGroup, k), rows, aMap);
                Value bDesc = nvgpu::WarpgroupGenerateDescriptorOp::create(
                    builder, loc, descriptorType(k, n), b, bMap);
                Value product = nvgpu::WarpgroupMmaOp::create(
                    builder, loc, accType, aDesc, bDesc,
                    /*waitGroup=*/builder.getI64IntegerAttr(lag),
                    /*transposeA=*/nullptr,
                    /*transposeB=*/builder.getUnitAttr(), args.front());
                return {product};
              });
  if (failed(extended))
    return emitDefiniteFailure() << "cannot carry the accumulators through "
                                    "the K loop";
  auto newLoop = cast<scf::ForOp>(extended->getOperation());
  rewriter.eraseOp(matmul);
  // The accumulators started at zero in registers: a zero fill of the
  // buffer before the loop is dead. Without it, the accumulator tile may
  // reuse the bytes of the stages.
  eraseDeadZeroFills(rewriter, newLoop, c);
  shareStagesWithAccumulator(rewriter, newLoop, aStages, bStages, c);
  // After the loop: each warpgroup stores its rows of the product. The
  // store's lowering places a thread's rows by its warp within the block
  // (rows 16 w + ... of warp w, so warpgroup 1 at rows 64 and on), while
  // its verifier wants a view of one warpgroup's 64 rows: both warpgroups
  // are given the view of rows 0-63 of the accumulator buffer, and the
  // second warpgroup's stores land in rows 64-127 of that buffer.
  rewriter.setInsertionPointAfter(newLoop);
  if (lag) {
    NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, 0);
    // The other warpgroup's last MMA may still read the stages, which the
    // accumulator tile (or, later, an output tile) may overlap: after this
    // barrier, every read of them has ended. (Without MMAs in flight, the
    // last step's closing barrier already ended every read.)
    gpu::BarrierOp::create(rewriter, loc);
  }
  Value firstRows = memref::SubViewOp::create(
      rewriter, loc, c,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                             rewriter.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(rowsPerGroup),
                             rewriter.getIndexAttr(n)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                             rewriter.getIndexAttr(1)});
  nvgpu::WarpgroupMmaStoreOp::create(rewriter, loc, newLoop.getResults().back(),
                                     firstRows);
  return DiagnosedSilenceableFailure::success();
}

void transform::NVIDIAWarpgroupMmaOp::getEffects(
    SmallVectorImpl<MemoryEffects::EffectInstance> &effects) {
  transform::onlyReadsHandle(getTargetMutable(), effects);
  transform::modifiesPayload(effects);
}
