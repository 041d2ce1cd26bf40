//===- TestData.cpp - Tensors of the ONNX backend test data ---------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "TestData.h"

#include "orchestra/Frontend/ONNX/TensorData.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx-data_pb.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

using namespace mlir::orchestra;
using namespace mlir::orchestra::conformance;
using llvm::SmallString;
using llvm::SmallVector;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

StringRef conformance::getDTypeName(int32_t dtype) {
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    return "float";
  case onnx::TensorProto::UINT8:
    return "uint8";
  case onnx::TensorProto::INT8:
    return "int8";
  case onnx::TensorProto::UINT16:
    return "uint16";
  case onnx::TensorProto::INT16:
    return "int16";
  case onnx::TensorProto::INT32:
    return "int32";
  case onnx::TensorProto::INT64:
    return "int64";
  case onnx::TensorProto::STRING:
    return "string";
  case onnx::TensorProto::BOOL:
    return "bool";
  case onnx::TensorProto::FLOAT16:
    return "float16";
  case onnx::TensorProto::DOUBLE:
    return "double";
  case onnx::TensorProto::UINT32:
    return "uint32";
  case onnx::TensorProto::UINT64:
    return "uint64";
  case onnx::TensorProto::COMPLEX64:
    return "complex64";
  case onnx::TensorProto::COMPLEX128:
    return "complex128";
  case onnx::TensorProto::BFLOAT16:
    return "bfloat16";
  default:
    return "undefined";
  }
}

std::optional<orx_dtype_t> conformance::getOrxDType(int32_t dtype) {
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
    return ORX_DTYPE_F32;
  case onnx::TensorProto::DOUBLE:
    return ORX_DTYPE_F64;
  case onnx::TensorProto::FLOAT16:
    return ORX_DTYPE_F16;
  case onnx::TensorProto::BFLOAT16:
    return ORX_DTYPE_BF16;
  case onnx::TensorProto::BOOL:
    return ORX_DTYPE_I1;
  case onnx::TensorProto::INT8:
    return ORX_DTYPE_I8;
  case onnx::TensorProto::INT16:
    return ORX_DTYPE_I16;
  case onnx::TensorProto::INT32:
    return ORX_DTYPE_I32;
  case onnx::TensorProto::INT64:
    return ORX_DTYPE_I64;
  case onnx::TensorProto::UINT8:
    return ORX_DTYPE_U8;
  case onnx::TensorProto::UINT16:
    return ORX_DTYPE_U16;
  case onnx::TensorProto::UINT32:
    return ORX_DTYPE_U32;
  case onnx::TensorProto::UINT64:
    return ORX_DTYPE_U64;
  default:
    return std::nullopt;
  }
}

std::string conformance::formatType(uint32_t orxDType,
                                    llvm::ArrayRef<int64_t> shape) {
  const char *name = orx_dtype_name(orxDType);
  std::string result = std::string(name ? name : "?") + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    result += (i ? "x" : "") + std::to_string(shape[i]);
  return result + "]";
}

std::string conformance::formatONNXType(int32_t dtype,
                                        llvm::ArrayRef<int64_t> shape) {
  if (std::optional<orx_dtype_t> orxDType = getOrxDType(dtype))
    return formatType(*orxDType, shape);
  std::string result = getDTypeName(dtype).str() + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    result += (i ? "x" : "") + std::to_string(shape[i]);
  return result + "]";
}

/// Reads the contents of an onnx.TensorProto.
static std::optional<HostTensor> readTensor(const onnx::TensorProto &proto,
                                            TensorError &error,
                                            bool allowStrings) {
  HostTensor tensor;
  tensor.dtype = proto.data_type();
  std::optional<orx_dtype_t> orxType = getOrxDType(tensor.dtype);
  bool isString = allowStrings && tensor.dtype == onnx::TensorProto::STRING;
  if (!orxType && !isString) {
    error.message =
        ("element type " + getDTypeName(tensor.dtype) + " is not supported")
            .str();
    error.unsupportedType = true;
    return std::nullopt;
  }
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    error.message = "external tensor data is not supported";
    error.unsupportedType = true;
    return std::nullopt;
  }
  int64_t count = 1;
  llvm::SmallVector<int64_t> shape;
  std::string reason;
  if (!onnx_data::readShape(proto, shape, count, reason)) {
    error.message = "malformed dimensions";
    return std::nullopt;
  }
  tensor.shape.assign(shape.begin(), shape.end());
  if (isString) {
    tensor.strings.assign(proto.string_data().begin(),
                          proto.string_data().end());
    if (tensor.strings.size() != size_t(count)) {
      error.message = "has " + std::to_string(tensor.strings.size()) +
                      " strings; its shape needs " + std::to_string(count);
      return std::nullopt;
    }
    return tensor;
  }
  size_t elementSize = orx_dtype_size(*orxType);
  // (External data was refused above: test data never has it.)
  onnx_data::readBytes(proto, elementSize, size_t(count) * elementSize,
                       /*baseDir=*/"", "the tensor", tensor.bytes, reason);
  if (tensor.bytes.size() != size_t(count) * elementSize) {
    error.message = "has " + std::to_string(tensor.bytes.size()) +
                    " bytes of data; its shape and type need " +
                    std::to_string(size_t(count) * elementSize);
    return std::nullopt;
  }
  return tensor;
}

/// Reads the file at `path` into `proto`; `protoName` names its message
/// type in the error.
static bool readProtoFile(StringRef path, google::protobuf::MessageLite &proto,
                          StringRef protoName, TensorError &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file) {
    error.message = "cannot read: " + file.getError().message();
    return false;
  }
  StringRef data = (*file)->getBuffer();
  if (data.size() > size_t(std::numeric_limits<int>::max()) ||
      !proto.ParseFromArray(data.data(), static_cast<int>(data.size()))) {
    error.message = ("not a serialized onnx." + protoName).str();
    return false;
  }
  return true;
}

std::optional<HostTensor> conformance::readTensorFile(StringRef path,
                                                      TensorError &error,
                                                      bool allowStrings) {
  onnx::TensorProto proto;
  if (!readProtoFile(path, proto, "TensorProto", error))
    return std::nullopt;
  return readTensor(proto, error, allowStrings);
}

void conformance::relabelBFloat16(HostTensor &tensor,
                                  const onnx::TypeProto &type) {
  if (tensor.dtype == onnx::TensorProto::UINT16 && type.has_tensor_type() &&
      type.tensor_type().elem_type() == onnx::TensorProto::BFLOAT16)
    tensor.dtype = onnx::TensorProto::BFLOAT16;
}

/// A tensor of the test data as a value of declared type `type`.
static std::optional<HostValue> makeTensorValue(const onnx::TensorProto &proto,
                                                const onnx::TypeProto &type,
                                                TensorError &error) {
  std::optional<HostTensor> tensor =
      readTensor(proto, error, /*allowStrings=*/true);
  if (!tensor)
    return std::nullopt;
  relabelBFloat16(*tensor, type);
  HostValue value;
  value.tensor = std::move(*tensor);
  return value;
}

/// The elements of a sequence of tensors whose elements have type `type`.
static std::optional<HostValue>
makeSequenceValue(const onnx::SequenceProto &proto, const onnx::TypeProto &type,
                  TensorError &error) {
  if (proto.elem_type() != onnx::SequenceProto::TENSOR ||
      !type.has_tensor_type()) {
    error.message = "only sequences of tensors are supported";
    error.unsupportedType = true;
    return std::nullopt;
  }
  HostValue value;
  value.kind = HostValue::Kind::Sequence;
  for (const onnx::TensorProto &element : proto.tensor_values()) {
    std::optional<HostValue> tensor = makeTensorValue(element, type, error);
    if (!tensor) {
      error.message = "element " + std::to_string(value.elements.size()) +
                      ": " + error.message;
      return std::nullopt;
    }
    value.elements.push_back(std::move(*tensor));
  }
  return value;
}

std::optional<HostValue> conformance::readValueFile(StringRef path,
                                                    const onnx::TypeProto &type,
                                                    TensorError &error) {
  if (type.has_tensor_type()) {
    onnx::TensorProto proto;
    if (!readProtoFile(path, proto, "TensorProto", error))
      return std::nullopt;
    return makeTensorValue(proto, type, error);
  }
  if (type.has_sequence_type()) {
    onnx::SequenceProto proto;
    if (!readProtoFile(path, proto, "SequenceProto", error))
      return std::nullopt;
    return makeSequenceValue(proto, type.sequence_type().elem_type(), error);
  }
  if (type.has_optional_type()) {
    onnx::OptionalProto proto;
    if (!readProtoFile(path, proto, "OptionalProto", error))
      return std::nullopt;
    const onnx::TypeProto &elementType = type.optional_type().elem_type();
    HostValue value;
    value.kind = HostValue::Kind::Optional;
    std::optional<HostValue> element;
    switch (proto.elem_type()) {
    case onnx::OptionalProto::UNDEFINED:
      return value;
    case onnx::OptionalProto::TENSOR:
      element = makeTensorValue(proto.tensor_value(), elementType, error);
      break;
    case onnx::OptionalProto::SEQUENCE:
      if (!elementType.has_sequence_type()) {
        error.message = "holds a sequence; the graph declares another type";
        return std::nullopt;
      }
      element =
          makeSequenceValue(proto.sequence_value(),
                            elementType.sequence_type().elem_type(), error);
      break;
    default:
      error.message = "only optional tensors and sequences are supported";
      error.unsupportedType = true;
      return std::nullopt;
    }
    if (!element)
      return std::nullopt;
    value.elements.push_back(std::move(*element));
    return value;
  }
  error.message = "only tensor, sequence and optional outputs are supported";
  error.unsupportedType = true;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

/// IEEE half to float.
static float halfToFloat(uint16_t bits) {
  uint32_t sign = uint32_t(bits & 0x8000) << 16;
  uint32_t exponent = (bits >> 10) & 0x1f;
  uint32_t mantissa = bits & 0x3ff;
  uint32_t result;
  if (exponent == 0x1f) {
    result = sign | 0x7f800000 | (mantissa << 13);
  } else if (exponent != 0) {
    result = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    result = sign;
  } else {
    // Subnormal: normalize.
    exponent = 113;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      --exponent;
    }
    result = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
  }
  float value;
  std::memcpy(&value, &result, sizeof(value));
  return value;
}

/// Element `index` of floating-point data of ONNX type `dtype`.
static double readFloat(int32_t dtype, const char *data, int64_t index) {
  switch (dtype) {
  case onnx::TensorProto::FLOAT: {
    float value;
    std::memcpy(&value, data + 4 * index, 4);
    return value;
  }
  case onnx::TensorProto::DOUBLE: {
    double value;
    std::memcpy(&value, data + 8 * index, 8);
    return value;
  }
  case onnx::TensorProto::FLOAT16: {
    uint16_t bits;
    std::memcpy(&bits, data + 2 * index, 2);
    return halfToFloat(bits);
  }
  case onnx::TensorProto::BFLOAT16: {
    uint16_t bits;
    std::memcpy(&bits, data + 2 * index, 2);
    uint32_t wide = uint32_t(bits) << 16;
    float value;
    std::memcpy(&value, &wide, 4);
    return value;
  }
  default:
    llvm_unreachable("not a floating-point type");
  }
}

/// Element `index` of integer or bool data of ONNX type `dtype`, as text.
static std::string formatInteger(int32_t dtype, const char *data,
                                 int64_t index) {
  auto read = [&](auto value) {
    std::memcpy(&value, data + sizeof(value) * index, sizeof(value));
    return value;
  };
  switch (dtype) {
  case onnx::TensorProto::BOOL:
    return read(uint8_t()) ? "true" : "false";
  case onnx::TensorProto::INT8:
    return std::to_string(read(int8_t()));
  case onnx::TensorProto::INT16:
    return std::to_string(read(int16_t()));
  case onnx::TensorProto::INT32:
    return std::to_string(read(int32_t()));
  case onnx::TensorProto::INT64:
    return std::to_string(read(int64_t()));
  case onnx::TensorProto::UINT8:
    return std::to_string(read(uint8_t()));
  case onnx::TensorProto::UINT16:
    return std::to_string(read(uint16_t()));
  case onnx::TensorProto::UINT32:
    return std::to_string(read(uint32_t()));
  case onnx::TensorProto::UINT64:
    return std::to_string(read(uint64_t()));
  default:
    llvm_unreachable("not an integer type");
  }
}

static bool isFloatDType(int32_t dtype) {
  return dtype == onnx::TensorProto::FLOAT ||
         dtype == onnx::TensorProto::DOUBLE ||
         dtype == onnx::TensorProto::FLOAT16 ||
         dtype == onnx::TensorProto::BFLOAT16;
}

/// "[1, 2]": the multi-index of row-major element `index`.
static std::string formatIndex(int64_t index, llvm::ArrayRef<int64_t> shape) {
  SmallVector<int64_t> indices(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    indices[i] = shape[i] ? index % shape[i] : 0;
    index = shape[i] ? index / shape[i] : 0;
  }
  return "[" +
         llvm::join(llvm::map_range(
                        indices, [](int64_t v) { return std::to_string(v); }),
                    ", ") +
         "]";
}

static std::string formatDouble(double value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (std::isnan(value))
    os << "nan";
  else if (std::isinf(value))
    os << (value < 0 ? "-inf" : "inf");
  else
    os << llvm::format("%.7g", value);
  return text;
}

std::string conformance::compareValues(const HostTensor &expected,
                                       const std::vector<char> &got) {
  int64_t count = expected.getNumElements();
  const char *exp = expected.bytes.data();
  const char *act = got.data();
  int64_t mismatches = 0;
  if (isFloatDType(expected.dtype)) {
    // The worst mismatch: the largest error, where a NaN/inf mismatch
    // counts as infinitely large.
    int64_t worst = -1;
    double worstError = -1;
    for (int64_t i = 0; i < count; ++i) {
      double e = readFloat(expected.dtype, exp, i);
      double g = readFloat(expected.dtype, act, i);
      bool ok;
      double error;
      if (std::isnan(e) || std::isnan(g)) {
        ok = std::isnan(e) && std::isnan(g);
        error = INFINITY;
      } else if (std::isinf(e) || std::isinf(g)) {
        ok = e == g;
        error = INFINITY;
      } else {
        error = std::fabs(g - e);
        ok = error <= kAbsoluteTolerance + kRelativeTolerance * std::fabs(e);
      }
      if (ok)
        continue;
      ++mismatches;
      if (error > worstError) {
        worstError = error;
        worst = i;
      }
    }
    if (!mismatches)
      return "";
    double e = readFloat(expected.dtype, exp, worst);
    double g = readFloat(expected.dtype, act, worst);
    return std::to_string(mismatches) + " of " + std::to_string(count) +
           " elements differ; max abs error " +
           formatDouble(std::isfinite(worstError) ? worstError
                                                  : std::fabs(g - e)) +
           " at " + formatIndex(worst, expected.shape) + " (got " +
           formatDouble(g) + ", expected " + formatDouble(e) + ")";
  }
  // Integers and bools compare exactly (bools as zero / non-zero).
  size_t size = expected.bytes.size() / std::max<int64_t>(count, 1);
  int64_t first = -1;
  for (int64_t i = 0; i < count; ++i) {
    bool equal = expected.dtype == onnx::TensorProto::BOOL
                     ? (exp[i] != 0) == (act[i] != 0)
                     : std::memcmp(exp + i * size, act + i * size, size) == 0;
    if (equal)
      continue;
    if (first < 0)
      first = i;
    ++mismatches;
  }
  if (!mismatches)
    return "";
  return std::to_string(mismatches) + " of " + std::to_string(count) +
         " elements differ (exact comparison); first at " +
         formatIndex(first, expected.shape) + " (got " +
         formatInteger(expected.dtype, act, first) + ", expected " +
         formatInteger(expected.dtype, exp, first) + ")";
}

/// A string element for a message: quoted, cut short.
static std::string formatString(StringRef text) {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << '"';
  llvm::printEscapedString(text.take_front(40), os);
  if (text.size() > 40)
    os << "...";
  os << '"';
  return result;
}

/// Compares string tensors of the same shape, exactly.
static std::string compareStrings(const HostTensor &expected,
                                  const HostTensor &got) {
  int64_t mismatches = 0, first = -1;
  for (size_t i = 0; i < expected.strings.size(); ++i) {
    if (expected.strings[i] == got.strings[i])
      continue;
    if (first < 0)
      first = i;
    ++mismatches;
  }
  if (!mismatches)
    return "";
  return std::to_string(mismatches) + " of " +
         std::to_string(expected.strings.size()) +
         " elements differ (exact comparison); first at " +
         formatIndex(first, expected.shape) + " (got " +
         formatString(got.strings[first]) + ", expected " +
         formatString(expected.strings[first]) + ")";
}

static StringRef getKindName(HostValue::Kind kind) {
  switch (kind) {
  case HostValue::Kind::Tensor:
    return "a tensor";
  case HostValue::Kind::Sequence:
    return "a sequence";
  case HostValue::Kind::Optional:
    return "an optional";
  }
  llvm_unreachable("unknown value kind");
}

std::string conformance::compareValue(const HostValue &expected,
                                      const HostValue &got) {
  if (expected.kind != got.kind)
    return ("got " + getKindName(got.kind) + ", expected " +
            getKindName(expected.kind))
        .str();
  switch (expected.kind) {
  case HostValue::Kind::Tensor: {
    const HostTensor &e = expected.tensor, &g = got.tensor;
    if (e.dtype != g.dtype || e.shape != g.shape)
      return "got " + formatONNXType(g.dtype, g.shape) + ", expected " +
             formatONNXType(e.dtype, e.shape);
    if (e.dtype == onnx::TensorProto::STRING)
      return compareStrings(e, g);
    return compareValues(e, g.bytes);
  }
  case HostValue::Kind::Sequence:
    if (expected.elements.size() != got.elements.size())
      return "got a sequence of " + std::to_string(got.elements.size()) +
             " tensors, expected " + std::to_string(expected.elements.size());
    for (size_t i = 0; i < expected.elements.size(); ++i) {
      std::string difference =
          compareValue(expected.elements[i], got.elements[i]);
      if (!difference.empty())
        return "element " + std::to_string(i) + ": " + difference;
    }
    return "";
  case HostValue::Kind::Optional:
    if (expected.elements.empty() != got.elements.empty())
      return got.elements.empty() ? "got an empty optional, expected a value"
                                  : "got a value, expected an empty optional";
    if (expected.elements.empty())
      return "";
    return compareValue(expected.elements.front(), got.elements.front());
  }
  llvm_unreachable("unknown value kind");
}

//===----------------------------------------------------------------------===//
// Data sets
//===----------------------------------------------------------------------===//

std::vector<std::pair<int, std::string>>
conformance::listDataSets(llvm::StringRef dir) {
  std::vector<std::pair<int, std::string>> sets;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef name = llvm::sys::path::filename(it->path());
    int index;
    if (name.consume_front("test_data_set_") && !name.getAsInteger(10, index))
      sets.emplace_back(index, it->path());
  }
  llvm::sort(sets);
  return sets;
}
