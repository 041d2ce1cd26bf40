//===- WorkgroupAllocations.cpp - Kernel temporaries as attributions ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Target/GPU/AttrNames.h"
#include "orchestra/Target/GPU/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::orchestra::gpucommon {
#define GEN_PASS_DEF_GPUWORKGROUPALLOCATIONS
#include "orchestra/Target/GPU/Passes.h.inc"
} // namespace mlir::orchestra::gpucommon

using namespace mlir;

/// Shared-memory tiles start on 128-byte lines: the matrix-unit recipes read
/// rows of 16 bytes and copy tiles with block copies whose targets must be
/// 128-byte aligned.
static constexpr int64_t kWorkgroupAlignment = 128;
/// In dynamic shared memory, every tile starts on a 128-byte line: the XOR
/// swizzles of the shared-memory bank optimizations assume it.
static constexpr int64_t kDynamicTileAlignment = 128;
static bool isWorkgroup(MemRefType type) {
  auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
  return space && space.getValue() == gpu::AddressSpace::Workgroup;
}

/// The alignment of `alloc`'s buffer: the tile default, or more when the
/// allocation asks for it (tiles written with TMA's 128-byte swizzle need
/// 1024 bytes).
static int64_t getAlignment(memref::AllocOp alloc, int64_t fallback) {
  return std::max<int64_t>(fallback, alloc.getAlignment().value_or(0));
}

static int64_t getByteSize(MemRefType type) {
  return type.getNumElements() * static_cast<int64_t>(llvm::divideCeil(
                                     type.getElementTypeBitWidth(), 8));
}

/// The most private memory one bounded temporary of a thread may take
/// (it lives in local memory).
static constexpr int64_t kMaxPrivateBytes = 4096;

/// A constant upper bound (closed) of the index `value`. An `affine.max`
/// is bounded by the largest bound of its expressions (the value-bounds
/// analysis only knows lower bounds of a maximum).
static FailureOr<int64_t> getUpperBound(Value value) {
  if (auto max = value.getDefiningOp<affine::AffineMaxOp>()) {
    AffineMap map = max.getMap();
    int64_t bound = std::numeric_limits<int64_t>::min();
    for (unsigned i = 0, e = map.getNumResults(); i < e; ++i) {
      FailureOr<int64_t> part = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB,
          ValueBoundsConstraintSet::Variable(map.getSubMap({i}),
                                             max.getMapOperands()),
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (failed(part))
        return failure();
      bound = std::max(bound, *part);
    }
    return bound;
  }
  return ValueBoundsConstraintSet::computeConstantBound(
      presburger::BoundType::UB, value, /*stopCondition=*/nullptr,
      /*closedUB=*/true);
}

/// A buffer of dynamic shape that bufferization allocated inside a kernel
/// without a memory space: a copy of a thread's tile of a value it writes
/// but its block does not share (the accumulator of a result nobody reads,
/// such as ArgMax's maximum). Each thread that runs the allocation gets its
/// own buffer, so it is private memory; its sizes come from the thread's
/// tile, so they have constant upper bounds. It becomes a static private
/// allocation of those bounds, reinterpreted to the sizes asked for, when
/// its users do not care about its type (structured ops, loads and stores,
/// `memref.dim`; a `memref.copy` of dynamic sizes would become a call of the
/// host's copy function).
static void boundPrivateAllocation(memref::AllocOp alloc) {
  MemRefType type = alloc.getType();
  if (type.getMemorySpace() || type.hasStaticShape() ||
      !type.getLayout().isIdentity())
    return;
  for (Operation *user : alloc->getUsers())
    if (!isa<memref::DimOp, memref::DeallocOp, memref::LoadOp, memref::StoreOp,
             linalg::LinalgOp>(user))
      return;
  SmallVector<int64_t> bounds;
  unsigned dynamic = 0;
  for (int64_t size : type.getShape()) {
    if (!ShapedType::isDynamic(size)) {
      bounds.push_back(size);
      continue;
    }
    FailureOr<int64_t> bound =
        getUpperBound(alloc.getDynamicSizes()[dynamic++]);
    if (failed(bound) || *bound < 0)
      return;
    bounds.push_back(*bound);
  }
  auto privateSpace = gpu::AddressSpaceAttr::get(alloc.getContext(),
                                                 gpu::AddressSpace::Private);
  auto boundedType =
      MemRefType::get(bounds, type.getElementType(), AffineMap(), privateSpace);
  if (getByteSize(boundedType) > kMaxPrivateBytes)
    return;
  OpBuilder builder(alloc);
  Location loc = alloc.getLoc();
  Value bounded = memref::AllocOp::create(builder, loc, boundedType,
                                          alloc.getAlignmentAttr());
  // The sizes asked for, row-major in the bounded buffer.
  SmallVector<OpFoldResult> sizes, strides(type.getRank());
  dynamic = 0;
  for (int64_t size : type.getShape())
    sizes.push_back(ShapedType::isDynamic(size)
                        ? OpFoldResult(alloc.getDynamicSizes()[dynamic++])
                        : builder.getIndexAttr(size));
  int64_t stride = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    strides[d] = builder.getIndexAttr(stride);
    stride *= bounds[d];
  }
  SmallVector<int64_t> staticStrides;
  for (OpFoldResult s : strides)
    staticStrides.push_back(*getConstantIntValue(s));
  auto viewType = MemRefType::get(
      type.getShape(), type.getElementType(),
      StridedLayoutAttr::get(alloc.getContext(), 0, staticStrides),
      privateSpace);
  Value view = memref::ReinterpretCastOp::create(
      builder, loc, viewType, bounded, builder.getIndexAttr(0), sizes, strides);
  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
    if (isa<memref::DeallocOp>(user))
      user->erase();
  alloc.replaceAllUsesWith(view);
  alloc.erase();
}

namespace {
class GPUWorkgroupAllocationsPass
    : public orchestra::gpucommon::impl::GPUWorkgroupAllocationsBase<
          GPUWorkgroupAllocationsPass> {
public:
  using GPUWorkgroupAllocationsBase::GPUWorkgroupAllocationsBase;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    // The target's own limit, where its description sets the key.
    int64_t workgroupLimit = limit;
    if (!limitKey.empty())
      if (auto parent = module->getParentOfType<ModuleOp>())
        if (auto target =
                parent->getAttrOfType<DictionaryAttr>(orchestra::attr::kTarget))
          if (auto bytes = target.getAs<IntegerAttr>(limitKey))
            workgroupLimit = bytes.getInt();
    SmallVector<NamedAttribute> dynamicSizes;
    WalkResult result = module.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return WalkResult::advance();
      SmallVector<memref::AllocOp> allocs;
      func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
      for (memref::AllocOp alloc : allocs)
        boundPrivateAllocation(alloc);
      allocs.clear();
      func.walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
      for (memref::AllocOp alloc : allocs)
        if (failed(verify(func, alloc)))
          return WalkResult::interrupt();
      SmallVector<memref::AllocOp> shared, other;
      int64_t sharedBytes = 0;
      for (memref::AllocOp alloc : allocs) {
        if (!isWorkgroup(alloc.getType())) {
          other.push_back(alloc);
          continue;
        }
        shared.push_back(alloc);
        sharedBytes =
            static_cast<int64_t>(llvm::alignTo(
                sharedBytes, getAlignment(alloc, kDynamicTileAlignment))) +
            getByteSize(alloc.getType());
      }
      if (workgroupLimit > 0 && sharedBytes > workgroupLimit) {
        InFlightDiagnostic diag =
            func.emitError()
            << "GPU kernel @" << func.getName() << " needs " << sharedBytes
            << " bytes of shared memory for its tiles, more than the "
            << workgroupLimit << " a workgroup has on this target";
        if (!limitKey.empty())
          diag << " (target key `" << limitKey << "`)";
        return WalkResult::interrupt();
      }
      if (sharedBytes > staticLimit) {
        int64_t bytes = placeInDynamicSharedMemory(func, shared);
        dynamicSizes.push_back(NamedAttribute(
            func.getNameAttr(),
            IntegerAttr::get(IntegerType::get(&getContext(), 64), bytes)));
      } else {
        other.append(shared.begin(), shared.end());
      }
      for (memref::AllocOp alloc : other)
        makeAttribution(func, alloc);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    if (!dynamicSizes.empty())
      module->setAttr(orchestra::gpucommon::attr::kDynamicSharedMemory,
                      DictionaryAttr::get(&getContext(), dynamicSizes));
  }

private:
  LogicalResult verify(gpu::GPUFuncOp func, memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    auto space = dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace());
    if (!space || space.getValue() == gpu::AddressSpace::Global)
      return alloc.emitOpError()
             << "allocates " << type << " in global memory inside GPU kernel @"
             << func.getName()
             << "; kernels may only allocate shared (workgroup) or private "
                "memory";
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return alloc.emitOpError()
             << "allocates " << type << " inside GPU kernel @" << func.getName()
             << "; only static shapes with the identity layout can become "
                "attributions";
    return success();
  }

  /// Replaces `alloc` by a workgroup or private attribution of `func`.
  void makeAttribution(gpu::GPUFuncOp func, memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    BlockArgument buffer;
    if (isWorkgroup(type)) {
      buffer = func.addWorkgroupAttribution(type, alloc.getLoc());
      func.setWorkgroupAttributionAttr(
          func.getNumWorkgroupAttributions() - 1,
          LLVM::LLVMDialect::getAlignAttrName(),
          IntegerAttr::get(IntegerType::get(&getContext(), 64),
                           getAlignment(alloc, kWorkgroupAlignment)));
    } else {
      buffer = func.addPrivateAttribution(type, alloc.getLoc());
    }
    replace(alloc, buffer);
  }

  /// Replaces the workgroup allocations `allocs` of `func` by views of its
  /// dynamic shared memory, each on a 128-byte line; returns the bytes they
  /// take.
  int64_t placeInDynamicSharedMemory(gpu::GPUFuncOp func,
                                     ArrayRef<memref::AllocOp> allocs) {
    OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
    Location loc = func.getLoc();
    auto bytesType = MemRefType::get(
        {ShapedType::kDynamic}, builder.getI8Type(), AffineMap(),
        gpu::AddressSpaceAttr::get(&getContext(),
                                   gpu::AddressSpace::Workgroup));
    Value base = gpu::DynamicSharedMemoryOp::create(builder, loc, bytesType);
    int64_t offset = 0;
    for (memref::AllocOp alloc : allocs) {
      offset = static_cast<int64_t>(
          llvm::alignTo(offset, getAlignment(alloc, kDynamicTileAlignment)));
      Value at = arith::ConstantIndexOp::create(builder, loc, offset);
      Value view = memref::ViewOp::create(
          builder, alloc.getLoc(), alloc.getType(), base, at, ValueRange());
      offset += getByteSize(alloc.getType());
      replace(alloc, view);
    }
    return offset;
  }

  static void replace(memref::AllocOp alloc, Value buffer) {
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.replaceAllUsesWith(buffer);
    alloc.erase();
  }
};
} // namespace
