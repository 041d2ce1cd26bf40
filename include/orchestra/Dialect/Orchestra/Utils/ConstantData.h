//===- ConstantData.h - The bytes of constant tensors -----------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The passes that compute on weights at compile time (pre-transposed and
// packed constants) read a constant's elements as bytes, whether MLIR holds
// them as dense elements or as a resource blob (large ONNX initializers).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_UTILS_CONSTANTDATA_H
#define ORCHESTRA_DIALECT_ORCHESTRA_UTILS_CONSTANTDATA_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"

#include <optional>

namespace mlir::orchestra {

/// The raw bytes of a constant's elements, row-major, or nothing (splats,
/// sub-byte types, unavailable resources).
std::optional<ArrayRef<char>> getRawElements(ElementsAttr attr);

} // namespace mlir::orchestra

#endif // ORCHESTRA_DIALECT_ORCHESTRA_UTILS_CONSTANTDATA_H
