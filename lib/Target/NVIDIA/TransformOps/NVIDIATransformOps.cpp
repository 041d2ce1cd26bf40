//===- NVIDIATransformOps.cpp - NVIDIA transform dialect extension --------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The op definitions and the extension that registers them; each op's
// rewrite is in the file named after it (TmaKLoop.cpp, WarpgroupMma.cpp,
// Tcgen05Mma.cpp, TmaStoreTile.cpp), what they share in StagedMatmul.cpp.
//
//===----------------------------------------------------------------------===//

// The transform dialect's extension registration checks, in builds with
// assertions, that every op implements the transform interfaces, through a
// function that libMLIR.so has only when it was built with assertions too;
// the distributions' libMLIR.so is not. These files compile without them.
#ifndef NDEBUG
#define NDEBUG
#endif

#include "orchestra/Target/NVIDIA/TransformOps/NVIDIATransformOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;

#define GET_OP_CLASSES
#include "orchestra/Target/NVIDIA/TransformOps/NVIDIATransformOps.cpp.inc"

namespace {
class NVIDIATransformDialectExtension
    : public transform::TransformDialectExtension<
          NVIDIATransformDialectExtension> {
public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(NVIDIATransformDialectExtension)

  using Base::Base;

  void init() {
    declareDependentDialect<gpu::GPUDialect>();
    declareGeneratedDialect<affine::AffineDialect>();
    declareGeneratedDialect<arith::ArithDialect>();
    declareGeneratedDialect<linalg::LinalgDialect>();
    declareGeneratedDialect<LLVM::LLVMDialect>();
    declareGeneratedDialect<memref::MemRefDialect>();
    declareGeneratedDialect<nvgpu::NVGPUDialect>();
    declareGeneratedDialect<NVVM::NVVMDialect>();
    declareGeneratedDialect<scf::SCFDialect>();
    declareGeneratedDialect<vector::VectorDialect>();
    registerTransformOps<
#define GET_OP_LIST
#include "orchestra/Target/NVIDIA/TransformOps/NVIDIATransformOps.cpp.inc"
        >();
  }
};
} // namespace

void mlir::orchestra::nvidia::registerTransformDialectExtension(
    DialectRegistry &registry) {
  registry.addExtensions<NVIDIATransformDialectExtension>();
}
