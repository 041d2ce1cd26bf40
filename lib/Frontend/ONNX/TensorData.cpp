//===- TensorData.cpp - The bytes of an ONNX TensorProto ------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Frontend/ONNX/TensorData.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "onnx/onnx_pb.h"

#include <cstring>
#include <optional>

using namespace mlir::orchestra;

mlir::Type onnx_data::getElementType(mlir::MLIRContext *context,
                                     int32_t dtype) {
  mlir::Builder b(context);
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
    return b.getI8Type();
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return b.getI16Type();
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return b.getI64Type();
  default:
    return nullptr;
  }
}

bool onnx_data::readShape(const onnx::TensorProto &tensor,
                          llvm::SmallVectorImpl<int64_t> &shape, int64_t &count,
                          std::string &error) {
  count = 1;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0) {
      error = "has a negative dimension";
      return false;
    }
    shape.push_back(dim);
    if (dim != 0 && count > kMaxElements / dim) {
      error = "is too large";
      return false;
    }
    count *= dim;
  }
  return true;
}

/// Appends the little-endian bytes of each of `values`, `size` bytes each
/// (the low bytes: int32_data holds 8- and 16-bit types).
template <typename T>
static void appendLowBytes(std::vector<char> &bytes, const T &values,
                           size_t size) {
  for (auto value : values) {
    uint64_t bits = 0;
    static_assert(sizeof(value) <= 8, "wider than 64 bits");
    std::memcpy(&bits, &value, sizeof(value));
    for (size_t i = 0; i < size; ++i)
      bytes.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  }
}

static bool readExternalBytes(const onnx::TensorProto &tensor,
                              uint64_t expectedBytes, llvm::StringRef baseDir,
                              const std::string &what, std::vector<char> &bytes,
                              std::string &error) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
      continue;
    }
    if (entry.key() != "offset" && entry.key() != "length")
      continue;
    uint64_t parsed = 0;
    if (!llvm::to_integer(entry.value(), parsed, 10)) {
      error = what + " has external data with " + entry.key() + " '" +
              entry.value() + "', which is not a byte count";
      return false;
    }
    if (entry.key() == "offset")
      offset = parsed;
    else
      length = parsed;
  }
  if (location.empty()) {
    error = what + " has external data without a location";
    return false;
  }
  // The data must lie in the model's folder (as ONNX Runtime requires): a
  // relative path without "..", and no symbolic link leading out of it. A
  // downloaded model must not read any file its user can.
  llvm::StringRef relative(location);
  bool escapes = llvm::sys::path::is_absolute(relative) ||
                 relative.starts_with("/") || relative.starts_with("\\");
  for (auto it = llvm::sys::path::begin(relative),
            end = llvm::sys::path::end(relative);
       it != end && !escapes; ++it)
    escapes = *it == "..";
  if (escapes) {
    error = "the external data of " + what + " is at '" + location +
            "', outside the model's folder (only paths inside it, without "
            "'..', are read)";
    return false;
  }
  llvm::SmallString<256> path = baseDir;
  llvm::sys::path::append(path, location);
  llvm::SmallString<256> realDir, realFile;
  if (!llvm::sys::fs::real_path(baseDir.empty() ? "." : baseDir, realDir) &&
      !llvm::sys::fs::real_path(path, realFile)) {
    llvm::StringRef file(realFile);
    if (!file.starts_with(realDir) ||
        (file.size() > realDir.size() &&
         !llvm::sys::path::is_separator(file[realDir.size()]))) {
      error = "the external data of " + what + " at '" + location +
              "' is a link to '" + realFile.str().str() +
              "', outside the model's folder";
      return false;
    }
  }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file) {
    error = "cannot read the external data of " + what + " from '" +
            path.str().str() + "': " + file.getError().message();
    return false;
  }
  uint64_t size = length.value_or(expectedBytes);
  uint64_t fileSize = (*file)->getBufferSize();
  if (offset > fileSize || size > fileSize - offset) {
    error = "the external data of " + what + " lies beyond the end of '" +
            path.str().str() + "'";
    return false;
  }
  bytes.assign((*file)->getBufferStart() + offset,
               (*file)->getBufferStart() + offset + size);
  return true;
}

bool onnx_data::readBytes(const onnx::TensorProto &tensor, size_t elementSize,
                          uint64_t expectedBytes, llvm::StringRef baseDir,
                          const std::string &what, std::vector<char> &bytes,
                          std::string &error) {
  bytes.clear();
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return readExternalBytes(tensor, expectedBytes, baseDir, what, bytes,
                             error);
  if (tensor.has_raw_data()) {
    bytes.assign(tensor.raw_data().begin(), tensor.raw_data().end());
    return true;
  }
  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT:
    appendLowBytes(bytes, tensor.float_data(), 4);
    break;
  case onnx::TensorProto::DOUBLE:
    appendLowBytes(bytes, tensor.double_data(), 8);
    break;
  case onnx::TensorProto::INT64:
    appendLowBytes(bytes, tensor.int64_data(), 8);
    break;
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    appendLowBytes(bytes, tensor.uint64_data(), elementSize);
    break;
  default:
    // int32_data holds every type of 32 bits or less.
    appendLowBytes(bytes, tensor.int32_data(), elementSize);
    break;
  }
  return true;
}
