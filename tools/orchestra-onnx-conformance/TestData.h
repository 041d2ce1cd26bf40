//===- TestData.h - Tensors of the ONNX backend test data -------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Reading the serialized protos of the ONNX backend test data (input_<i>.pb,
// output_<i>.pb) and comparing outputs with them. OrchestraOS's outputs (in
// the test's child process) and those of a peer runtime (in the parent) go
// through the same comparison, so that their pass rates mean the same thing.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_ONNX_CONFORMANCE_TESTDATA_H
#define ORCHESTRA_ONNX_CONFORMANCE_TESTDATA_H

#include "orchestra_rt/orchestra_rt.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include "onnx/onnx_pb.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::orchestra::conformance {

/// Tolerances for floating-point outputs: |got - expected| <= atol +
/// rtol * |expected|, as numpy.testing.assert_allclose (and ONNX's backend
/// test runner) check them.
inline constexpr double kRelativeTolerance = 1e-3;
inline constexpr double kAbsoluteTolerance = 1e-7;
/// The same, as the report prints them.
inline constexpr const char *kToleranceText[] = {"1e-3", "1e-7"};

/// A tensor read from a TensorProto: little-endian bytes in the layout the
/// runtime uses (bool one byte per element, bf16/f16 as their bits). String
/// tensors, which only a peer runtime produces, hold `strings` instead.
struct HostTensor {
  int32_t dtype = 0; // an onnx::TensorProto::DataType
  std::vector<int64_t> shape;
  std::vector<char> bytes;
  std::vector<std::string> strings;

  int64_t getNumElements() const {
    int64_t count = 1;
    for (int64_t dim : shape)
      count *= dim;
    return count;
  }
};

/// Why a tensor could not be read.
struct TensorError {
  std::string message;
  /// The tensor is well-formed but of an element type the runner cannot
  /// hold (string, complex, float8...).
  bool unsupportedType = false;
};

/// An output as the test data stores it: a tensor (TensorProto), a sequence
/// of tensors (SequenceProto) or an optional (OptionalProto).
struct HostValue {
  enum class Kind { Tensor, Sequence, Optional };
  Kind kind = Kind::Tensor;
  /// Kind::Tensor.
  HostTensor tensor;
  /// Kind::Sequence: the elements; Kind::Optional: none (empty) or one.
  std::vector<HostValue> elements;
};

/// ONNX's name of an element type: "float", "int64", "bfloat16", ...
llvm::StringRef getDTypeName(int32_t dtype);

/// The runtime's element type for an ONNX one; none for types the importer
/// does not support.
std::optional<orx_dtype_t> getOrxDType(int32_t dtype);

/// "f32[2x3]", as orchestra-run prints types.
std::string formatType(uint32_t orxDType, llvm::ArrayRef<int64_t> shape);

/// The same for an ONNX element type; types the runtime does not have
/// ("string") keep ONNX's name.
std::string formatONNXType(int32_t dtype, llvm::ArrayRef<int64_t> shape);

/// Reads a serialized onnx.TensorProto. String tensors are read only when
/// `allowStrings` is set; otherwise they are an unsupported type.
std::optional<HostTensor> readTensorFile(llvm::StringRef path,
                                         TensorError &error,
                                         bool allowStrings = false);

/// NumPy has no bfloat16, so the backend test data stores bfloat16 values
/// as uint16 tensors of their bits; such a tensor of a bfloat16 graph input
/// or output is read as bfloat16.
void relabelBFloat16(HostTensor &tensor, const onnx::TypeProto &type);

/// Reads the file of a graph output of type `type` (a TensorProto,
/// SequenceProto or OptionalProto), strings included.
std::optional<HostValue> readValueFile(llvm::StringRef path,
                                       const onnx::TypeProto &type,
                                       TensorError &error);

/// Compares an output (same type and shape as `expected`, checked by the
/// caller) with the expected tensor. Returns an empty string when it
/// matches, else why not.
std::string compareValues(const HostTensor &expected,
                          const std::vector<char> &got);

/// Compares any output with the expected value, types and shapes included.
/// Returns an empty string when it matches, else why not.
std::string compareValue(const HostValue &expected, const HostValue &got);

/// The test_data_set_* directories of `dir` as (index, path), in numeric
/// order.
std::vector<std::pair<int, std::string>> listDataSets(llvm::StringRef dir);

} // namespace mlir::orchestra::conformance

#endif // ORCHESTRA_ONNX_CONFORMANCE_TESTDATA_H
