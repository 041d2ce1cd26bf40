//===- TensorData.h - The bytes of an ONNX TensorProto ----------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The element types and one reader of onnx.TensorProto contents, for the
// importer (initializers, constant attributes) and the conformance runner (test
// data): the shape, and the data as little-endian bytes from `raw_data`, the
// typed field that holds the element type, or external data in a file beside
// the model.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_FRONTEND_ONNX_TENSORDATA_H
#define ORCHESTRA_FRONTEND_ONNX_TENSORDATA_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace onnx {
class TensorProto;
} // namespace onnx

#include "orchestra/Support/Limits.h"

namespace mlir::orchestra::onnx_data {

/// The MLIR element type the importer gives ONNX element type `dtype` (an
/// `onnx::TensorProto::DataType`): floats as themselves, integers signless
/// of their width (signedness travels beside the value), bool as i1; null
/// for the others (string, complex).
Type getElementType(MLIRContext *context, int32_t dtype);

/// The most elements a tensor may have (2^40, orchestra/Support/Limits.h).
inline constexpr int64_t kMaxElements = kMaxTensorElements;

/// Reads the dimensions of `tensor` into `shape` and their product into
/// `count`. Fails on a negative dimension ("has a negative dimension") or
/// more than kMaxElements elements ("is too large"), with `error` set to
/// that phrase.
bool readShape(const onnx::TensorProto &tensor,
               llvm::SmallVectorImpl<int64_t> &shape, int64_t &count,
               std::string &error);

/// Reads the data of `tensor` as little-endian bytes, `elementSize` bytes
/// per element: `raw_data`, else the typed field that holds the element type
/// (float_data, double_data, int64_data, uint64_data for uint32/uint64, and
/// int32_data for every type of 32 bits or less), else, for external data,
/// `length` bytes (default: `expectedBytes`) at `offset` of the file
/// `location` relative to `baseDir` (the model's folder). Does not check the
/// size against the shape. `what` names the tensor in errors ("tensor 'w'").
bool readBytes(const onnx::TensorProto &tensor, size_t elementSize,
               uint64_t expectedBytes, llvm::StringRef baseDir,
               const std::string &what, std::vector<char> &bytes,
               std::string &error);

} // namespace mlir::orchestra::onnx_data

#endif // ORCHESTRA_FRONTEND_ONNX_TENSORDATA_H
