//===- Artifact.cpp - The OrchestraOS artifact format ---------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra_rt/Artifact.h"

#include "ByteIO.h"
#include "orchestra/Support/AtomicFile.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace orx;

static constexpr char kMagic[8] = {'O', 'R', 'C', 'X', 'A', 'R', 'T', '\0'};

bool orx::isValidDType(uint32_t value) {
  return value <= static_cast<uint32_t>(DType::U64);
}

size_t orx::dtypeSize(DType dtype) {
  switch (dtype) {
  case DType::F64:
  case DType::I64:
  case DType::U64:
    return 8;
  case DType::F32:
  case DType::I32:
  case DType::U32:
    return 4;
  case DType::F16:
  case DType::BF16:
  case DType::I16:
  case DType::U16:
    return 2;
  case DType::I1:
  case DType::I8:
  case DType::U8:
    return 1;
  }
  return 0;
}

const char *orx::dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::F64:
    return "f64";
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::I1:
    return "i1";
  case DType::I8:
    return "i8";
  case DType::I16:
    return "i16";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  case DType::U8:
    return "u8";
  case DType::U16:
    return "u16";
  case DType::U32:
    return "u32";
  case DType::U64:
    return "u64";
  }
  return "unknown";
}

bool orx::evaluateSize(const SizeExpr &expr, const std::vector<int64_t> &dims,
                       int64_t &out, std::string &error) {
  std::vector<int64_t> stack;
  const std::vector<int64_t> &code = expr.code;
  for (size_t pc = 0; pc < code.size(); ++pc) {
    auto op = static_cast<SizeOp>(code[pc]);
    if (op == SizeOp::Const || op == SizeOp::Dim) {
      if (++pc == code.size()) {
        error = "size program ends inside an operation";
        return false;
      }
      int64_t immediate = code[pc];
      if (op == SizeOp::Dim &&
          (immediate < 0 || static_cast<size_t>(immediate) >= dims.size())) {
        error = "size program reads dim " + std::to_string(immediate) + " of " +
                std::to_string(dims.size());
        return false;
      }
      stack.push_back(op == SizeOp::Const ? immediate : dims[immediate]);
      continue;
    }
    if (stack.size() < 2 || code[pc] < static_cast<int64_t>(SizeOp::Add) ||
        code[pc] > static_cast<int64_t>(SizeOp::Mod)) {
      error = "malformed size program";
      return false;
    }
    int64_t b = stack.back();
    stack.pop_back();
    int64_t a = stack.back();
    int64_t result = 0;
    bool overflow = false;
    switch (op) {
    case SizeOp::Add:
      overflow = __builtin_add_overflow(a, b, &result);
      break;
    case SizeOp::Mul:
      overflow = __builtin_mul_overflow(a, b, &result);
      break;
    default:
      if (b <= 0) {
        error = "size program divides by " + std::to_string(b);
        return false;
      }
      int64_t quotient = a / b - ((a % b != 0 && a < 0) ? 1 : 0);
      if (op == SizeOp::FloorDiv)
        result = quotient;
      else if (op == SizeOp::CeilDiv)
        result = quotient + (a % b != 0 ? 1 : 0);
      else
        result = a - quotient * b;
      break;
    }
    if (overflow) {
      error = "size program overflows";
      return false;
    }
    stack.back() = result;
  }
  if (stack.size() != 1 || stack.back() < 0) {
    error = stack.size() != 1 ? "malformed size program"
                              : "negative size " + std::to_string(stack.back());
    return false;
  }
  out = stack.back();
  return true;
}

size_t TensorDesc::numElements() const {
  size_t count = 1;
  for (int64_t dim : shape)
    count *= static_cast<size_t>(dim);
  return count;
}

size_t TensorDesc::byteSize() const { return numElements() * dtypeSize(dtype); }

std::string orx::getSelectBranchName(size_t index) {
  return "orx_select_" + std::to_string(index);
}

std::vector<std::pair<std::string, std::vector<std::string>>>
orx::getBranchTables(const Artifact &artifact) {
  std::vector<std::pair<std::string, std::vector<std::string>>> tables;
  for (const KernelDesc &kernel : artifact.kernels)
    if (!kernel.branches.empty())
      tables.emplace_back(kernel.symbol, kernel.branches);
  for (size_t i = 0; i < artifact.steps.size(); ++i)
    if (!artifact.steps[i].branchLocation.empty())
      tables.push_back(
          {getSelectBranchName(i), {artifact.steps[i].branchLocation}});
  return tables;
}

uint64_t orx::fnv1a64(const uint8_t *data, size_t size) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) {
    hash ^= data[i];
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static void writeTensor(ByteWriter &w, const TensorDesc &desc) {
  w.str(desc.name);
  w.u32(static_cast<uint32_t>(desc.dtype));
  w.count(desc.shape.size());
  for (int64_t dim : desc.shape)
    w.i64(dim);
}

static void writeSizes(ByteWriter &w, const std::vector<SizeExpr> &sizes) {
  w.count(sizes.size());
  for (const SizeExpr &size : sizes) {
    w.count(size.code.size());
    for (int64_t element : size.code)
      w.i64(element);
  }
}

static std::vector<uint8_t> serializePayload(const Artifact &artifact) {
  ByteWriter w;
  w.str(artifact.producer);
  w.str(artifact.topologyName);
  w.count(artifact.devices.size());
  for (const DeviceDesc &device : artifact.devices) {
    w.str(device.name);
    w.str(device.arch);
    w.str(device.driver);
    w.u32(device.deviceId);
    w.u32(device.numThreads);
  }
  w.count(artifact.memorySpaces.size());
  for (const MemorySpaceDesc &space : artifact.memorySpaces) {
    w.str(space.name);
    w.u32(space.device);
    w.u64(space.arenaBytes);
  }
  w.str(artifact.entryName);
  w.count(artifact.inputs.size());
  for (const TensorDesc &input : artifact.inputs)
    writeTensor(w, input);
  w.u32s(artifact.inputValues);
  w.count(artifact.outputs.size());
  for (const TensorDesc &output : artifact.outputs)
    writeTensor(w, output);
  w.u32s(artifact.outputValues);
  w.count(artifact.values.size());
  for (const ValueDesc &value : artifact.values) {
    w.u32(value.space);
    w.u64(value.offset);
    w.u64(value.bytes);
  }
  w.count(artifact.constants.size());
  for (const ConstantDesc &constant : artifact.constants) {
    w.u32(constant.value);
    w.blob(constant.data);
  }
  w.count(artifact.binaries.size());
  for (const BinaryDesc &binary : artifact.binaries) {
    w.str(binary.arch);
    w.str(binary.format);
    w.blob(binary.data);
    w.count(binary.requiredFeatures.size());
    for (const std::string &feature : binary.requiredFeatures)
      w.str(feature);
  }
  w.count(artifact.kernels.size());
  for (const KernelDesc &kernel : artifact.kernels) {
    w.str(kernel.symbol);
    w.u32(kernel.binary);
  }
  w.count(artifact.steps.size());
  for (const StepDesc &step : artifact.steps) {
    w.u32(static_cast<uint32_t>(step.kind));
    w.u32(step.device);
    w.str(step.name);
    w.u32(step.kernel);
    w.u32s(step.args);
    w.u32(step.numInputs);
    w.u32s(step.deps);
    w.f64(step.predictedStart);
    w.f64(step.predictedFinish);
  }
  // 3.0: dynamic dims.
  w.count(artifact.dims.size());
  for (const DimDesc &dim : artifact.dims) {
    w.str(dim.name);
    w.i64(dim.min);
    w.i64(dim.max);
  }
  for (const TensorDesc &input : artifact.inputs)
    writeSizes(w, input.dynamicSizes);
  for (const TensorDesc &output : artifact.outputs)
    writeSizes(w, output.dynamicSizes);
  for (const StepDesc &step : artifact.steps)
    writeSizes(w, step.sizes);
  // 3.2: branch tables.
  for (const KernelDesc &kernel : artifact.kernels) {
    w.count(kernel.branches.size());
    for (const std::string &location : kernel.branches)
      w.str(location);
  }
  for (const StepDesc &step : artifact.steps)
    w.str(step.branchLocation);
  return std::move(w.bytes);
}

std::vector<uint8_t> orx::serializeArtifact(const Artifact &artifact) {
  std::vector<uint8_t> payload = serializePayload(artifact);
  ByteWriter header;
  header.bytes.assign(kMagic, kMagic + sizeof(kMagic));
  header.u32(kArtifactVersionMajor);
  header.u32(kArtifactVersionMinor);
  header.u64(payload.size());
  header.u64(fnv1a64(payload.data(), payload.size()));
  header.u64(0);
  std::vector<uint8_t> result = std::move(header.bytes);
  result.insert(result.end(), payload.begin(), payload.end());
  return result;
}

bool orx::writeArtifactFile(const std::string &path, const Artifact &artifact,
                            std::string &error) {
  std::vector<uint8_t> bytes = serializeArtifact(artifact);
  return orchestra::writeFileAtomically(path, bytes.data(), bytes.size(),
                                        error);
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

static std::string indexed(const char *field, size_t i) {
  return std::string(field) + "[" + std::to_string(i) + "]";
}

// Smallest encodings, used to bound counts before reserving.
static constexpr size_t kMinDevice = 4 + 4 + 4 + 4 + 4;
static constexpr size_t kMinSpace = 4 + 4 + 8;
static constexpr size_t kMinTensor = 4 + 4 + 4;
static constexpr size_t kMinValue = 4 + 8 + 8;
static constexpr size_t kMinConstant = 4 + 8;
static constexpr size_t kMinBinary = 4 + 4 + 8 + 4;
static constexpr size_t kMinKernel = 4 + 4;
static constexpr size_t kMinStep = 4 + 4 + 4 + 4 + 4 + 4 + 4 + 8 + 8;

static bool readTensor(ByteReader &r, TensorDesc &desc,
                       const std::string &what) {
  uint32_t dtype, rank;
  if (!r.str(desc.name, what + ".name") || !r.u32(dtype, what + ".dtype"))
    return false;
  if (!isValidDType(dtype))
    return r.fail(what + ".dtype: unknown element type " +
                  std::to_string(dtype));
  desc.dtype = static_cast<DType>(dtype);
  if (!r.count(rank, 8, what + ".shape"))
    return false;
  desc.shape.resize(rank);
  for (uint32_t i = 0; i < rank; ++i)
    if (!r.i64(desc.shape[i], what + ".shape"))
      return false;
  return true;
}

static bool readTensors(ByteReader &r, std::vector<TensorDesc> &tensors,
                        const char *field) {
  uint32_t n;
  if (!r.count(n, kMinTensor, field))
    return false;
  tensors.resize(n);
  for (uint32_t i = 0; i < n; ++i)
    if (!readTensor(r, tensors[i], indexed(field, i)))
      return false;
  return true;
}

static bool readSizes(ByteReader &r, std::vector<SizeExpr> &sizes,
                      const std::string &what) {
  uint32_t n;
  if (!r.count(n, 4, what))
    return false;
  sizes.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t length;
    if (!r.count(length, 8, what))
      return false;
    sizes[i].code.resize(length);
    for (uint32_t j = 0; j < length; ++j)
      if (!r.i64(sizes[i].code[j], what))
        return false;
  }
  return true;
}

/// The dynamic dims (3.0).
static bool readDims(ByteReader &r, Artifact &a) {
  uint32_t n;
  if (!r.count(n, 4 + 8 + 8, "dims"))
    return false;
  a.dims.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    std::string what = indexed("dims", i);
    if (!r.str(a.dims[i].name, what + ".name") ||
        !r.i64(a.dims[i].min, what + ".min") ||
        !r.i64(a.dims[i].max, what + ".max"))
      return false;
  }
  for (size_t i = 0; i < a.inputs.size(); ++i)
    if (!readSizes(r, a.inputs[i].dynamicSizes,
                   indexed("inputs", i) + ".dynamicSizes"))
      return false;
  for (size_t i = 0; i < a.outputs.size(); ++i)
    if (!readSizes(r, a.outputs[i].dynamicSizes,
                   indexed("outputs", i) + ".dynamicSizes"))
      return false;
  for (size_t i = 0; i < a.steps.size(); ++i)
    if (!readSizes(r, a.steps[i].sizes, indexed("steps", i) + ".sizes"))
      return false;
  return true;
}

static bool readPayload(ByteReader &r, Artifact &a) {
  uint32_t n;
  if (!r.str(a.producer, "producer") ||
      !r.str(a.topologyName, "topology name") ||
      !r.count(n, kMinDevice, "devices"))
    return false;
  a.devices.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    DeviceDesc &d = a.devices[i];
    std::string what = indexed("devices", i);
    if (!r.str(d.name, what + ".name") || !r.str(d.arch, what + ".arch") ||
        !r.str(d.driver, what + ".driver") ||
        !r.u32(d.deviceId, what + ".deviceId") ||
        !r.u32(d.numThreads, what + ".numThreads"))
      return false;
  }
  if (!r.count(n, kMinSpace, "memory spaces"))
    return false;
  a.memorySpaces.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    MemorySpaceDesc &s = a.memorySpaces[i];
    std::string what = indexed("memorySpaces", i);
    if (!r.str(s.name, what + ".name") || !r.u32(s.device, what + ".device") ||
        !r.u64(s.arenaBytes, what + ".arenaBytes"))
      return false;
  }
  if (!r.str(a.entryName, "entry name") ||
      !readTensors(r, a.inputs, "inputs") ||
      !r.u32s(a.inputValues, "inputValues") ||
      !readTensors(r, a.outputs, "outputs") ||
      !r.u32s(a.outputValues, "outputValues") ||
      !r.count(n, kMinValue, "values"))
    return false;
  a.values.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    ValueDesc &v = a.values[i];
    std::string what = indexed("values", i);
    if (!r.u32(v.space, what + ".space") ||
        !r.u64(v.offset, what + ".offset") || !r.u64(v.bytes, what + ".bytes"))
      return false;
  }
  if (!r.count(n, kMinConstant, "constants"))
    return false;
  a.constants.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    std::string what = indexed("constants", i);
    if (!r.u32(a.constants[i].value, what + ".value") ||
        !r.blob(a.constants[i].data, what + ".data"))
      return false;
  }
  if (!r.count(n, kMinBinary, "binaries"))
    return false;
  a.binaries.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    BinaryDesc &b = a.binaries[i];
    std::string what = indexed("binaries", i);
    uint32_t numFeatures;
    if (!r.str(b.arch, what + ".arch") || !r.str(b.format, what + ".format") ||
        !r.blob(b.data, what + ".data") ||
        !r.count(numFeatures, 4, what + ".requiredFeatures"))
      return false;
    b.requiredFeatures.resize(numFeatures);
    for (uint32_t f = 0; f < numFeatures; ++f)
      if (!r.str(b.requiredFeatures[f], what + ".requiredFeatures"))
        return false;
  }
  if (!r.count(n, kMinKernel, "kernels"))
    return false;
  a.kernels.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    std::string what = indexed("kernels", i);
    if (!r.str(a.kernels[i].symbol, what + ".symbol") ||
        !r.u32(a.kernels[i].binary, what + ".binary"))
      return false;
  }
  if (!r.count(n, kMinStep, "steps"))
    return false;
  a.steps.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    StepDesc &s = a.steps[i];
    std::string what = indexed("steps", i);
    uint32_t kind;
    if (!r.u32(kind, what + ".kind"))
      return false;
    if (kind > static_cast<uint32_t>(StepKind::Select))
      return r.fail(what + ".kind: unknown step kind " + std::to_string(kind));
    s.kind = static_cast<StepKind>(kind);
    if (!r.u32(s.device, what + ".device") || !r.str(s.name, what + ".name") ||
        !r.u32(s.kernel, what + ".kernel") || !r.u32s(s.args, what + ".args") ||
        !r.u32(s.numInputs, what + ".numInputs") ||
        !r.u32s(s.deps, what + ".deps") ||
        !r.f64(s.predictedStart, what + ".predictedStart") ||
        !r.f64(s.predictedFinish, what + ".predictedFinish"))
      return false;
  }
  if (!readDims(r, a))
    return false;
  if (a.versionMinor >= 2)
    for (size_t i = 0; i < a.kernels.size(); ++i) {
      std::string what = indexed("kernels", i) + ".branches";
      uint32_t branches;
      if (!r.count(branches, 4, what))
        return false;
      a.kernels[i].branches.resize(branches);
      for (std::string &location : a.kernels[i].branches)
        if (!r.str(location, what))
          return false;
    }
  if (a.versionMinor >= 2)
    for (size_t i = 0; i < a.steps.size(); ++i)
      if (!r.str(a.steps[i].branchLocation,
                 indexed("steps", i) + ".branchLocation"))
        return false;
  if (r.remaining() != 0)
    return r.fail(std::to_string(r.remaining()) +
                  " unexpected bytes after the last section");
  return true;
}

namespace {
/// Collects the first verification failure.
struct Verifier {
  const Artifact &a;
  std::string error;

  bool fail(const std::string &message) {
    error = message;
    return false;
  }

  bool checkValueId(uint32_t id, const std::string &what) {
    if (id >= a.values.size())
      return fail(what + " = " + std::to_string(id) +
                  " is not a value (the artifact has " +
                  std::to_string(a.values.size()) + ")");
    return true;
  }

  /// Checks the shape of an input/output and that it fits its value slot.
  bool checkTensor(const TensorDesc &desc, uint32_t valueId,
                   const std::string &what) {
    if (!isValidDType(static_cast<uint32_t>(desc.dtype)))
      return fail(what + ": unknown element type");
    uint64_t bytes = dtypeSize(desc.dtype);
    size_t numDynamic = 0;
    for (int64_t dim : desc.shape)
      numDynamic += dim == -1;
    if (numDynamic != desc.dynamicSizes.size())
      return fail(what + ": " + std::to_string(numDynamic) +
                  " dynamic dimensions but " +
                  std::to_string(desc.dynamicSizes.size()) + " sizes");
    if (!checkSizes(desc.dynamicSizes, what + ".dynamicSizes"))
      return false;
    // A dynamic tensor fits its slot at the sizes of each run (checked
    // then).
    for (int64_t dim : desc.shape) {
      if (dim == -1)
        continue;
      if (dim < 0)
        return fail(what + ": negative dimension " + std::to_string(dim));
      if (dim != 0 && bytes > std::numeric_limits<uint64_t>::max() /
                                  static_cast<uint64_t>(dim))
        return fail(what + ": size overflows");
      bytes *= static_cast<uint64_t>(dim);
    }
    if (!checkValueId(valueId, what + " value"))
      return false;
    if (bytes > a.values[valueId].bytes)
      return fail(what + ": " + std::to_string(bytes) +
                  " bytes do not fit value " + std::to_string(valueId) +
                  " of " + std::to_string(a.values[valueId].bytes) + " bytes");
    return true;
  }

  /// Checks that every size program is well formed and reads known dims
  /// (evaluated at each dim's max).
  bool checkSizes(const std::vector<SizeExpr> &sizes, const std::string &what) {
    std::vector<int64_t> maxima;
    for (const DimDesc &dim : a.dims)
      maxima.push_back(dim.max);
    for (size_t i = 0; i < sizes.size(); ++i) {
      int64_t value;
      std::string error;
      if (!evaluateSize(sizes[i], maxima, value, error))
        return fail(what + indexed("", i) + ": " + error);
    }
    return true;
  }

  bool run() {
    for (size_t i = 0; i < a.dims.size(); ++i)
      if (a.dims[i].min < 0 || a.dims[i].min > a.dims[i].max)
        return fail(indexed("dims", i) + " ('" + a.dims[i].name +
                    "'): the range " + std::to_string(a.dims[i].min) + ".." +
                    std::to_string(a.dims[i].max) + " is empty or negative");
    for (size_t i = 0; i < a.devices.size(); ++i)
      if (a.devices[i].driver.empty())
        return fail("devices[" + std::to_string(i) + "] ('" +
                    a.devices[i].name + "') names no runtime driver");
    for (size_t i = 0; i < a.memorySpaces.size(); ++i)
      if (a.memorySpaces[i].device >= a.devices.size())
        return fail(indexed("memorySpaces", i) +
                    ".device = " + std::to_string(a.memorySpaces[i].device) +
                    " is not a device (the artifact has " +
                    std::to_string(a.devices.size()) + ")");
    for (size_t i = 0; i < a.values.size(); ++i) {
      const ValueDesc &v = a.values[i];
      std::string what = indexed("values", i);
      if (v.space >= a.memorySpaces.size())
        return fail(what + ".space = " + std::to_string(v.space) +
                    " is not a memory space (the artifact has " +
                    std::to_string(a.memorySpaces.size()) + ")");
      uint64_t arena = a.memorySpaces[v.space].arenaBytes;
      if (v.offset > arena || v.bytes > arena - v.offset)
        return fail(what + ": offset " + std::to_string(v.offset) + " + " +
                    std::to_string(v.bytes) + " bytes exceed the " +
                    std::to_string(arena) + "-byte arena of memory space '" +
                    a.memorySpaces[v.space].name + "'");
    }
    if (a.inputValues.size() != a.inputs.size())
      return fail(std::to_string(a.inputs.size()) + " inputs but " +
                  std::to_string(a.inputValues.size()) + " input values");
    if (a.outputValues.size() != a.outputs.size())
      return fail(std::to_string(a.outputs.size()) + " outputs but " +
                  std::to_string(a.outputValues.size()) + " output values");
    for (size_t i = 0; i < a.inputs.size(); ++i)
      if (!checkTensor(a.inputs[i], a.inputValues[i], indexed("inputs", i)))
        return false;
    for (size_t i = 0; i < a.outputs.size(); ++i)
      if (!checkTensor(a.outputs[i], a.outputValues[i], indexed("outputs", i)))
        return false;
    for (size_t i = 0; i < a.constants.size(); ++i) {
      const ConstantDesc &c = a.constants[i];
      std::string what = indexed("constants", i);
      if (!checkValueId(c.value, what + ".value"))
        return false;
      if (c.data.size() != a.values[c.value].bytes)
        return fail(what + ": " + std::to_string(c.data.size()) +
                    " bytes of data for value " + std::to_string(c.value) +
                    " of " + std::to_string(a.values[c.value].bytes) +
                    " bytes");
    }
    for (size_t i = 0; i < a.kernels.size(); ++i)
      if (a.kernels[i].binary >= a.binaries.size())
        return fail(indexed("kernels", i) +
                    ".binary = " + std::to_string(a.kernels[i].binary) +
                    " is not a binary (the artifact has " +
                    std::to_string(a.binaries.size()) + ")");
    for (size_t i = 0; i < a.steps.size(); ++i)
      if (!checkStep(a.steps[i], i))
        return false;
    return true;
  }

  /// {condition, true values..., false values..., results...}.
  bool checkSelect(const StepDesc &s, const std::string &what) {
    if (!s.sizes.empty())
      return fail(what + ": a select has no sizes");
    size_t n = s.args.size() / 3;
    if (s.args.size() < 4 || s.args.size() % 3 != 1 || s.numInputs != 2 * n + 1)
      return fail(what + ": a select has a condition, then " +
                  "n true values, n false values and n results (n >= 1); " +
                  "it has " + std::to_string(s.args.size()) + " args, " +
                  std::to_string(s.numInputs) + " inputs");
    if (a.values[s.args[0]].bytes != 1)
      return fail(what + ": its condition is a value of " +
                  std::to_string(a.values[s.args[0]].bytes) +
                  " bytes, not one i1");
    for (size_t j = 0; j < n; ++j) {
      uint64_t bytes = a.values[s.args[1 + 2 * n + j]].bytes;
      for (uint32_t side : {s.args[1 + j], s.args[1 + n + j]})
        if (a.values[side].bytes != bytes)
          return fail(what + ": selects value " + std::to_string(side) +
                      " of " + std::to_string(a.values[side].bytes) +
                      " bytes into a result of " + std::to_string(bytes) +
                      " bytes");
    }
    return true;
  }

  bool checkStep(const StepDesc &s, size_t index) {
    std::string what = indexed("steps", index);
    if (s.device >= a.devices.size())
      return fail(what + ".device = " + std::to_string(s.device) +
                  " is not a device (the artifact has " +
                  std::to_string(a.devices.size()) + ")");
    for (size_t j = 0; j < s.args.size(); ++j)
      if (!checkValueId(s.args[j], what + indexed(".args", j)))
        return false;
    for (size_t j = 0; j < s.deps.size(); ++j)
      if (s.deps[j] >= index)
        return fail(what + indexed(".deps", j) + " = " +
                    std::to_string(s.deps[j]) + " is not an earlier step");
    if (!s.branchLocation.empty() && s.kind != StepKind::Select)
      return fail(what + ": only a select step counts a branch");
    switch (s.kind) {
    case StepKind::Launch:
      if (s.kernel >= a.kernels.size())
        return fail(what + ".kernel = " + std::to_string(s.kernel) +
                    " is not a kernel (the artifact has " +
                    std::to_string(a.kernels.size()) + ")");
      if (s.numInputs > s.args.size())
        return fail(what + ".numInputs = " + std::to_string(s.numInputs) +
                    " exceeds its " + std::to_string(s.args.size()) + " args");
      return checkSizes(s.sizes, what + ".sizes");
    case StepKind::Copy:
      if (!s.sizes.empty())
        return fail(what + ": a copy has no sizes");
      if (s.args.size() != 2)
        return fail(what + ": a copy has 2 args (source, destination), not " +
                    std::to_string(s.args.size()));
      if (a.values[s.args[0]].bytes != a.values[s.args[1]].bytes)
        return fail(what + ": copies " +
                    std::to_string(a.values[s.args[0]].bytes) +
                    " bytes into a value of " +
                    std::to_string(a.values[s.args[1]].bytes) + " bytes");
      return true;
    case StepKind::Select:
      return checkSelect(s, what);
    }
    return fail(what + ".kind: unknown step kind");
  }
};
} // namespace

bool orx::verifyArtifact(const Artifact &artifact, std::string &error) {
  Verifier verifier{artifact, {}};
  if (verifier.run())
    return true;
  error = "invalid artifact: " + verifier.error;
  return false;
}

static uint64_t readLittle(const uint8_t *data, size_t numBytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < numBytes; ++i)
    value |= static_cast<uint64_t>(data[i]) << (8 * i);
  return value;
}

bool orx::parseArtifact(const uint8_t *data, size_t size, Artifact &out,
                        std::string &error) {
  auto fail = [&](std::string message) {
    error = std::move(message);
    return false;
  };
  size_t magicBytes = std::min(size, sizeof(kMagic));
  if (magicBytes != 0 && std::memcmp(data, kMagic, magicBytes) != 0)
    return fail("not an OrchestraOS artifact (bad magic)");
  if (size < kArtifactHeaderSize)
    return fail("artifact is truncated: " + std::to_string(size) +
                " bytes, smaller than the " +
                std::to_string(kArtifactHeaderSize) + "-byte header");
  uint32_t major = static_cast<uint32_t>(readLittle(data + 8, 4));
  uint32_t minor = static_cast<uint32_t>(readLittle(data + 12, 4));
  uint64_t payloadSize = readLittle(data + 16, 8);
  uint64_t checksum = readLittle(data + 24, 8);
  if (major != kArtifactVersionMajor)
    return fail("artifact format version " + std::to_string(major) + "." +
                std::to_string(minor) + ", this runtime reads " +
                std::to_string(kArtifactVersionMajor) + ".x" +
                (major < kArtifactVersionMajor
                     ? " (compile the model again with this release's "
                       "orchestra-compile)"
                     : ""));
  size_t available = size - kArtifactHeaderSize;
  if (payloadSize > available)
    return fail("artifact is truncated: the header announces " +
                std::to_string(payloadSize) + " payload bytes, " +
                std::to_string(available) + " are present");
  if (payloadSize < available)
    return fail("artifact has " + std::to_string(available - payloadSize) +
                " unexpected bytes after its payload");
  const uint8_t *payload = data + kArtifactHeaderSize;
  if (fnv1a64(payload, available) != checksum)
    return fail("artifact is corrupted (payload checksum mismatch)");

  Artifact result;
  result.versionMajor = major;
  result.versionMinor = minor;
  result.payloadHash = checksum;
  ByteReader reader(payload, available);
  if (!readPayload(reader, result))
    return fail("malformed artifact: " + reader.error);
  if (!verifyArtifact(result, error))
    return false;
  out = std::move(result);
  return true;
}

bool orx::readArtifactFile(const std::string &path, Artifact &out,
                           std::string &error) {
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  std::vector<uint8_t> bytes;
  uint8_t buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    bytes.insert(bytes.end(), buffer, buffer + n);
  bool readError = std::ferror(file);
  std::fclose(file);
  if (readError) {
    error = "cannot read '" + path + "'";
    return false;
  }
  return parseArtifact(bytes.data(), bytes.size(), out, error);
}
