//===- VectorToMMA.cpp - Tensor-core contractions of GPU launches ---------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/NVIDIA/Passes.h"

#include "mlir/Conversion/VectorToGPU/VectorToGPU.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::orchestra::nvidia {
#define GEN_PASS_DEF_NVIDIAVECTORTOMMA
#define GEN_PASS_DEF_NVIDIABF16MMATONVVM
#include "orchestra/Target/NVIDIA/Passes.h.inc"
} // namespace mlir::orchestra::nvidia

using namespace mlir;

//===----------------------------------------------------------------------===//
// bf16 operands
//===----------------------------------------------------------------------===//
//
// LLVM 22's vector-to-nvgpu conversion has no bf16 operand fragments (its
// register types cover f16, f32, f64 and the integers), and its nvgpu-to-nvvm
// conversion cannot lower a bf16 `nvgpu.mma.sync`. Yet ldmatrix moves 16-bit
// elements whatever they are, and mma.sync m16n8k16 takes bf16 operands in
// the same fragment layout as f16 ones (as 32-bit registers of two elements).
// So the bf16 operand reads of a launch are converted as f16 reads of a view
// of the same memory, and afterwards the ldmatrix reads are put back on the
// bf16 memory and the `nvgpu.mma.sync` ops take bf16 operands again;
// `orchestra-nvidia-bf16-mma-to-nvvm` lowers those.

/// The element type of the operands of `contract`'s A and B.
static Type getOperandElementType(vector::ContractionOp contract) {
  return getElementTypeOrSelf(contract.getLhsType());
}

/// Reads the bf16 A and B operands of the contractions of `launch` as f16
/// through `builtin.unrealized_conversion_cast` views of their memrefs,
/// returned in `views`. (Their f16 paddings stay behind, unused, for the
/// canonicalization that follows the pass in the pipeline.)
static LogicalResult
readBF16OperandsAsF16(gpu::LaunchOp launch, RewriterBase &rewriter,
                      SmallVectorImpl<UnrealizedConversionCastOp> &views) {
  SmallVector<vector::ContractionOp> contracts;
  launch.walk([&](vector::ContractionOp op) { contracts.push_back(op); });
  bool anyBF16 = llvm::any_of(contracts, [](vector::ContractionOp op) {
    return getOperandElementType(op).isBF16();
  });
  if (!anyBF16)
    return success();
  Type f16 = rewriter.getF16Type();
  DenseMap<Value, Value> viewOf;
  DenseMap<Operation *, Value> f16ReadOf;
  for (vector::ContractionOp contract : contracts) {
    if (!getOperandElementType(contract).isBF16() ||
        !getElementTypeOrSelf(contract.getRhsType()).isBF16())
      return contract.emitOpError(
          "mixes bf16 and other tensor-core operands in one kernel");
    for (OpOperand *operand :
         {&contract.getLhsMutable(), &contract.getRhsMutable()}) {
      auto read = operand->get().getDefiningOp<vector::TransferReadOp>();
      auto memref =
          read ? dyn_cast<MemRefType>(read.getBase().getType()) : MemRefType();
      if (!memref || !memref.getElementType().isBF16() || read.getMask())
        return contract.emitOpError(
            "has a bf16 operand that is not an unmasked vector.transfer_read "
            "of a bf16 memref");
      Value &f16Read = f16ReadOf[read];
      if (!f16Read) {
        rewriter.setInsertionPoint(read);
        Value &view = viewOf[read.getBase()];
        if (!view) {
          auto viewType =
              MemRefType::get(memref.getShape(), f16, memref.getLayout(),
                              memref.getMemorySpace());
          auto cast = UnrealizedConversionCastOp::create(
              rewriter, read.getLoc(), viewType, read.getBase());
          views.push_back(cast);
          view = cast.getResult(0);
        }
        auto clone = cast<vector::TransferReadOp>(rewriter.clone(*read));
        Value padding = arith::ConstantOp::create(
            rewriter, read.getLoc(), rewriter.getFloatAttr(f16, 0.0));
        rewriter.modifyOpInPlace(clone, [&] {
          clone.getBaseMutable().assign(view);
          clone.getPaddingMutable().assign(padding);
          clone.getResult().setType(
              VectorType::get(read.getVectorType().getShape(), f16));
        });
        f16Read = clone.getResult();
      }
      rewriter.modifyOpInPlace(contract, [&] { operand->assign(f16Read); });
    }
  }
  for (auto [read, f16Read] : f16ReadOf)
    if (read->use_empty())
      rewriter.eraseOp(read);
  return success();
}

/// Erases `op` and, first, the users of its results, as far as they are
/// trivially dead. Returns whether `op` was erased.
static bool eraseIfDead(RewriterBase &rewriter, Operation *op) {
  for (Operation *user : llvm::make_early_inc_range(op->getUsers()))
    eraseIfDead(rewriter, user);
  if (!isOpTriviallyDead(op))
    return false;
  rewriter.eraseOp(op);
  return true;
}

/// With `views` the casts of readBF16OperandsAsF16: reads the fragments of
/// their users (`nvgpu.ldmatrix`) from the bf16 memrefs again and gives the
/// `nvgpu.mma.sync` ops of `launch` bf16 operands.
static LogicalResult
restoreBF16Operands(gpu::LaunchOp launch, RewriterBase &rewriter,
                    ArrayRef<UnrealizedConversionCastOp> views) {
  if (views.empty())
    return success();
  Type bf16 = rewriter.getBF16Type();
  SmallVector<Operation *> f16Fragments;
  for (UnrealizedConversionCastOp view : views) {
    for (Operation *user : llvm::make_early_inc_range(view->getUsers())) {
      // The conversion leaves the reads and contractions it replaced in
      // place, unused.
      if (isa<vector::TransferReadOp>(user) && eraseIfDead(rewriter, user))
        continue;
      auto load = dyn_cast<nvgpu::LdMatrixOp>(user);
      if (!load)
        return user->emitOpError("reads a bf16 tensor-core operand in a way "
                                 "orchestra-nvidia-vector-to-mma cannot "
                                 "convert (only nvgpu.ldmatrix is)");
      rewriter.setInsertionPoint(load);
      VectorType f16Type = load.getRes().getType();
      auto bf16Load = nvgpu::LdMatrixOp::create(
          rewriter, load.getLoc(), VectorType::get(f16Type.getShape(), bf16),
          view.getOperand(0), load.getIndices(), load.getTranspose(),
          load.getNumTiles());
      f16Fragments.push_back(rewriter.replaceOpWithNewOp<vector::BitCastOp>(
          load, f16Type, bf16Load));
    }
    rewriter.eraseOp(view);
  }
  launch.walk([&](nvgpu::MmaSyncOp mma) {
    rewriter.setInsertionPoint(mma);
    auto toBF16 = [&](Value value) -> Value {
      // The f16 view of an ldmatrix result above: its bf16 source.
      if (auto view = value.getDefiningOp<vector::BitCastOp>())
        if (getElementTypeOrSelf(view.getSource().getType()).isBF16())
          return view.getSource();
      auto type = cast<VectorType>(value.getType());
      return vector::BitCastOp::create(rewriter, mma.getLoc(),
                                       VectorType::get(type.getShape(), bf16),
                                       value);
    };
    Value a = toBF16(mma.getMatrixA()), b = toBF16(mma.getMatrixB());
    rewriter.modifyOpInPlace(mma, [&] {
      mma.getMatrixAMutable().assign(a);
      mma.getMatrixBMutable().assign(b);
    });
  });
  for (Operation *fragment : f16Fragments)
    eraseIfDead(rewriter, fragment);
  return success();
}

namespace {
class NVIDIAVectorToMMAPass
    : public orchestra::nvidia::impl::NVIDIAVectorToMMABase<
          NVIDIAVectorToMMAPass> {
public:
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp launch) {
      // The tensor cores take f16 and bf16 operands; the f32 contractions
      // of SIMT matmuls stay multiply-adds (@nvidia_lower_vectors).
      if (launch
              .walk([](vector::ContractionOp contract) {
                Type element = getOperandElementType(contract);
                return element.isF16() || element.isBF16()
                           ? WalkResult::interrupt()
                           : WalkResult::advance();
              })
              .wasInterrupted())
        launches.push_back(launch);
    });
    IRRewriter rewriter(&getContext());
    for (gpu::LaunchOp launch : launches) {
      SmallVector<UnrealizedConversionCastOp> bf16Views;
      if (failed(readBF16OperandsAsF16(launch, rewriter, bf16Views)))
        return signalPassFailure();
      RewritePatternSet patterns(&getContext());
      populatePrepareVectorToMMAPatterns(patterns, /*useNvGpu=*/true);
      if (failed(applyPatternsGreedily(launch, std::move(patterns))) ||
          failed(convertVectorToNVVMCompatibleMMASync(rewriter, launch)) ||
          failed(restoreBF16Operands(launch, rewriter, bf16Views)))
        return signalPassFailure();
    }
  }
};

/// `nvgpu.mma.sync` m16n8k16 with bf16 operands and an f32 accumulator to
/// `nvvm.mma.sync`: A and B as 32-bit registers of two bf16 each, C and D as
/// four f32.
struct BF16MmaSyncToNVVM : OpRewritePattern<nvgpu::MmaSyncOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nvgpu::MmaSyncOp mma,
                                PatternRewriter &rewriter) const override {
    if (!getElementTypeOrSelf(mma.getMatrixA().getType()).isBF16())
      return failure();
    SmallVector<int64_t> shape = llvm::to_vector(
        llvm::map_range(mma.getMmaShape().getAsValueRange<IntegerAttr>(),
                        [](const APInt &v) { return v.getSExtValue(); }));
    auto aType = cast<VectorType>(mma.getMatrixA().getType());
    auto bType = cast<VectorType>(mma.getMatrixB().getType());
    auto cType = cast<VectorType>(mma.getMatrixC().getType());
    if (shape != ArrayRef<int64_t>{16, 8, 16} ||
        aType.getShape() != ArrayRef<int64_t>{4, 2} ||
        bType.getShape() != ArrayRef<int64_t>{2, 2} ||
        cType.getShape() != ArrayRef<int64_t>{2, 2} ||
        !cType.getElementType().isF32())
      return rewriter.notifyMatchFailure(
          mma, "only m16n8k16 with an f32 accumulator has bf16 operands");
    Location loc = mma.getLoc();
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    auto registers = [&](Value fragment, int64_t count) {
      SmallVector<Value> regs;
      for (int64_t i = 0; i < count; ++i) {
        Value pair = vector::ExtractOp::create(rewriter, loc, fragment, i);
        regs.push_back(LLVM::BitcastOp::create(rewriter, loc, i32, pair));
      }
      return regs;
    };
    SmallVector<Value> a = registers(mma.getMatrixA(), 4);
    SmallVector<Value> b = registers(mma.getMatrixB(), 2);
    SmallVector<Value> c;
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j)
        c.push_back(vector::ExtractOp::create(rewriter, loc, mma.getMatrixC(),
                                              ArrayRef<int64_t>{i, j}));
    auto resultType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(), SmallVector<Type>(4, f32));
    auto nvvmMma = NVVM::MmaOp::create(
        rewriter, loc, resultType, a, b, c, shape, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    Value d = arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(cType, rewriter.getF32FloatAttr(0)));
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        Value element = LLVM::ExtractValueOp::create(rewriter, loc, nvvmMma,
                                                     int64_t{i * 2 + j});
        d = vector::InsertOp::create(rewriter, loc, element, d,
                                     ArrayRef<int64_t>{i, j});
      }
    rewriter.replaceOp(mma, d);
    return success();
  }
};

class NVIDIABF16MMAToNVVMPass
    : public orchestra::nvidia::impl::NVIDIABF16MMAToNVVMBase<
          NVIDIABF16MMAToNVVMPass> {
public:
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<BF16MmaSyncToNVVM>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    WalkResult left = getOperation()->walk([](nvgpu::MmaSyncOp mma) {
      if (!getElementTypeOrSelf(mma.getMatrixA().getType()).isBF16())
        return WalkResult::advance();
      mma.emitOpError("has bf16 operands but is not m16n8k16 with an f32 "
                      "accumulator, the only bf16 form this lowering has");
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
