//===- orchestra-onnx-conformance.cpp - ONNX backend test-suite runner ----===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Runs the ONNX backend test suite (the `model.onnx` + `test_data_set_*/`
// directories of Debian's libonnx-testdata) through the whole OrchestraOS
// path: import, compile for the host topology, build the artifact, load it
// with the runtime, run every data set and compare every output.
//
// Each test runs in a forked child, so that a crash or a hang is contained
// and classified. The child reports over a pipe in lines of the form
//
//   STAGE <import|compile|artifact|run|...>   (where a later crash happened)
//   OPS <op type>...                          (for the per-op report)
//   NOTE <text>                               (shown with -v)
//   RESULT <PASS|FAIL|UNSUPPORTED|CRASH|SKIPPED> <one-line reason>
//
// and its stdout/stderr go to a second pipe that -v shows for tests that do
// not pass. The parent never parses a model or a tensor itself; it only
// schedules children and writes the summary, the expectations and the
// Markdown report.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Artifact/ArtifactBuilder.h"
#include "orchestra/Compiler/Pipeline.h"
#include "orchestra/Frontend/ONNX/ONNXImporter.h"
#include "orchestra/InitAll.h"
#include "orchestra_rt/orchestra_rt.hpp"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <map>
#include <memory>
#include <optional>
#include <poll.h>
#include <set>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mlir;
using namespace mlir::orchestra;
namespace cl = llvm::cl;
using llvm::StringRef;

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

static cl::OptionCategory category("orchestra-onnx-conformance options");

static cl::opt<std::string> suiteOption(
    "suite",
    cl::desc("Suites to run: node, pytorch-converted, pytorch-operator, "
             "simple, real, or all (the first four); a comma-separated list "
             "picks several"),
    cl::value_desc("name"), cl::init("all"), cl::cat(category));
static cl::opt<std::string>
    filterOption("filter",
                 cl::desc("Run only the tests whose 'suite/test' name "
                          "matches REGEX (anywhere; anchor with ^ and $)"),
                 cl::value_desc("REGEX"), cl::cat(category));
static cl::opt<unsigned>
    jobsOption("jobs",
               cl::desc("Tests run at a time, each in its own process "
                        "(default: the number of cores)"),
               cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::alias jobsAlias("j", cl::desc("Alias for --jobs"),
                           cl::aliasopt(jobsOption), cl::cat(category));
static cl::opt<std::string> dataDirOption(
    "data-dir", cl::desc("Directory holding one subdirectory per suite"),
    cl::value_desc("DIR"), cl::init("/usr/share/libonnx-testdata/data"),
    cl::cat(category));
static cl::opt<std::string> expectOption(
    "expect",
    cl::desc("Tests expected to pass ('suite/test' per line, '#' comments); "
             "exit with status 1 when one of them does not pass"),
    cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string> updateOption(
    "update-expectations",
    cl::desc("Write the sorted list of passing tests to FILE (entries of "
             "tests outside this run's --suite/--filter are kept)"),
    cl::value_desc("FILE"), cl::cat(category));
static cl::opt<std::string>
    reportOption("report-md",
                 cl::desc("Write a Markdown report (per suite, per op of the "
                          "node suite, and every test that does not pass)"),
                 cl::value_desc("FILE"), cl::cat(category));
static cl::opt<unsigned>
    timeoutOption("timeout",
                  cl::desc("CPU seconds a test may use before it is killed "
                           "and counted as failed; a test whose CPU time "
                           "stops growing for as long is killed too "
                           "(default: 120; 0: no limit)"),
                  cl::value_desc("SECONDS"), cl::init(120), cl::cat(category));
static cl::opt<bool> verboseOption(
    "v",
    cl::desc("Show the time of each test, bound inputs, and the diagnostics "
             "and stderr of every test that does not pass"),
    cl::init(false), cl::cat(category));
// Testing hooks for the runner's own tests: make a child crash or hang.
static cl::opt<std::string>
    injectCrashOption("inject-crash",
                      cl::desc("(testing) tests matching REGEX raise SIGSEGV "
                               "when the compile starts"),
                      cl::value_desc("REGEX"), cl::Hidden, cl::cat(category));
static cl::opt<std::string> injectHangOption(
    "inject-hang",
    cl::desc("(testing) tests matching REGEX spin forever when "
             "the compile starts"),
    cl::value_desc("REGEX"), cl::Hidden, cl::cat(category));

static cl::opt<std::string>
    injectStallOption("inject-stall",
                      cl::desc("(testing) tests matching REGEX wait forever "
                               "when the compile starts"),
                      cl::value_desc("REGEX"), cl::Hidden, cl::cat(category));

/// The suites `--suite all` runs, in report order. `real` (whole models,
/// large) runs only when asked for.
static const char *const kDefaultSuites[] = {"node", "pytorch-converted",
                                             "pytorch-operator", "simple"};
static const char *const kKnownSuites[] = {
    "node", "pytorch-converted", "pytorch-operator", "simple", "real"};

/// The domain of the training ops; tests that import it are not counted.
static const char kTrainingDomain[] = "ai.onnx.preview.training";

/// Tolerances for floating-point outputs: |got - expected| <= atol +
/// rtol * |expected|, as numpy.testing.assert_allclose (and ONNX's backend
/// test runner) check them.
static constexpr double kRelativeTolerance = 1e-3;
static constexpr double kAbsoluteTolerance = 1e-7;
/// The same, as the report prints them.
static const char *const kToleranceText[] = {"1e-3", "1e-7"};

/// The one-line reasons are cut at this many characters.
static constexpr size_t kMaxReasonLength = 500;
/// The parent keeps at most this many bytes of a child's output (its end).
static constexpr size_t kMaxLogBytes = 64 * 1024;

//===----------------------------------------------------------------------===//
// Outcomes
//===----------------------------------------------------------------------===//

namespace {

enum class Outcome { Pass, Fail, Unsupported, Crash, Skipped };

/// One test: `<data-dir>/<suite>/<name>/`.
struct TestCase {
  std::string suite;
  std::string name;
  std::string dir;
  std::string getId() const { return suite + "/" + name; }
};

/// What the parent knows about a finished test.
struct TestResult {
  Outcome outcome = Outcome::Crash;
  std::string reason;
  /// Distinct op types of the top-level graph, sorted.
  std::vector<std::string> opTypes;
  /// The last stage the child announced.
  std::string stage = "start";
  std::vector<std::string> notes;
  /// The end of the child's stdout and stderr.
  std::string log;
  double seconds = 0;
};

} // namespace

static StringRef getOutcomeName(Outcome outcome) {
  switch (outcome) {
  case Outcome::Pass:
    return "PASS";
  case Outcome::Fail:
    return "FAIL";
  case Outcome::Unsupported:
    return "UNSUPPORTED";
  case Outcome::Crash:
    return "CRASH";
  case Outcome::Skipped:
    return "SKIPPED";
  }
  llvm_unreachable("unknown outcome");
}

static std::optional<Outcome> parseOutcome(StringRef name) {
  for (Outcome outcome : {Outcome::Pass, Outcome::Fail, Outcome::Unsupported,
                          Outcome::Crash, Outcome::Skipped})
    if (name == getOutcomeName(outcome))
      return outcome;
  return std::nullopt;
}

/// Makes `text` one line (newlines and tabs become spaces, runs of spaces
/// collapse) of at most kMaxReasonLength characters.
static std::string makeOneLine(StringRef text) {
  std::string line;
  for (char c : text.trim()) {
    if (c == '\n' || c == '\r' || c == '\t')
      c = ' ';
    if (c == ' ' && !line.empty() && line.back() == ' ')
      continue;
    line.push_back(c);
  }
  if (line.size() > kMaxReasonLength)
    line = line.substr(0, kMaxReasonLength - 3) + "...";
  return line;
}

//===----------------------------------------------------------------------===//
// Tensors (child side)
//===----------------------------------------------------------------------===//

namespace {

/// A tensor read from a TensorProto: little-endian bytes in the layout the
/// runtime uses (bool one byte per element, bf16/f16 as their bits).
struct HostTensor {
  int32_t dtype = 0; // an onnx::TensorProto::DataType
  std::vector<int64_t> shape;
  std::vector<char> bytes;

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

} // namespace

static StringRef getDTypeName(int32_t dtype) {
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

/// The runtime's element type for an ONNX one; none for types the importer
/// does not support.
static std::optional<orx_dtype_t> getOrxDType(int32_t dtype) {
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

/// The MLIR element type the importer gives an ONNX type: signless integers
/// (signedness is an attribute of the function), bool as i1.
static Type getMLIRElementType(MLIRContext *context, int32_t dtype) {
  Builder b(context);
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

/// "f32[2x3]", as orchestra-run prints types.
static std::string formatType(uint32_t dtype, llvm::ArrayRef<int64_t> shape) {
  const char *name = orx_dtype_name(dtype);
  std::string result = std::string(name ? name : "?") + "[";
  for (size_t i = 0; i < shape.size(); ++i)
    result += (i ? "x" : "") + std::to_string(shape[i]);
  return result + "]";
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

/// Reads a serialized onnx.TensorProto.
static std::optional<HostTensor> readTensorFile(StringRef path,
                                                TensorError &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file) {
    error.message = "cannot read: " + file.getError().message();
    return std::nullopt;
  }
  StringRef data = (*file)->getBuffer();
  onnx::TensorProto proto;
  if (data.size() > size_t(std::numeric_limits<int>::max()) ||
      !proto.ParseFromArray(data.data(), static_cast<int>(data.size()))) {
    error.message = "not a serialized onnx.TensorProto";
    return std::nullopt;
  }
  HostTensor tensor;
  tensor.dtype = proto.data_type();
  std::optional<orx_dtype_t> orxType = getOrxDType(tensor.dtype);
  if (!orxType) {
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
  size_t elementSize = orx_dtype_size(*orxType);
  int64_t count = 1;
  for (int64_t dim : proto.dims()) {
    if (dim < 0 || (dim != 0 && count > (int64_t(1) << 40) / dim)) {
      error.message = "malformed dimensions";
      return std::nullopt;
    }
    tensor.shape.push_back(dim);
    count *= dim;
  }
  if (proto.has_raw_data()) {
    tensor.bytes.assign(proto.raw_data().begin(), proto.raw_data().end());
  } else {
    // The typed fields of TensorProto (onnx.proto): float_data, double_data,
    // int64_data, uint64_data (uint32/uint64), and int32_data for every type
    // of 32 bits or less (bool, int8/16/32, uint8/16, float16/bfloat16 bits).
    switch (tensor.dtype) {
    case onnx::TensorProto::FLOAT:
      appendLowBytes(tensor.bytes, proto.float_data(), 4);
      break;
    case onnx::TensorProto::DOUBLE:
      appendLowBytes(tensor.bytes, proto.double_data(), 8);
      break;
    case onnx::TensorProto::INT64:
      appendLowBytes(tensor.bytes, proto.int64_data(), 8);
      break;
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64:
      appendLowBytes(tensor.bytes, proto.uint64_data(), elementSize);
      break;
    default:
      appendLowBytes(tensor.bytes, proto.int32_data(), elementSize);
      break;
    }
  }
  if (tensor.bytes.size() != size_t(count) * elementSize) {
    error.message = "has " + std::to_string(tensor.bytes.size()) +
                    " bytes of data; its shape and type need " +
                    std::to_string(size_t(count) * elementSize);
    return std::nullopt;
  }
  return tensor;
}

/// NumPy has no bfloat16, so the backend test data stores bfloat16 values
/// as uint16 tensors of their bits; such a tensor of a bfloat16 graph input
/// or output is read as bfloat16.
static void relabelBFloat16(HostTensor &tensor, const onnx::TypeProto &type) {
  if (tensor.dtype == onnx::TensorProto::UINT16 && type.has_tensor_type() &&
      type.tensor_type().elem_type() == onnx::TensorProto::BFLOAT16)
    tensor.dtype = onnx::TensorProto::BFLOAT16;
}

/// The type the importer gives a graph input, or null when it has none that
/// the runner can compute (not a tensor, dynamic dimensions, ...).
static RankedTensorType getDeclaredType(MLIRContext *context,
                                        const onnx::ValueInfoProto &info) {
  if (!info.type().has_tensor_type())
    return nullptr;
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  Type element = getMLIRElementType(context, tensor.elem_type());
  if (!element || !tensor.has_shape())
    return nullptr;
  SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim()) {
    if (!dim.has_dim_value() || dim.dim_value() < 0)
      return nullptr;
    shape.push_back(dim.dim_value());
  }
  return RankedTensorType::get(shape, element);
}

/// The tensor as a constant of `type` for ImportOptions::bindableInputs, or
/// null when it does not have that type.
static DenseElementsAttr getBindableValue(const HostTensor &tensor,
                                          RankedTensorType type) {
  Type element = getMLIRElementType(type.getContext(), tensor.dtype);
  if (element != type.getElementType() ||
      llvm::ArrayRef<int64_t>(tensor.shape) != type.getShape())
    return nullptr;
  if (element.isInteger(1)) {
    // i1 elements are bit-packed in a raw buffer; build them from bools.
    SmallVector<bool> values;
    values.reserve(tensor.bytes.size());
    for (char byte : tensor.bytes)
      values.push_back(byte != 0);
    return DenseElementsAttr::get(type, values);
  }
  llvm::ArrayRef<char> raw(tensor.bytes.data(), tensor.bytes.size());
  bool detectedSplat = false;
  if (!DenseElementsAttr::isValidRawBuffer(type, raw, detectedSplat))
    return nullptr;
  return DenseElementsAttr::getFromRawBuffer(type, raw);
}

//===----------------------------------------------------------------------===//
// Output comparison (child side)
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

/// Compares an output (same type and shape as `expected`, checked by the
/// caller) with the expected tensor. Returns an empty string when it
/// matches, else why not.
static std::string compareValues(const HostTensor &expected,
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

//===----------------------------------------------------------------------===//
// The child: one test
//===----------------------------------------------------------------------===//

namespace {

/// Everything a child needs besides its test.
struct ChildConfig {
  std::string pipeline;
  std::optional<llvm::Regex> injectCrash;
  std::optional<llvm::Regex> injectHang;
  std::optional<llvm::Regex> injectStall;
};

/// The child's end of the message pipe. Writes are unbuffered so that what
/// was sent survives a crash.
class Channel {
public:
  explicit Channel(int fd) : fd(fd) {}

  void send(StringRef kind, StringRef text) {
    std::string line = kind.str();
    if (!text.empty())
      line += " " + makeOneLine(text);
    line += "\n";
    const char *data = line.data();
    size_t left = line.size();
    while (left) {
      ssize_t written = ::write(fd, data, left);
      if (written < 0 && errno == EINTR)
        continue;
      if (written <= 0)
        return;
      data += written;
      left -= written;
    }
  }

  /// Reports the result and ends the child. Nothing is cleaned up: the
  /// process is about to disappear.
  [[noreturn]] void finish(Outcome outcome, StringRef reason) {
    send(("RESULT " + getOutcomeName(outcome)).str(), reason);
    llvm::errs().flush();
    ::_exit(0);
  }

private:
  int fd;
};

/// The fd of the message pipe, for the fatal-error handler.
int childChannelFd = -1;

/// A diagnostic the child saw.
struct CollectedDiagnostic {
  DiagnosticSeverity severity;
  std::string message;
  /// The name of the ONNX node the location names, if any.
  std::string node;
};

/// One test_data_set_* directory.
struct DataSet {
  std::string name;
  std::string dir;
  /// By graph input (non-initializer inputs, in graph order); none when the
  /// file is absent or the input is not a tensor the runner can hold.
  std::vector<std::optional<HostTensor>> inputs;
};

/// A compiled and loaded artifact.
struct Compiled {
  orx::ArtifactPtr artifact;
  orx::SessionPtr session;
  std::vector<std::string> boundInputs;
  /// The data set whose values the bound inputs took.
  size_t dataSet = 0;
};

} // namespace

/// The first NameLoc in `loc` (the importer names ops after their node).
static std::string getNodeName(Location loc) {
  std::string name;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return name;
}

/// The test_data_set_* directories of `dir`, in numeric order.
static std::vector<std::pair<int, std::string>> listDataSets(StringRef dir) {
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

/// Runs one test and reports through `channel`. Never returns.
[[noreturn]] static void runChild(const TestCase &test,
                                  const ChildConfig &config, Channel &channel) {
  channel.send("STAGE", "load");
  SmallString<256> modelPath(test.dir);
  llvm::sys::path::append(modelPath, "model.onnx");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> modelFile =
      llvm::MemoryBuffer::getFile(modelPath, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!modelFile)
    channel.finish(Outcome::Fail,
                   "cannot read model.onnx: " + modelFile.getError().message());
  StringRef modelBytes = (*modelFile)->getBuffer();
  onnx::ModelProto model;
  if (modelBytes.size() > size_t(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(modelBytes.data(),
                            static_cast<int>(modelBytes.size())))
    channel.finish(Outcome::Fail,
                   "model.onnx is not a valid ONNX model (the protobuf does "
                   "not parse)");

  std::set<std::string> opTypes;
  for (const onnx::NodeProto &node : model.graph().node())
    opTypes.insert(node.op_type());
  if (!opTypes.empty())
    channel.send("OPS", llvm::join(opTypes, " "));
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    if (opset.domain() == kTrainingDomain)
      channel.finish(Outcome::Skipped,
                     std::string("training (imports ") + kTrainingDomain + ")");

  // Graph inputs that take test data: those that are not initializers.
  std::set<std::string> initializers;
  for (const onnx::TensorProto &initializer : model.graph().initializer())
    initializers.insert(initializer.name());
  std::vector<const onnx::ValueInfoProto *> graphInputs;
  for (const onnx::ValueInfoProto &input : model.graph().input())
    if (!initializers.count(input.name()))
      graphInputs.push_back(&input);

  std::vector<DataSet> dataSets;
  for (auto &[index, dir] : listDataSets(test.dir)) {
    DataSet set;
    set.name = llvm::sys::path::filename(dir).str();
    set.dir = dir;
    for (size_t i = 0; i < graphInputs.size(); ++i) {
      SmallString<256> path(dir);
      llvm::sys::path::append(path, "input_" + std::to_string(i) + ".pb");
      std::optional<HostTensor> tensor;
      // Sequence and optional inputs are stored as other protos; the
      // importer reports those inputs as unsupported.
      if (llvm::sys::fs::exists(path) &&
          graphInputs[i]->type().has_tensor_type()) {
        TensorError error;
        tensor = readTensorFile(path, error);
        if (!tensor && !error.unsupportedType)
          channel.finish(Outcome::Fail, set.name + "/input_" +
                                            std::to_string(i) +
                                            ".pb: " + error.message);
        if (tensor)
          relabelBFloat16(*tensor, graphInputs[i]->type());
      }
      set.inputs.push_back(std::move(tensor));
    }
    dataSets.push_back(std::move(set));
  }
  if (dataSets.empty())
    channel.finish(Outcome::Fail, "no test_data_set_* directory");

  // One context for the test; the runner runs tests in parallel processes,
  // so MLIR's own threads would only compete with them.
  DialectRegistry registry;
  orchestra::registerAllDialectsAndExtensions(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.disableMultithreading();
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);

  // Every diagnostic is kept for the one-line reason and printed to the
  // child's stderr, which -v shows.
  std::vector<CollectedDiagnostic> diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    CollectedDiagnostic collected{diag.getSeverity(), diag.str(),
                                  getNodeName(diag.getLocation())};
    llvm::errs() << diag.getLocation() << ": " << collected.message << "\n";
    for (Diagnostic &note : diag.getNotes())
      llvm::errs() << "  note: " << note.str() << "\n";
    diagnostics.push_back(std::move(collected));
    return success();
  });

  // Ends the child with the outcome that the diagnostics of a failed stage
  // call for.
  auto finishFailedStage = [&](StringRef stage) {
    auto errors = llvm::make_filter_range(
        diagnostics, [](const CollectedDiagnostic &diag) {
          return diag.severity == DiagnosticSeverity::Error;
        });
    // The message, prefixed with the node it is about when it does not say.
    auto describe = [](const CollectedDiagnostic &diag) {
      if (diag.node.empty() || StringRef(diag.message).starts_with("node '"))
        return diag.message;
      return "node '" + diag.node + "': " + diag.message;
    };
    for (const CollectedDiagnostic &diag : errors)
      if (StringRef(diag.message).contains("internal error"))
        channel.finish(Outcome::Crash, describe(diag));
    for (const CollectedDiagnostic &diag : errors)
      if (StringRef(diag.message).contains("unsupported"))
        channel.finish(Outcome::Unsupported, describe(diag));
    for (const CollectedDiagnostic &diag : errors)
      channel.finish(Outcome::Fail,
                     (stage + " error: " + describe(diag)).str());
    channel.finish(Outcome::Fail,
                   (stage + " failed without a diagnostic").str());
  };

  // Imports with the graph inputs of `dataSet` offered as bindable,
  // compiles, builds the artifact and loads it.
  auto compile = [&](size_t dataSet) {
    onnx_import::ImportOptions options;
    for (size_t i = 0; i < graphInputs.size(); ++i) {
      const std::optional<HostTensor> &tensor = dataSets[dataSet].inputs[i];
      RankedTensorType type = getDeclaredType(&context, *graphInputs[i]);
      if (!tensor || !type)
        continue;
      // A value of another type than the input's would be an import error
      // even when the input is not needed as a constant; such data sets
      // fail at run time with a clearer message.
      if (DenseElementsAttr value = getBindableValue(*tensor, type))
        options.bindableInputs[graphInputs[i]->name()] = value;
    }
    diagnostics.clear();
    channel.send("STAGE", "import");
    FailureOr<onnx_import::ImportResult> imported =
        onnx_import::importModel(&context, modelBytes, modelPath, options);
    if (failed(imported))
      finishFailedStage("import");

    channel.send("STAGE", "compile");
    if (config.injectCrash && config.injectCrash->match(test.getId()))
      std::raise(SIGSEGV);
    if (config.injectHang && config.injectHang->match(test.getId()))
      for (volatile unsigned spin = 0;; spin = spin + 1)
        ;
    if (config.injectStall && config.injectStall->match(test.getId()))
      for (;;)
        ::pause();
    PassManager pm(&context, ModuleOp::getOperationName());
    std::string pipelineError;
    llvm::raw_string_ostream pipelineErrorStream(pipelineError);
    if (failed(parsePassPipeline(config.pipeline, pm, pipelineErrorStream)))
      channel.finish(Outcome::Crash,
                     "the compile pipeline does not parse: " + pipelineError);
    if (failed(pm.run(*imported->module)))
      finishFailedStage("compile");

    channel.send("STAGE", "artifact");
    FailureOr<orx::Artifact> artifact =
        buildArtifact(*imported->module, /*entry=*/"");
    if (failed(artifact))
      finishFailedStage("artifact");
    // Through the serialized form, as a file written by orchestra-compile
    // would be loaded.
    std::vector<uint8_t> bytes = orx::serializeArtifact(*artifact);
    Compiled compiled;
    compiled.dataSet = dataSet;
    compiled.boundInputs = imported->boundInputs;
    channel.send("STAGE", "load artifact");
    orx_artifact_t *rawArtifact = nullptr;
    if (orx::StatusPtr status{
            orx_artifact_load_memory(bytes.data(), bytes.size(), &rawArtifact)})
      channel.finish(Outcome::Fail, std::string("runtime error: the artifact "
                                                "does not load: ") +
                                        orx_status_message(status.get()));
    compiled.artifact.reset(rawArtifact);
    orx_session_t *rawSession = nullptr;
    if (orx::StatusPtr status{
            orx_session_create(compiled.artifact.get(), &rawSession)})
      channel.finish(Outcome::Fail,
                     std::string("runtime error: cannot create a session: ") +
                         orx_status_message(status.get()));
    compiled.session.reset(rawSession);
    if (!compiled.boundInputs.empty())
      channel.send("NOTE", "bound to constants: " +
                               llvm::join(compiled.boundInputs, ", ") +
                               " (values of " + dataSets[dataSet].name + ")");
    return compiled;
  };

  auto indexOfInput = [&](StringRef name) -> std::optional<size_t> {
    for (size_t i = 0; i < graphInputs.size(); ++i)
      if (graphInputs[i]->name() == name)
        return i;
    return std::nullopt;
  };

  // Whether data set `b` gives the bound inputs the values of `a`.
  auto sameBoundValues = [&](const Compiled &compiled, size_t b) {
    for (const std::string &name : compiled.boundInputs) {
      std::optional<size_t> i = indexOfInput(name);
      const std::optional<HostTensor> &x =
          dataSets[compiled.dataSet].inputs[*i];
      const std::optional<HostTensor> &y = dataSets[b].inputs[*i];
      if (!y || x->bytes != y->bytes || x->shape != y->shape)
        return false;
    }
    return true;
  };

  Compiled compiled = compile(0);
  for (size_t setIndex = 0; setIndex < dataSets.size(); ++setIndex) {
    const DataSet &set = dataSets[setIndex];
    // Bound inputs are constants of the artifact: a data set that gives
    // them other values needs its own compile.
    if (!sameBoundValues(compiled, setIndex))
      compiled = compile(setIndex);
    std::string where = dataSets.size() > 1 ? set.name + ": " : "";
    orx_artifact_t *artifact = compiled.artifact.get();

    // Inputs by name.
    std::vector<const void *> inputData;
    std::vector<size_t> inputSizes;
    for (size_t i = 0, e = orx_artifact_num_inputs(artifact); i < e; ++i) {
      orx_tensor_info_t info;
      if (orx::StatusPtr status{orx_artifact_input_info(artifact, i, &info)})
        channel.finish(Outcome::Fail, std::string("runtime error: ") +
                                          orx_status_message(status.get()));
      llvm::ArrayRef<int64_t> shape(info.dims, info.rank);
      std::optional<size_t> index = indexOfInput(info.name);
      if (!index)
        channel.finish(Outcome::Fail, std::string("the artifact's input '") +
                                          info.name + "' is not a graph input");
      const std::optional<HostTensor> &tensor = set.inputs[*index];
      if (!tensor)
        channel.finish(Outcome::Fail, where + "no test data for input " +
                                          std::to_string(*index) + " ('" +
                                          info.name + "')");
      std::optional<orx_dtype_t> dtype = getOrxDType(tensor->dtype);
      if (!dtype || uint32_t(*dtype) != info.dtype ||
          llvm::ArrayRef<int64_t>(tensor->shape) != shape)
        channel.finish(
            Outcome::Fail,
            where + "input " + std::to_string(*index) + " ('" + info.name +
                "'): the artifact takes " + formatType(info.dtype, shape) +
                ", the data is " + getDTypeName(tensor->dtype).str() + "[" +
                llvm::join(llvm::map_range(
                               tensor->shape,
                               [](int64_t d) { return std::to_string(d); }),
                           "x") +
                "]");
      inputData.push_back(tensor->bytes.data());
      inputSizes.push_back(tensor->bytes.size());
    }

    // Expected outputs, by index of the graph outputs.
    size_t numOutputs = orx_artifact_num_outputs(artifact);
    std::vector<HostTensor> expected;
    for (size_t i = 0;; ++i) {
      SmallString<256> path(set.dir);
      llvm::sys::path::append(path, "output_" + std::to_string(i) + ".pb");
      if (!llvm::sys::fs::exists(path))
        break;
      TensorError error;
      std::optional<HostTensor> tensor = readTensorFile(path, error);
      if (!tensor)
        channel.finish(
            error.unsupportedType ? Outcome::Unsupported : Outcome::Fail,
            set.name + "/output_" + std::to_string(i) + ".pb: " +
                (error.unsupportedType ? "unsupported: " : "") + error.message);
      if (int(i) < model.graph().output_size())
        relabelBFloat16(*tensor, model.graph().output(i).type());
      expected.push_back(std::move(*tensor));
    }
    if (expected.size() != numOutputs)
      channel.finish(Outcome::Fail, where + "the artifact has " +
                                        std::to_string(numOutputs) +
                                        " outputs, the test data " +
                                        std::to_string(expected.size()));

    std::vector<orx_tensor_info_t> outputInfos(numOutputs);
    std::vector<std::vector<char>> outputs(numOutputs);
    std::vector<void *> outputData;
    std::vector<size_t> outputSizes;
    for (size_t i = 0; i < numOutputs; ++i) {
      if (orx::StatusPtr status{
              orx_artifact_output_info(artifact, i, &outputInfos[i])})
        channel.finish(Outcome::Fail, std::string("runtime error: ") +
                                          orx_status_message(status.get()));
      outputs[i].resize(outputInfos[i].byte_size);
      outputData.push_back(outputs[i].data());
      outputSizes.push_back(outputs[i].size());
    }

    channel.send("STAGE", "run");
    if (orx::StatusPtr status{orx_session_run(
            compiled.session.get(), inputData.data(), inputSizes.data(),
            inputData.size(), outputData.data(), outputSizes.data(),
            outputData.size())})
      channel.finish(Outcome::Fail, where + "runtime error: " +
                                        orx_status_message(status.get()));

    channel.send("STAGE", "compare");
    std::vector<std::string> mismatches;
    for (size_t i = 0; i < numOutputs; ++i) {
      const orx_tensor_info_t &info = outputInfos[i];
      llvm::ArrayRef<int64_t> shape(info.dims, info.rank);
      std::string what =
          "output " + std::to_string(i) + " ('" + info.name + "'): ";
      std::optional<orx_dtype_t> dtype = getOrxDType(expected[i].dtype);
      if (!dtype || uint32_t(*dtype) != info.dtype ||
          llvm::ArrayRef<int64_t>(expected[i].shape) != shape) {
        mismatches.push_back(
            what + "got " + formatType(info.dtype, shape) + ", expected " +
            formatType(dtype ? uint32_t(*dtype) : ~0u, expected[i].shape));
        continue;
      }
      std::string difference = compareValues(expected[i], outputs[i]);
      if (!difference.empty())
        mismatches.push_back(what + difference);
    }
    if (!mismatches.empty()) {
      std::string reason = where + mismatches.front();
      if (mismatches.size() > 1)
        reason += " (and " + std::to_string(mismatches.size() - 1) +
                  " more output(s) differ)";
      for (const std::string &mismatch : mismatches)
        llvm::errs() << where << mismatch << "\n";
      channel.finish(Outcome::Fail, reason);
    }
  }
  channel.finish(Outcome::Pass, "");
}

/// LLVM's fatal errors (report_fatal_error) end the child as a crash with
/// their message.
static void reportFatalError(void *, const char *reason, bool) {
  if (childChannelFd >= 0) {
    Channel channel(childChannelFd);
    channel.send("RESULT CRASH", std::string("LLVM ERROR: ") + reason);
  }
  ::_exit(70);
}

/// The child's entry: sets up reporting and runs the test. Exceptions that
/// escape the importer (libonnx and protobuf report with exceptions) are
/// crashes.
[[noreturn]] static void childMain(const TestCase &test,
                                   const ChildConfig &config, int fd) {
  childChannelFd = fd;
  llvm::install_fatal_error_handler(reportFatalError, nullptr);
  Channel channel(fd);
  try {
    runChild(test, config, channel);
  } catch (const std::exception &error) {
    channel.finish(Outcome::Crash,
                   std::string("uncaught exception: ") + error.what());
  } catch (...) {
    channel.finish(Outcome::Crash, "uncaught exception");
  }
}

//===----------------------------------------------------------------------===//
// The parent: scheduling children
//===----------------------------------------------------------------------===//

namespace {

/// A running child.
struct Child {
  pid_t pid = -1;
  size_t test = 0;
  int messageFd = -1;
  int logFd = -1;
  std::string messageBuffer;
  std::chrono::steady_clock::time_point start;
  /// Why the child was killed for taking too long; empty if it was not.
  std::string timedOut;
  /// For the timeout: the child's CPU seconds at the last check, and the
  /// elapsed seconds at that check and when its CPU time last grew.
  double lastCPUSeconds = 0;
  double lastCheck = 0;
  double lastProgress = 0;
  bool gotResult = false;
  TestResult result;
};

} // namespace

/// Process groups of the running children, for the interrupt handler.
static std::unique_ptr<volatile sig_atomic_t[]> runningGroups;
static unsigned numRunningSlots = 0;

/// On Ctrl-C (called from LLVM's signal handler), takes the children, each
/// in its own process group, along and ends the run without a summary.
static void killRunningChildren() {
  for (unsigned i = 0; i < numRunningSlots; ++i)
    if (pid_t group = runningGroups[i])
      ::kill(-group, SIGKILL);
  ::_exit(130);
}

static std::string getSignalName(int signal) {
  switch (signal) {
  case SIGSEGV:
    return "SIGSEGV";
  case SIGABRT:
    return "SIGABRT";
  case SIGBUS:
    return "SIGBUS";
  case SIGFPE:
    return "SIGFPE";
  case SIGILL:
    return "SIGILL";
  case SIGKILL:
    return "SIGKILL";
  case SIGTERM:
    return "SIGTERM";
  case SIGTRAP:
    return "SIGTRAP";
  default:
    return "";
  }
}

/// The line of a crash log that says what went wrong: a failed assertion,
/// an LLVM fatal error, an unreachable.
static std::string findCrashMessage(StringRef log) {
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines)
    if (line.contains("Assertion") || line.contains("LLVM ERROR") ||
        line.contains("UNREACHABLE") || line.contains("terminate called"))
      return makeOneLine(line);
  return "";
}

/// Handles one complete line of a child's messages.
static void handleMessage(Child &child, StringRef line) {
  auto [kind, text] = line.split(' ');
  if (kind == "STAGE") {
    child.result.stage = text.str();
  } else if (kind == "OPS") {
    SmallVector<StringRef> ops;
    text.split(ops, ' ', -1, /*KeepEmpty=*/false);
    child.result.opTypes.assign(ops.begin(), ops.end());
  } else if (kind == "NOTE") {
    child.result.notes.push_back(text.str());
  } else if (kind == "RESULT" && !child.gotResult) {
    auto [name, reason] = text.split(' ');
    if (std::optional<Outcome> outcome = parseOutcome(name)) {
      child.gotResult = true;
      child.result.outcome = *outcome;
      child.result.reason = reason.str();
    }
  }
}

/// Reads what `fd` has; returns false at end of file (or error).
static bool readAvailable(int fd, std::string &buffer) {
  char chunk[8192];
  while (true) {
    ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n > 0) {
      buffer.append(chunk, n);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return true;
    return false;
  }
}

static void drainMessages(Child &child) {
  if (child.messageFd < 0)
    return;
  bool open = readAvailable(child.messageFd, child.messageBuffer);
  size_t newline;
  while ((newline = child.messageBuffer.find('\n')) != std::string::npos) {
    handleMessage(child, StringRef(child.messageBuffer).take_front(newline));
    child.messageBuffer.erase(0, newline + 1);
  }
  if (!open) {
    ::close(child.messageFd);
    child.messageFd = -1;
  }
}

static void drainLog(Child &child) {
  if (child.logFd < 0)
    return;
  bool open = readAvailable(child.logFd, child.result.log);
  if (child.result.log.size() > kMaxLogBytes)
    child.result.log.erase(0, child.result.log.size() - kMaxLogBytes);
  if (!open) {
    ::close(child.logFd);
    child.logFd = -1;
  }
}

/// The CPU time (user + system) process `pid` has used, in seconds; 0 when
/// /proc does not say.
static double getCPUSeconds(pid_t pid) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFileAsStream("/proc/" + std::to_string(pid) +
                                          "/stat");
  if (!file)
    return 0;
  // "pid (comm) state ppid ... utime stime ...": utime and stime are the
  // 14th and 15th fields; comm may contain spaces, so count after ')'.
  StringRef text = (*file)->getBuffer();
  size_t paren = text.rfind(')');
  if (paren == StringRef::npos)
    return 0;
  SmallVector<StringRef> fields;
  text.drop_front(paren + 1).split(fields, ' ', -1, /*KeepEmpty=*/false);
  uint64_t user = 0, system = 0;
  if (fields.size() < 13 || fields[11].getAsInteger(10, user) ||
      fields[12].getAsInteger(10, system))
    return 0;
  return double(user + system) / ::sysconf(_SC_CLK_TCK);
}

/// Classifies a child that has exited with wait status `status`.
static void finalizeChild(Child &child, int status) {
  drainMessages(child);
  drainLog(child);
  if (child.messageFd >= 0)
    ::close(child.messageFd);
  if (child.logFd >= 0)
    ::close(child.logFd);
  TestResult &result = child.result;
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - child.start)
                       .count();
  if (child.gotResult)
    return;
  if (!child.timedOut.empty()) {
    result.outcome = Outcome::Fail;
    result.reason = child.timedOut + " (during " + result.stage + ")";
    return;
  }
  result.outcome = Outcome::Crash;
  std::string detail = findCrashMessage(result.log);
  if (WIFSIGNALED(status)) {
    int signal = WTERMSIG(status);
    std::string name = getSignalName(signal);
    result.reason = "signal " + std::to_string(signal) +
                    (name.empty() ? "" : " (" + name + ")") + " during " +
                    result.stage;
    if (signal == SIGKILL)
      result.reason += " (killed from outside; out of memory?)";
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    result.reason = "exited with status " +
                    std::to_string(WEXITSTATUS(status)) + " during " +
                    result.stage;
  } else {
    result.reason = "exited without a result during " + result.stage;
  }
  if (!detail.empty())
    result.reason = makeOneLine(result.reason + ": " + detail);
}

/// Forks the child of `tests[index]`. Returns false (and fills `result`)
/// when no process could be started.
static bool spawnChild(const std::vector<TestCase> &tests, size_t index,
                       const ChildConfig &config, Child &child,
                       TestResult &result) {
  int messagePipe[2], logPipe[2];
  if (::pipe2(messagePipe, O_CLOEXEC) != 0) {
    result.outcome = Outcome::Crash;
    result.reason = std::string("cannot create a pipe: ") + strerror(errno);
    return false;
  }
  if (::pipe2(logPipe, O_CLOEXEC) != 0) {
    result.outcome = Outcome::Crash;
    result.reason = std::string("cannot create a pipe: ") + strerror(errno);
    ::close(messagePipe[0]);
    ::close(messagePipe[1]);
    return false;
  }
  // Buffered output would be written twice, once by each process.
  llvm::outs().flush();
  llvm::errs().flush();
  pid_t pid = ::fork();
  if (pid < 0) {
    result.outcome = Outcome::Crash;
    result.reason = std::string("cannot fork: ") + strerror(errno);
    for (int fd : {messagePipe[0], messagePipe[1], logPipe[0], logPipe[1]})
      ::close(fd);
    return false;
  }
  if (pid == 0) {
    // Child: its own process group (a timeout kills the tools it started
    // too), stdin from /dev/null, stdout and stderr into the log pipe.
    ::setpgid(0, 0);
    llvm::sys::SetInterruptFunction(nullptr);
    ::close(messagePipe[0]);
    ::close(logPipe[0]);
    int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0)
      ::dup2(null, STDIN_FILENO);
    ::dup2(logPipe[1], STDOUT_FILENO);
    ::dup2(logPipe[1], STDERR_FILENO);
    childMain(tests[index], config, messagePipe[1]);
  }
  ::setpgid(pid, pid);
  ::close(messagePipe[1]);
  ::close(logPipe[1]);
  ::fcntl(messagePipe[0], F_SETFL, O_NONBLOCK);
  ::fcntl(logPipe[0], F_SETFL, O_NONBLOCK);
  child.pid = pid;
  child.test = index;
  child.messageFd = messagePipe[0];
  child.logFd = logPipe[0];
  child.start = std::chrono::steady_clock::now();
  return true;
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

/// "PASS        node/test_add", "FAIL        node/test_x: reason".
static void printResultLine(llvm::raw_ostream &os, const TestCase &test,
                            const TestResult &result) {
  os << llvm::left_justify(getOutcomeName(result.outcome), 11) << " "
     << test.getId();
  if (!result.reason.empty())
    os << ": " << result.reason;
  os << "\n";
}

/// With -v: the time, the notes and, for tests that do not pass, the
/// child's diagnostics and stderr.
static void printDetails(llvm::raw_ostream &os, const TestResult &result) {
  os << "    time: " << llvm::format("%.2f", result.seconds) << " s\n";
  for (const std::string &note : result.notes)
    os << "    note: " << note << "\n";
  if (result.outcome == Outcome::Pass || result.outcome == Outcome::Skipped)
    return;
  SmallVector<StringRef> lines;
  StringRef(result.log).split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef line : lines)
    os << "    | " << line << "\n";
}

/// Live progress on a terminal: one line on stderr, rewritten in place.
class Progress {
public:
  Progress(size_t total)
      : total(total), enabled(llvm::sys::Process::StandardErrIsDisplayed()) {}

  /// Erases the progress line before a result line is printed.
  void clear() {
    if (enabled && shown)
      llvm::errs() << "\r\x1b[K";
    shown = false;
  }

  void update(size_t done, size_t running, size_t failed) {
    if (!enabled)
      return;
    llvm::errs() << "\r\x1b[K[" << done << "/" << total << "] " << running
                 << " running, " << failed << " not passing";
    llvm::errs().flush();
    shown = true;
  }

private:
  size_t total;
  bool enabled;
  bool shown = false;
};

namespace {
/// Per-suite (or per-op) counts.
struct Counts {
  unsigned pass = 0, fail = 0, unsupported = 0, crash = 0, skipped = 0;

  void add(Outcome outcome) {
    switch (outcome) {
    case Outcome::Pass:
      ++pass;
      break;
    case Outcome::Fail:
      ++fail;
      break;
    case Outcome::Unsupported:
      ++unsupported;
      break;
    case Outcome::Crash:
      ++crash;
      break;
    case Outcome::Skipped:
      ++skipped;
      break;
    }
  }
  /// The tests that count: all but the skipped training tests.
  unsigned counted() const { return pass + fail + unsupported + crash; }
};
} // namespace

static std::string formatPercent(unsigned part, unsigned whole) {
  if (!whole)
    return "-";
  std::string text;
  llvm::raw_string_ostream(text)
      << llvm::format("%.1f%%", 100.0 * part / whole);
  return text;
}

/// "12 (34.5%)", right-aligned in `width`.
static std::string formatCount(unsigned part, unsigned whole, unsigned width) {
  std::string text =
      std::to_string(part) + " (" + formatPercent(part, whole) + ")";
  if (text.size() < width)
    text.insert(0, width - text.size(), ' ');
  return text;
}

/// The suites that appear in `tests`, in report order.
static std::vector<std::string>
getSuitesInOrder(const std::vector<TestCase> &tests) {
  std::vector<std::string> suites;
  for (const char *suite : kKnownSuites)
    if (llvm::any_of(tests,
                     [&](const TestCase &t) { return t.suite == suite; }))
      suites.push_back(suite);
  return suites;
}

static void printSummary(llvm::raw_ostream &os,
                         const std::vector<TestCase> &tests,
                         const std::vector<TestResult> &results) {
  std::map<std::string, Counts> bySuite;
  Counts total;
  for (size_t i = 0; i < tests.size(); ++i) {
    bySuite[tests[i].suite].add(results[i].outcome);
    total.add(results[i].outcome);
  }
  os << "\nResults by suite (percentages of the tests that are not skipped "
        "training tests):\n";
  os << llvm::left_justify("suite", 18) << llvm::right_justify("tests", 6)
     << llvm::right_justify("pass", 15) << llvm::right_justify("fail", 15)
     << llvm::right_justify("unsupported", 15)
     << llvm::right_justify("crash", 15) << llvm::right_justify("training", 9)
     << "\n";
  auto printRow = [&](StringRef name, const Counts &c) {
    unsigned n = c.counted();
    os << llvm::left_justify(name, 18)
       << llvm::right_justify(std::to_string(n), 6)
       << formatCount(c.pass, n, 15) << formatCount(c.fail, n, 15)
       << formatCount(c.unsupported, n, 15) << formatCount(c.crash, n, 15)
       << llvm::right_justify(std::to_string(c.skipped), 9) << "\n";
  };
  for (const std::string &suite : getSuitesInOrder(tests))
    printRow(suite, bySuite[suite]);
  if (bySuite.size() > 1)
    printRow("total", total);
  os << "Pass rate (excluding training tests):";
  for (const std::string &suite : getSuitesInOrder(tests))
    os << " " << suite << " "
       << formatPercent(bySuite[suite].pass, bySuite[suite].counted()) << ";";
  os << " total " << formatPercent(total.pass, total.counted()) << "\n";
}

/// Markdown: characters that would start markup are escaped.
static std::string escapeMarkdown(StringRef text) {
  std::string result;
  for (char c : text) {
    if (StringRef("\\`*_[]<>|").contains(c))
      result.push_back('\\');
    result.push_back(c);
  }
  return result;
}

static bool writeReport(StringRef path, StringRef command,
                        const std::vector<TestCase> &tests,
                        const std::vector<TestResult> &results,
                        std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error = ec.message();
    return false;
  }
  os << "# ONNX backend test suite results\n\n"
     << "<!-- Generated by orchestra-onnx-conformance; do not edit. -->\n\n"
     << "Generated with `" << command << "` from the ONNX backend test "
     << "data in `" << dataDirOption << "`. Each test is imported, compiled "
     << "for the `host` topology and run; floating-point outputs must match "
     << "within rtol " << kToleranceText[0] << " and atol " << kToleranceText[1]
     << ", integers and bools exactly.\n\n";

  std::map<std::string, Counts> bySuite;
  Counts total;
  for (size_t i = 0; i < tests.size(); ++i) {
    bySuite[tests[i].suite].add(results[i].outcome);
    total.add(results[i].outcome);
  }
  os << "## By suite\n\n"
     << "| Suite | Tests | Pass | Fail | Unsupported | Crash | Pass rate |\n"
     << "|---|---:|---:|---:|---:|---:|---:|\n";
  auto row = [&](StringRef name, const Counts &c) {
    os << "| " << name << " | " << c.counted() << " | " << c.pass << " | "
       << c.fail << " | " << c.unsupported << " | " << c.crash << " | "
       << formatPercent(c.pass, c.counted()) << " |\n";
  };
  for (const std::string &suite : getSuitesInOrder(tests))
    row(suite, bySuite[suite]);
  if (bySuite.size() > 1)
    row("**total**", total);
  os << "\nTraining tests (models that import `" << kTrainingDomain
     << "`) are not counted: " << total.skipped << " skipped.\n";

  // Per op type of the node suite: a test counts under each distinct op
  // type of its top-level graph.
  std::map<std::string, Counts> byOp;
  for (size_t i = 0; i < tests.size(); ++i)
    if (tests[i].suite == "node" && results[i].outcome != Outcome::Skipped)
      for (const std::string &op : results[i].opTypes)
        byOp[op].add(results[i].outcome);
  if (!byOp.empty()) {
    os << "\n## Node tests by op type\n\n"
       << "A test counts under every op type of its graph; crashes count "
          "as failures.\n\n"
       << "| Op | Tests | Pass | Fail | Unsupported |\n"
       << "|---|---:|---:|---:|---:|\n";
    for (auto &[op, c] : byOp)
      os << "| " << escapeMarkdown(op) << " | " << c.counted() << " | "
         << c.pass << " | " << c.fail + c.crash << " | " << c.unsupported
         << " |\n";
  }

  std::vector<size_t> failing;
  for (size_t i = 0; i < tests.size(); ++i)
    if (results[i].outcome != Outcome::Pass &&
        results[i].outcome != Outcome::Skipped)
      failing.push_back(i);
  llvm::sort(failing, [&](size_t a, size_t b) {
    return tests[a].getId() < tests[b].getId();
  });
  os << "\n## Tests that do not pass\n\n";
  if (failing.empty())
    os << "None.\n";
  for (size_t i : failing)
    os << "- `" << tests[i].getId()
       << "`: " << getOutcomeName(results[i].outcome).lower() << " — "
       << escapeMarkdown(results[i].reason) << "\n";
  return true;
}

//===----------------------------------------------------------------------===//
// Expectations
//===----------------------------------------------------------------------===//

/// Reads `suite/test` lines; '#' starts a comment.
static bool readExpectations(StringRef path, std::set<std::string> &tests,
                             std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file) {
    error = file.getError().message();
    return false;
  }
  SmallVector<StringRef> lines;
  (*file)->getBuffer().split(lines, '\n');
  for (StringRef line : lines) {
    line = line.split('#').first.trim();
    if (!line.empty())
      tests.insert(line.str());
  }
  return true;
}

static bool writeExpectations(StringRef path, StringRef command,
                              const std::set<std::string> &tests,
                              std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error = ec.message();
    return false;
  }
  os << "# ONNX backend tests (suite/test) that pass with OrchestraOS.\n"
     << "# Generated by: " << command << "\n"
     << "# orchestra-onnx-conformance --expect fails when one of them stops "
        "passing;\n"
     << "# regenerate with --update-expectations after a converter lands.\n";
  for (const std::string &test : tests)
    os << test << "\n";
  return true;
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

/// The command line, for the report and the expectations header.
static std::string getCommandLine(int argc, char **argv) {
  std::string command = llvm::sys::path::filename(argv[0]).str();
  for (int i = 1; i < argc; ++i) {
    StringRef arg = argv[i];
    bool plain = !arg.empty() && llvm::all_of(arg, [](char c) {
      return llvm::isAlnum(c) || StringRef("-_=./,:+@%").contains(c);
    });
    command += " " + (plain ? arg.str() : "'" + arg.str() + "'");
  }
  return command;
}

static int usageError(const llvm::Twine &message) {
  llvm::errs() << "orchestra-onnx-conformance: error: " << message << "\n";
  return 2;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  orchestra::registerAllPasses();
  cl::HideUnrelatedOptions(category);
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "OrchestraOS version " << ORCHESTRA_VERSION << "\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "OrchestraOS ONNX backend test-suite runner\n\n"
      "Imports, compiles (topology 'host') and runs every test of the ONNX\n"
      "backend test data, each in its own process, and compares the outputs\n"
      "(floats: rtol 1e-3, atol 1e-7; integers and bools exactly). Prints\n"
      "PASS, FAIL, UNSUPPORTED (a diagnostic says 'unsupported'), CRASH (a\n"
      "signal or an internal error) or SKIPPED (training) per test, then\n"
      "per-suite counts and 'N passed, M failed'.\n\n"
      "Examples:\n"
      "  orchestra-onnx-conformance --suite node --filter 'test_(add|mul)'\n"
      "  orchestra-onnx-conformance --suite all --jobs 8 "
      "--report-md results.md\n"
      "  orchestra-onnx-conformance --expect expected-passes.txt\n"
      "  orchestra-onnx-conformance --update-expectations "
      "expected-passes.txt\n"
      "  orchestra-onnx-conformance --filter '^node/test_relu$' -v\n\n"
      "Exit status: 0; 1 when a test listed by --expect does not pass or a\n"
      "test crashes; 2 on a usage error.\n");
  std::string command = getCommandLine(argc, argv);

  // Suites.
  std::vector<std::string> suites;
  SmallVector<StringRef> suiteNames;
  StringRef(suiteOption).split(suiteNames, ',', -1, /*KeepEmpty=*/false);
  for (StringRef name : suiteNames) {
    name = name.trim();
    if (name == "all") {
      suites.insert(suites.end(), std::begin(kDefaultSuites),
                    std::end(kDefaultSuites));
    } else if (llvm::is_contained(kKnownSuites, name)) {
      suites.push_back(name.str());
    } else {
      return usageError("unknown suite '" + name +
                        "' (known: node, pytorch-converted, pytorch-operator, "
                        "simple, real, all)");
    }
  }
  std::sort(suites.begin(), suites.end());
  suites.erase(std::unique(suites.begin(), suites.end()), suites.end());
  if (suites.empty())
    return usageError("no suite given");
  bool explicitSuites = StringRef(suiteOption) != "all";

  std::optional<llvm::Regex> filter;
  auto compileRegex = [](StringRef text, std::optional<llvm::Regex> &regex,
                         StringRef option) {
    if (text.empty())
      return true;
    regex.emplace(text);
    std::string error;
    if (!regex->isValid(error)) {
      usageError("invalid --" + option + " regex '" + text + "': " + error);
      return false;
    }
    return true;
  };
  ChildConfig config;
  if (!compileRegex(filterOption, filter, "filter") ||
      !compileRegex(injectCrashOption, config.injectCrash, "inject-crash") ||
      !compileRegex(injectHangOption, config.injectHang, "inject-hang") ||
      !compileRegex(injectStallOption, config.injectStall, "inject-stall"))
    return 2;

  // The pipeline is built once here; every child parses it.
  CompileOptions compileOptions;
  compileOptions.topology = "host";
  std::string pipelineError;
  FailureOr<std::string> pipeline =
      buildCompilePipeline(compileOptions, pipelineError);
  if (failed(pipeline))
    return usageError(pipelineError);
  config.pipeline = *pipeline;

  std::set<std::string> expected;
  if (!expectOption.empty()) {
    std::string error;
    if (!readExpectations(expectOption, expected, error))
      return usageError("cannot read '" + expectOption + "': " + error);
  }

  // Tests: every directory of each selected suite.
  auto isSelected = [&](StringRef suite, StringRef id) {
    return llvm::is_contained(suites, suite) && (!filter || filter->match(id));
  };
  if (!llvm::sys::fs::is_directory(dataDirOption))
    return usageError("'" + dataDirOption + "' is not a directory");
  std::vector<TestCase> tests;
  unsigned withoutModel = 0;
  for (const std::string &suite : suites) {
    SmallString<256> suiteDir(dataDirOption);
    llvm::sys::path::append(suiteDir, suite);
    if (!llvm::sys::fs::is_directory(suiteDir)) {
      if (explicitSuites)
        return usageError("no suite '" + suite + "' in '" + dataDirOption +
                          "'");
      continue;
    }
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(suiteDir, ec), end;
         it != end && !ec; it.increment(ec)) {
      if (!llvm::sys::fs::is_directory(it->path()))
        continue;
      TestCase test{suite, llvm::sys::path::filename(it->path()).str(),
                    it->path()};
      if (!isSelected(suite, test.getId()))
        continue;
      // The `real` suite ships only download links (data.json).
      SmallString<256> model(it->path());
      llvm::sys::path::append(model, "model.onnx");
      if (!llvm::sys::fs::exists(model)) {
        ++withoutModel;
        continue;
      }
      tests.push_back(std::move(test));
    }
  }
  if (withoutModel)
    llvm::errs() << "orchestra-onnx-conformance: note: " << withoutModel
                 << " test directories without model.onnx were skipped\n";
  // Suites in report order, tests by name: the order of a --jobs 1 run.
  auto suiteRank = [](StringRef suite) {
    return llvm::find(kKnownSuites, suite) - std::begin(kKnownSuites);
  };
  llvm::sort(tests, [&](const TestCase &a, const TestCase &b) {
    return std::make_pair(suiteRank(a.suite), a.name) <
           std::make_pair(suiteRank(b.suite), b.name);
  });
  if (tests.empty())
    llvm::errs() << "orchestra-onnx-conformance: warning: no test selected\n";

  unsigned jobs = jobsOption
                      ? unsigned(jobsOption)
                      : std::max(1u, std::thread::hardware_concurrency());
  unsigned timeout = timeoutOption;
  numRunningSlots = jobs;
  runningGroups.reset(new volatile sig_atomic_t[jobs]());
  llvm::sys::SetInterruptFunction(killRunningChildren);

  // Run: at most `jobs` children; results are printed as they finish.
  auto startTime = std::chrono::steady_clock::now();
  std::vector<TestResult> results(tests.size());
  std::vector<std::optional<Child>> slots(jobs);
  Progress progress(tests.size());
  size_t next = 0, done = 0, notPassing = 0;
  llvm::raw_ostream &os = llvm::outs();
  auto report = [&](size_t index) {
    progress.clear();
    const TestResult &result = results[index];
    printResultLine(os, tests[index], result);
    if (verboseOption)
      printDetails(os, result);
    os.flush();
    ++done;
    if (result.outcome != Outcome::Pass && result.outcome != Outcome::Skipped)
      ++notPassing;
  };
  while (done < tests.size()) {
    for (unsigned slot = 0; slot < jobs && next < tests.size(); ++slot) {
      if (slots[slot])
        continue;
      Child child;
      size_t index = next++;
      if (!spawnChild(tests, index, config, child, results[index])) {
        report(index);
        continue;
      }
      runningGroups[slot] = child.pid;
      slots[slot] = std::move(child);
    }

    std::vector<pollfd> fds;
    for (std::optional<Child> &child : slots) {
      if (!child)
        continue;
      for (int fd : {child->messageFd, child->logFd})
        if (fd >= 0)
          fds.push_back({fd, POLLIN, 0});
    }
    // A short timeout also notices children that exited while a tool they
    // started still holds their stderr.
    ::poll(fds.data(), fds.size(), 50);

    size_t running = 0;
    for (unsigned slot = 0; slot < jobs; ++slot) {
      std::optional<Child> &child = slots[slot];
      if (!child)
        continue;
      drainMessages(*child);
      drainLog(*child);
      double elapsed = std::chrono::duration<double>(
                           std::chrono::steady_clock::now() - child->start)
                           .count();
      // The limit is on CPU time, so that a loaded machine does not turn
      // slow passes into timeouts. A child whose CPU time stops growing for
      // as long (a deadlock, a wait on something that never comes) is
      // killed too. Checked once a second.
      if (timeout && child->timedOut.empty() && !child->gotResult &&
          elapsed >= child->lastCheck + 1) {
        child->lastCheck = elapsed;
        double cpu = getCPUSeconds(child->pid);
        if (cpu > child->lastCPUSeconds) {
          child->lastCPUSeconds = cpu;
          child->lastProgress = elapsed;
        }
        if (cpu > timeout)
          child->timedOut = "timeout: more than " + std::to_string(timeout) +
                            " s of CPU time";
        else if (elapsed > child->lastProgress + timeout)
          child->timedOut = "timeout: no progress (CPU time) for " +
                            std::to_string(timeout) + " s";
        if (!child->timedOut.empty()) {
          ::kill(-child->pid, SIGKILL);
          ::kill(child->pid, SIGKILL);
        }
      }
      int status = 0;
      pid_t waited = ::waitpid(child->pid, &status, WNOHANG);
      if (waited == 0) {
        ++running;
        continue;
      }
      if (waited < 0)
        status = 0;
      // Tools the child started die with it.
      ::kill(-child->pid, SIGKILL);
      finalizeChild(*child, status);
      results[child->test] = std::move(child->result);
      runningGroups[slot] = 0;
      size_t index = child->test;
      child.reset();
      report(index);
    }
    progress.update(done, running, notPassing);
  }
  progress.clear();
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - startTime)
                       .count();

  // The summary does not depend on the order in which tests finished.
  printSummary(os, tests, results);
  os << "Time: " << llvm::format("%.1f", seconds) << " s with " << jobs
     << " job(s)\n";

  int exitCode = 0;
  std::vector<size_t> crashes;
  for (size_t i = 0; i < tests.size(); ++i)
    if (results[i].outcome == Outcome::Crash)
      crashes.push_back(i);
  if (!crashes.empty()) {
    os << "\nCrashes (" << crashes.size() << "):\n";
    for (size_t i : crashes) {
      os << "  ";
      printResultLine(os, tests[i], results[i]);
    }
    exitCode = 1;
  }

  llvm::StringMap<size_t> indexById;
  for (size_t i = 0; i < tests.size(); ++i)
    indexById[tests[i].getId()] = i;
  if (!expectOption.empty()) {
    // Regressions: expected passes of this run's selection that did not
    // pass or were not found.
    std::vector<std::string> regressions;
    for (const std::string &id : expected) {
      StringRef suite = StringRef(id).split('/').first;
      if (!isSelected(suite, id))
        continue;
      auto it = indexById.find(id);
      if (it == indexById.end()) {
        regressions.push_back("MISSING     " + id +
                              ": no such test in the data directory");
        continue;
      }
      const TestResult &result = results[it->second];
      if (result.outcome == Outcome::Pass)
        continue;
      std::string line;
      llvm::raw_string_ostream lineStream(line);
      printResultLine(lineStream, tests[it->second], result);
      regressions.push_back(StringRef(line).rtrim().str());
    }
    if (!regressions.empty()) {
      os << "\nExpected to pass (" << expectOption << ") but did not ("
         << regressions.size() << "):\n";
      for (const std::string &line : regressions)
        os << "  " << line << "\n";
      exitCode = 1;
    }
    unsigned newPasses = 0;
    for (size_t i = 0; i < tests.size(); ++i)
      if (results[i].outcome == Outcome::Pass &&
          !expected.count(tests[i].getId()))
        ++newPasses;
    if (newPasses)
      os << "\n"
         << newPasses << " tests pass that are not in " << expectOption
         << "; run with --update-expectations " << expectOption
         << " to add them\n";
  }

  if (!updateOption.empty()) {
    // Entries outside this run's selection stay; the selection's entries
    // are replaced by its passes.
    std::set<std::string> passing;
    if (llvm::sys::fs::exists(updateOption)) {
      std::string error;
      if (!readExpectations(updateOption, passing, error))
        return usageError("cannot read '" + updateOption + "': " + error);
      for (auto it = passing.begin(); it != passing.end();) {
        StringRef suite = StringRef(*it).split('/').first;
        it = isSelected(suite, *it) ? passing.erase(it) : std::next(it);
      }
    }
    for (size_t i = 0; i < tests.size(); ++i)
      if (results[i].outcome == Outcome::Pass)
        passing.insert(tests[i].getId());
    std::string error;
    if (!writeExpectations(updateOption, command, passing, error))
      return usageError("cannot write '" + updateOption + "': " + error);
    os << "\nWrote " << passing.size() << " expected passes to " << updateOption
       << "\n";
  }

  if (!reportOption.empty()) {
    std::string error;
    if (!writeReport(reportOption, command, tests, results, error))
      return usageError("cannot write '" + reportOption + "': " + error);
  }

  unsigned passed = 0, failed = 0;
  for (const TestResult &result : results) {
    if (result.outcome == Outcome::Pass)
      ++passed;
    else if (result.outcome != Outcome::Skipped)
      ++failed;
  }
  os << "\n" << passed << " passed, " << failed << " failed\n";
  os.flush();
  return exitCode;
}
