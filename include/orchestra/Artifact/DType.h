//===- DType.h - MLIR element types as runtime element types ----*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The one mapping from an MLIR element type to the element type of the
// artifact format (orx::DType), shared by the artifact builder (entry
// inputs and outputs) and the backends that describe kernel tensors in their
// binaries (the PJRT program bundle). Header-only: its users sit on both
// sides of the artifact library.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_ARTIFACT_DTYPE_H
#define ORCHESTRA_ARTIFACT_DTYPE_H

#include "orchestra_rt/Artifact.h"

#include "mlir/IR/BuiltinTypes.h"

#include <optional>

namespace mlir::orchestra {

/// The runtime element type of `element`; `isUnsigned` marks a signless
/// integer that holds an unsigned value (`orchestra.unsigned`, ONNX uint
/// types). None when the runtime has no such type; `index` is i64.
inline std::optional<orx::DType> toDType(Type element,
                                         bool isUnsigned = false) {
  if (auto integer = dyn_cast<IntegerType>(element)) {
    unsigned width = integer.getWidth();
    bool asUnsigned = width != 1 && (integer.isUnsigned() ||
                                     (isUnsigned && integer.isSignless()));
    switch (width) {
    case 1:
      return orx::DType::I1;
    case 8:
      return asUnsigned ? orx::DType::U8 : orx::DType::I8;
    case 16:
      return asUnsigned ? orx::DType::U16 : orx::DType::I16;
    case 32:
      return asUnsigned ? orx::DType::U32 : orx::DType::I32;
    case 64:
      return asUnsigned ? orx::DType::U64 : orx::DType::I64;
    default:
      return std::nullopt;
    }
  }
  if (element.isIndex())
    return orx::DType::I64;
  if (element.isF32())
    return orx::DType::F32;
  if (element.isF64())
    return orx::DType::F64;
  if (element.isF16())
    return orx::DType::F16;
  if (element.isBF16())
    return orx::DType::BF16;
  return std::nullopt;
}

} // namespace mlir::orchestra

#endif // ORCHESTRA_ARTIFACT_DTYPE_H
