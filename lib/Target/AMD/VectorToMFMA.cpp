//===- VectorToMFMA.cpp - Wave contractions to amdgpu.mfma ----------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Upstream MLIR has no rewrite from `vector.contract` to `amdgpu.mfma` (IREE
// and rocMLIR each own theirs): this pass is the project's. It takes the
// wave-level contractions of the MFMA recipe (a wave's 32·a x 32·b output
// tile, its A and B operands read from LDS tiles) and distributes them over
// the 64 lanes of the wave in the register layouts of AMD's CDNA3
// matrix-instruction tables (the 32x32 variants, one block):
//
//   A (32 x K):  lane l holds A[l % 32][(l / 32) * P + i], i < P
//   B (K x 32):  lane l holds B[(l / 32) * P + i][l % 32], i < P
//   D (32 x 32): lane l, register r holds
//                D[8 * (r / 4) + 4 * (l / 32) + r % 4][l % 32], r < 16
//
// with K and P = K / 2 elements per lane by type: f32 (v_mfma_f32_32x32x2_f32,
// K 2, P 1), f16 and bf16 (..._32x32x8_f16/_bf16, K 8, P 4), i8
// (v_mfma_i32_32x32x16_i8, K 16, P 8). The tables are in docs/Passes/AMD.md.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/AMD/Passes.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::orchestra::amd {
#define GEN_PASS_DEF_AMDVECTORTOMFMA
#include "orchestra/Target/AMD/Passes.h.inc"
} // namespace mlir::orchestra::amd

using namespace mlir;

namespace {
/// The lanes of a CDNA3 wave, and the rows and columns of the MFMA tiles.
constexpr int64_t kWaveLanes = 64;
constexpr int64_t kTile = 32;
/// Accumulator registers per lane of a 32x32 tile.
constexpr int64_t kAccRegs = 16;

/// The 32x32 MFMA of an operand and accumulator type.
struct MfmaKind {
  /// K of one instruction, and the operand elements each lane holds.
  int64_t k;
  int64_t perLane;
};

std::optional<MfmaKind> getMfmaKind(Type operand, Type acc) {
  if (operand.isF32() && acc.isF32())
    return MfmaKind{2, 1};
  if ((operand.isF16() || operand.isBF16()) && acc.isF32())
    return MfmaKind{8, 4};
  if (operand.isInteger(8) && acc.isInteger(32))
    return MfmaKind{16, 8};
  return std::nullopt;
}

/// A read of a 2-D vector from the last two dimensions of a memref, at
/// `indices`, with nothing out of bounds and no mask.
vector::TransferReadOp getPlainRead(Value value) {
  auto read = value.getDefiningOp<vector::TransferReadOp>();
  if (!read || read.getMask() || !isa<MemRefType>(read.getBase().getType()) ||
      !read.getPermutationMap().isMinorIdentity() ||
      read.getVectorType().getRank() != 2 ||
      llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }))
    return nullptr;
  return read;
}

/// The write of `value` that the contraction's result feeds, when it is its
/// only use and writes where `read` read.
vector::TransferWriteOp getMatchingWrite(Value value,
                                         vector::TransferReadOp read) {
  if (!value.hasOneUse())
    return nullptr;
  auto write = dyn_cast<vector::TransferWriteOp>(*value.getUsers().begin());
  if (!write || write.getMask() || write.getBase() != read.getBase() ||
      write.getIndices() != read.getIndices() ||
      write.getPermutationMap() != read.getPermutationMap() ||
      llvm::any_of(write.getInBoundsValues(), [](bool b) { return !b; }))
    return nullptr;
  return write;
}

class Rewriter {
public:
  Rewriter(vector::ContractionOp contract, MfmaKind kind)
      : contract(contract), kind(kind), builder(contract) {}

  /// Replaces the contraction; fails with a diagnostic when its operands or
  /// accumulator are not in a form this pass distributes.
  LogicalResult run();

private:
  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }
  Value add(Value a, Value b) {
    return arith::AddIOp::create(builder, loc, a, b);
  }
  Value add(Value a, int64_t b) { return b ? add(a, index(b)) : a; }
  /// `indices` with the last two replaced by `row` and `col` added to them.
  SmallVector<Value> at(ValueRange indices, Value row, Value col) {
    SmallVector<Value> result(indices.begin(), indices.end());
    result[result.size() - 2] = add(result[result.size() - 2], row);
    result.back() = add(result.back(), col);
    return result;
  }
  void setLaneIds();
  /// The lane's accumulator registers of each 32x32 tile, read from `read`'s
  /// memory.
  SmallVector<Value> gatherAcc(vector::TransferReadOp read);
  void scatterAcc(ArrayRef<Value> accs, vector::TransferWriteOp write);
  /// Stores `accs` where `write` wrote, then a workgroup barrier; erases the
  /// contraction, its write and (when unused) its accumulator read.
  void finish(ArrayRef<Value> accs, vector::TransferReadOp accRead,
              vector::TransferWriteOp write);
  /// The MFMA chain over the contraction's K, from `accs`.
  SmallVector<Value> compute(vector::TransferReadOp lhs,
                             vector::TransferReadOp rhs,
                             SmallVector<Value> accs);

  vector::ContractionOp contract;
  MfmaKind kind;
  OpBuilder builder;
  Location loc = contract.getLoc();
  int64_t tilesM = 0, tilesN = 0;
  Value lane, half, row;
};
} // namespace

void Rewriter::setLaneIds() {
  // The blocks are one-dimensional (orchestra-amd-vector-to-mfma checks):
  // consecutive threads are consecutive lanes of a wave.
  Value tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  lane = arith::RemUIOp::create(builder, loc, tid, index(kWaveLanes));
  half = arith::DivUIOp::create(builder, loc, lane, index(kTile));
  row = arith::RemUIOp::create(builder, loc, lane, index(kTile));
}

SmallVector<Value> Rewriter::gatherAcc(vector::TransferReadOp read) {
  auto type = cast<VectorType>(read.getVectorType());
  SmallVector<Value> accs;
  for (int64_t mi = 0; mi < tilesM; ++mi)
    for (int64_t nj = 0; nj < tilesN; ++nj) {
      SmallVector<Value> elements;
      for (int64_t r = 0; r < kAccRegs; ++r) {
        // Row 8 (r / 4) + 4 (l / 32) + r % 4 of the tile, column l % 32.
        Value rowOf = add(arith::MulIOp::create(builder, loc, half, index(4)),
                          kTile * mi + 8 * (r / 4) + r % 4);
        Value colOf = add(row, kTile * nj);
        elements.push_back(memref::LoadOp::create(
            builder, loc, read.getBase(), at(read.getIndices(), rowOf, colOf)));
      }
      accs.push_back(vector::FromElementsOp::create(
          builder, loc, VectorType::get({kAccRegs}, type.getElementType()),
          elements));
    }
  return accs;
}

void Rewriter::scatterAcc(ArrayRef<Value> accs, vector::TransferWriteOp write) {
  int64_t t = 0;
  for (int64_t mi = 0; mi < tilesM; ++mi)
    for (int64_t nj = 0; nj < tilesN; ++nj, ++t)
      for (int64_t r = 0; r < kAccRegs; ++r) {
        Value rowOf = add(arith::MulIOp::create(builder, loc, half, index(4)),
                          kTile * mi + 8 * (r / 4) + r % 4);
        Value colOf = add(row, kTile * nj);
        Value element = vector::ExtractOp::create(builder, loc, accs[t], r);
        memref::StoreOp::create(builder, loc, element, write.getBase(),
                                at(write.getIndices(), rowOf, colOf));
      }
}

SmallVector<Value> Rewriter::compute(vector::TransferReadOp lhs,
                                     vector::TransferReadOp rhs,
                                     SmallVector<Value> accs) {
  Type element = lhs.getVectorType().getElementType();
  int64_t depth = lhs.getVectorType().getDimSize(1);
  int64_t p = kind.perLane;
  Value laneK = arith::MulIOp::create(builder, loc, half, index(p));
  auto operandType = VectorType::get({p}, element);
  for (int64_t kc = 0; kc < depth / kind.k; ++kc) {
    // A: P consecutive elements of row l % 32 (one vector load); B: P
    // elements of column l % 32.
    SmallVector<Value> as, bs;
    for (int64_t mi = 0; mi < tilesM; ++mi) {
      SmallVector<Value> indices =
          at(lhs.getIndices(), add(row, kTile * mi), add(laneK, kc * kind.k));
      as.push_back(p == 1
                       ? Value(memref::LoadOp::create(builder, loc,
                                                      lhs.getBase(), indices))
                       : Value(vector::LoadOp::create(builder, loc, operandType,
                                                      lhs.getBase(), indices)));
    }
    for (int64_t nj = 0; nj < tilesN; ++nj) {
      SmallVector<Value> elements;
      for (int64_t i = 0; i < p; ++i)
        elements.push_back(memref::LoadOp::create(
            builder, loc, rhs.getBase(),
            at(rhs.getIndices(), add(laneK, kc * kind.k + i),
               add(row, kTile * nj))));
      bs.push_back(p == 1 ? elements.front()
                          : Value(vector::FromElementsOp::create(
                                builder, loc, operandType, elements)));
    }
    int64_t t = 0;
    for (int64_t mi = 0; mi < tilesM; ++mi)
      for (int64_t nj = 0; nj < tilesN; ++nj, ++t)
        accs[t] = amdgpu::MFMAOp::create(builder, loc, accs[t].getType(), kTile,
                                         kTile, kind.k,
                                         /*blocks=*/1, as[mi], bs[nj], accs[t]);
  }
  return accs;
}

LogicalResult Rewriter::run() {
  auto lhs = getPlainRead(contract.getLhs());
  auto rhs = getPlainRead(contract.getRhs());
  auto accRead = getPlainRead(contract.getAcc());
  if (!lhs || !rhs || !accRead)
    return contract.emitOpError()
           << "cannot be distributed onto MFMA lanes: its A, B and "
              "accumulator must be whole in-bounds reads of 2-D tiles of "
              "memory";
  vector::TransferWriteOp write =
      getMatchingWrite(contract.getResult(), accRead);
  if (!write)
    return contract.emitOpError()
           << "cannot be distributed onto MFMA lanes: its result must only "
              "be written back where its accumulator was read";
  auto accType = cast<VectorType>(contract.getResultType());
  tilesM = accType.getDimSize(0) / kTile;
  tilesN = accType.getDimSize(1) / kTile;

  // The accumulator stays in registers across the K loop when the loop
  // only reads and writes it there (the strategy's usual form).
  auto loop = dyn_cast<scf::ForOp>(contract->getParentOp());
  bool hoist =
      loop && accRead->getBlock() == contract->getBlock() &&
      write->getBlock() == contract->getBlock() &&
      loop.isDefinedOutsideOfLoop(accRead.getBase()) &&
      llvm::all_of(accRead.getIndices(),
                   [&](Value v) { return loop.isDefinedOutsideOfLoop(v); }) &&
      llvm::all_of(accRead.getBase().getUsers(), [&](Operation *op) {
        return op == accRead || op == write || !loop->isProperAncestor(op);
      });
  if (!hoist) {
    builder.setInsertionPoint(contract);
    setLaneIds();
    finish(compute(lhs, rhs, gatherAcc(accRead)), accRead, write);
    return success();
  }

  builder.setInsertionPoint(loop);
  setLaneIds();
  SmallVector<Value> inits = gatherAcc(accRead);
  IRRewriter rewriter(builder);
  rewriter.setInsertionPoint(loop);
  FailureOr<LoopLikeOpInterface> newLoop =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(
              rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
              [](OpBuilder &, Location, ArrayRef<BlockArgument> args) {
                return SmallVector<Value>(args.begin(), args.end());
              });
  if (failed(newLoop))
    return contract.emitOpError() << "cannot carry its accumulators in "
                                     "registers across its loop";
  auto forOp = cast<scf::ForOp>(newLoop->getOperation());
  unsigned first = forOp.getNumRegionIterArgs() - inits.size();
  SmallVector<Value> accs;
  for (unsigned i = 0; i < inits.size(); ++i)
    accs.push_back(forOp.getRegionIterArgs()[first + i]);
  builder.setInsertionPoint(contract);
  SmallVector<Value> results = compute(lhs, rhs, accs);
  auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
  for (unsigned i = 0; i < results.size(); ++i)
    yield->setOperand(first + i, results[i]);
  // The loop's final accumulators go where the write put them (its memory
  // and indices are defined before the loop, as are the lane ids).
  builder.setInsertionPointAfter(forOp);
  SmallVector<Value> finals;
  for (unsigned i = 0; i < inits.size(); ++i)
    finals.push_back(forOp.getResult(first + i));
  finish(finals, accRead, write);
  return success();
}

void Rewriter::finish(ArrayRef<Value> accs, vector::TransferReadOp accRead,
                      vector::TransferWriteOp write) {
  scatterAcc(accs, write);
  // The threads that read the accumulators next (an epilogue reading them
  // from LDS) wait for every wave's stores here. (Every thread runs the K
  // loop, whose steps copy the operand tiles together, so the barrier is not
  // in divergent code.)
  gpu::BarrierOp::create(builder, loc);
  write.erase();
  contract.erase();
  if (accRead->use_empty())
    accRead.erase();
}

namespace {
class AMDVectorToMFMAPass
    : public orchestra::amd::impl::AMDVectorToMFMABase<AMDVectorToMFMAPass> {
public:
  using AMDVectorToMFMABase::AMDVectorToMFMABase;

  void runOnOperation() override {
    SmallVector<vector::ContractionOp> contracts;
    getOperation().walk([&](vector::ContractionOp contract) {
      auto type = dyn_cast<VectorType>(contract.getResultType());
      if (type && type.getRank() == 2 && type.getDimSize(0) % kTile == 0 &&
          type.getDimSize(1) % kTile == 0)
        contracts.push_back(contract);
    });
    for (vector::ContractionOp contract : contracts)
      if (failed(rewrite(contract)))
        return signalPassFailure();
  }

private:
  LogicalResult rewrite(vector::ContractionOp contract) {
    if (!isRowMajorMatmul(contract.getIndexingMaps()))
      return contract.emitOpError()
             << "is a wave-sized contraction that is not a row-major matmul; "
                "the MFMA recipe makes only those";
    Type operand = contract.getLhsType().getElementType();
    Type acc = cast<VectorType>(contract.getResultType()).getElementType();
    std::optional<MfmaKind> kind = getMfmaKind(operand, acc);
    if (!kind || contract.getRhsType().getElementType() != operand) {
      InFlightDiagnostic diag =
          contract.emitOpError()
          << "multiplies " << operand << " accumulating in " << acc
          << ", which has no 32x32 MFMA on " << chip
          << " (f32, f16 and bf16 accumulate in f32, i8 in i32)";
      if (isa<Float8E4M3FNType, Float8E5M2Type>(operand))
        diag << "; " << chip
             << " multiplies the FNUZ fp8 types, not the OCP ones";
      return diag;
    }
    int64_t depth = contract.getLhsType().getDimSize(1);
    if (depth % kind->k != 0)
      return contract.emitOpError()
             << "has K = " << depth << ", not a multiple of the " << kind->k
             << " of one MFMA of " << operand;
    auto launch = contract->getParentOfType<gpu::LaunchOp>();
    std::optional<int64_t> x, y, z;
    if (launch) {
      x = getConstantIntValue(launch.getBlockSizeX());
      y = getConstantIntValue(launch.getBlockSizeY());
      z = getConstantIntValue(launch.getBlockSizeZ());
    }
    if (!launch || !x || !y || !z || *x % kWaveLanes != 0 || *y != 1 || *z != 1)
      return contract.emitOpError()
             << "is not in a `gpu.launch` of one-dimensional blocks of whole "
                "64-lane waves";
    return Rewriter(contract, *kind).run();
  }
};
} // namespace
