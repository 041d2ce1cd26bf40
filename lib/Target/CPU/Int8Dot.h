//===- Int8Dot.h - The 8-bit contractions of the VNNI path ------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// What orchestra-cpu-tag-tiling and orchestra-cpu-pack-int8-operands agree
// on: which ops transform.orchestra.cpu_int8_dot computes, on which CPUs
// (design note 0018, decision 4).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_LIB_TARGET_CPU_INT8DOT_H
#define ORCHESTRA_LIB_TARGET_CPU_INT8DOT_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::orchestra::cpu {

/// The vector width (bits) of the 8-bit dot products (VNNI) the kernels of
/// `module` may use: 512 with AVX-512 VNNI, 256 with AVX-VNNI (or AVX-512
/// VNNI and VL), 0 without either.
int64_t getInt8DotWidth(ModuleOp module);

/// Whether `op` is a 2-D channels-last convolution or a row-major matmul
/// that multiplies 8-bit integers into 32-bit sums.
bool isInt8Contraction(linalg::LinalgOp op);

} // namespace mlir::orchestra::cpu

#endif // ORCHESTRA_LIB_TARGET_CPU_INT8DOT_H
