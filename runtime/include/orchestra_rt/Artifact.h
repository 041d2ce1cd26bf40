//===- Artifact.h - The OrchestraOS artifact format -------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// An artifact (`.orcx`) is what `orchestra-compile` writes and the runtime
// runs: the devices and memory spaces a program was planned for, the buffer
// slots of its values inside one arena per memory space, constant data, kernel
// binaries and the steps of the plan (kernel launches and copies with their
// dependencies). docs/Artifact.md documents the binary layout.
//
// This library depends on the C++ standard library only: the compiler links
// it to write artifacts, the runtime to read them.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_ARTIFACT_H
#define ORCHESTRA_RT_ARTIFACT_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace orx {

/// Element types. The values are part of the format and of the C API.
enum class DType : uint32_t {
  F32 = 0,
  F64 = 1,
  F16 = 2,
  BF16 = 3,
  I1 = 4,
  I8 = 5,
  I16 = 6,
  I32 = 7,
  I64 = 8,
  U8 = 9,
  U16 = 10,
  U32 = 11,
  U64 = 12,
};

/// Returns whether `value` is one of the DType enumerators.
bool isValidDType(uint32_t value);
/// Bytes per element; I1 is stored as one byte per element.
size_t dtypeSize(DType dtype);
/// "f32", "f64", "f16", "bf16", "i1", "i8", "i16", "i32", "i64", "u8", "u16",
/// "u32", "u64".
const char *dtypeName(DType dtype);

/// The operations of a size program (SizeExpr).
enum class SizeOp : int64_t {
  /// Pushes the next code element.
  Const = 0,
  /// Pushes the size of the dim whose index is the next code element.
  Dim = 1,
  /// Pop b, pop a, push a op b (divisions and modulo round towards -inf;
  /// `b` must be positive).
  Add = 2,
  Mul = 3,
  FloorDiv = 4,
  CeilDiv = 5,
  Mod = 6,
};

/// A size that depends on the dims of the run (design/0017): a postfix
/// program of SizeOps that leaves one value.
struct SizeExpr {
  std::vector<int64_t> code;
};

/// Evaluates `expr` with `dims` as the sizes of the dims. Returns false and
/// sets `error` on a malformed program, an overflow, a division by a
/// non-positive number or a negative result.
bool evaluateSize(const SizeExpr &expr, const std::vector<int64_t> &dims,
                  int64_t &out, std::string &error);

/// A named dimension that each run sets from the inputs' shapes, within
/// [min, max] (the plan holds its buffers at max).
struct DimDesc {
  std::string name;
  int64_t min = 0;
  int64_t max = 0;
};

/// An input or output of the entry function.
struct TensorDesc {
  std::string name;
  DType dtype = DType::F32;
  /// Row-major dimensions; empty for a scalar; -1 for a dynamic dimension.
  std::vector<int64_t> shape;
  /// The size of each dynamic dimension, in order.
  std::vector<SizeExpr> dynamicSizes;

  /// Whether a dimension is dynamic.
  bool isDynamic() const { return !dynamicSizes.empty(); }
  /// The product of the dimensions (1 for a scalar). Only meaningful for
  /// static tensors of non-negative dimensions whose product fits, which
  /// parseArtifact checks.
  size_t numElements() const;
  size_t byteSize() const;
};

/// A device of the topology the artifact was built for. Each device is one
/// queue of the plan.
struct DeviceDesc {
  std::string name;
  /// An arch of the target registry (orchestra-targets lists them).
  std::string arch;
  /// The runtime driver that runs the device ("cpu", or the name a GPU or
  /// accelerator backend registers); the compiler takes it from the arch's
  /// entry in the target registry.
  std::string driver;
  uint32_t deviceId = 0;
  /// Threads a kernel on this device may use.
  uint32_t numThreads = 1;
};

/// A memory space; the runtime allocates one arena of `arenaBytes` for it.
struct MemorySpaceDesc {
  std::string name;
  /// Index into Artifact::devices.
  uint32_t device = 0;
  /// Peak bytes live at once, after liveness-based reuse of slots.
  uint64_t arenaBytes = 0;
};

/// A buffer slot inside a memory space's arena.
struct ValueDesc {
  /// Index into Artifact::memorySpaces.
  uint32_t space = 0;
  uint64_t offset = 0;
  uint64_t bytes = 0;
};

/// Data copied into a value's slot when a session is created.
struct ConstantDesc {
  /// Index into Artifact::values; `data` has exactly the value's size.
  uint32_t value = 0;
  std::vector<uint8_t> data;
};

/// A kernel binary.
struct BinaryDesc {
  /// The arch of the machine code (an arch of the target registry).
  std::string arch;
  /// "elf-shared-object" for host code.
  std::string format;
  std::vector<uint8_t> data;
  /// CPU features the code needs, in LLVM spelling ("fma", "sse4.2").
  std::vector<std::string> requiredFeatures;
};

/// The prefix of every kernel's symbol: the compiler names the kernel of task
/// kernel function `f` `orx_kernel_f` in every kind of binary.
constexpr const char *kKernelSymbolPrefix = "orx_kernel_";

/// A kernel: an `extern "C" void symbol(void **args, const int64_t *sizes)`
/// in a binary (CPU kernels; `sizes` are the step's dynamic sizes).
struct KernelDesc {
  std::string symbol;
  /// Index into Artifact::binaries.
  uint32_t binary = 0;
  /// 3.2: the branches of a kernel compiled with branch probes
  /// (orchestra-compile --profile-branches), by branch id: where each is in
  /// the source. A kernel with branches takes one more argument after its
  /// buffers: 4 u64 counters per branch, zeroed by the runtime (then or
  /// next iteration, else or exit, warps, divergent warps; design/0019).
  std::vector<std::string> branches;
};

/// The u64 counters a kernel keeps per branch.
constexpr size_t kCountersPerBranch = 4;

/// Launch: a kernel. Copy: a value into another memory space. Select (3.1,
/// `orchestra.commit`): one of two lists of values into the results, by a
/// condition the worker reads when the step runs (design/0019).
enum class StepKind : uint32_t { Launch = 0, Copy = 1, Select = 2 };

/// One step of the plan.
struct StepDesc {
  StepKind kind = StepKind::Launch;
  /// The device whose queue executes the step.
  uint32_t device = 0;
  std::string name;
  /// Launch: index into Artifact::kernels.
  uint32_t kernel = 0;
  /// Launch: value ids, inputs first then outputs. Copy: {src, dst}.
  /// Select: {condition, true values..., false values..., results...}, the
  /// condition a 1-byte i1 and the three lists of equal length and sizes.
  std::vector<uint32_t> args;
  /// Launch and select: how many of `args` are inputs.
  uint32_t numInputs = 0;
  /// Indices of earlier steps this one waits for (each < own index).
  std::vector<uint32_t> deps;
  /// Launch: the kernel's dynamic sizes, in the order its arguments' dynamic
  /// dimensions come (inputs then outputs, each in dimension order).
  std::vector<SizeExpr> sizes;
  /// Seconds from the start of the run, as predicted by the scheduler; -1
  /// when there is no prediction.
  double predictedStart = -1;
  double predictedFinish = -1;
  /// 3.2, select steps of a compile with --profile-branches: where the
  /// speculated branch is in the source; the runtime counts which list the
  /// step takes (design/0019). Empty otherwise.
  std::string branchLocation;
};

/// 3.0: dynamic dims (Artifact::dims, TensorDesc::dynamicSizes,
/// StepDesc::sizes), written after the steps; CPU kernels take `sizes`.
/// 3.1: select steps (a 3.0 reader refuses them as an unknown step kind).
/// 3.2: the kernels' branch tables (KernelDesc::branches), after the sizes.
constexpr uint32_t kArtifactVersionMajor = 3;
constexpr uint32_t kArtifactVersionMinor = 2;

/// A whole artifact.
struct Artifact {
  /// Filled by parseArtifact; serializeArtifact always writes the current
  /// version.
  uint32_t versionMajor = kArtifactVersionMajor;
  uint32_t versionMinor = kArtifactVersionMinor;
  /// Filled by parseArtifact: the header's FNV-1a of the payload, which
  /// names the artifact to the feedback service (design/0019).
  uint64_t payloadHash = 0;
  /// e.g. "orchestra-compile 0.1.0".
  std::string producer;
  std::string topologyName;
  std::vector<DeviceDesc> devices;
  std::vector<MemorySpaceDesc> memorySpaces;
  std::string entryName;
  /// The dynamic dims; empty for a program of static shapes.
  std::vector<DimDesc> dims;
  std::vector<TensorDesc> inputs;
  /// The value id of each input.
  std::vector<uint32_t> inputValues;
  std::vector<TensorDesc> outputs;
  /// The value id of each output.
  std::vector<uint32_t> outputValues;
  std::vector<ValueDesc> values;
  std::vector<ConstantDesc> constants;
  std::vector<BinaryDesc> binaries;
  std::vector<KernelDesc> kernels;
  std::vector<StepDesc> steps;
};

/// Size of the fixed header in front of the payload.
constexpr size_t kArtifactHeaderSize = 40;

/// Returns the file bytes of `artifact` (header + payload).
std::vector<uint8_t> serializeArtifact(const Artifact &artifact);

/// Reads and validates an artifact. Returns false and sets `error` when the
/// data is truncated, is not an artifact, has an unsupported major version, a
/// wrong checksum, or any index, offset or size out of range. Never reads out
/// of bounds and never allocates more than the input could describe.
bool parseArtifact(const uint8_t *data, size_t size, Artifact &out,
                   std::string &error);

/// Checks the cross references of `artifact` (what parseArtifact checks after
/// decoding). Returns false and sets `error` on the first problem.
bool verifyArtifact(const Artifact &artifact, std::string &error);

/// The name a profile record gives select step `index`'s branch
/// (`orx_select_<index>`, its branch id 0).
std::string getSelectBranchName(size_t index);

/// The branch tables of `artifact` by the names profile records use: each
/// kernel with branches by its symbol, each select step with a branch
/// location by getSelectBranchName.
std::vector<std::pair<std::string, std::vector<std::string>>>
getBranchTables(const Artifact &artifact);

/// Writes serializeArtifact(artifact) to `path`.
bool writeArtifactFile(const std::string &path, const Artifact &artifact,
                       std::string &error);

/// Reads and parses the artifact at `path`.
bool readArtifactFile(const std::string &path, Artifact &out,
                      std::string &error);

/// The FNV-1a 64-bit hash the header stores of the payload.
uint64_t fnv1a64(const uint8_t *data, size_t size);

} // namespace orx

#endif // ORCHESTRA_RT_ARTIFACT_H
