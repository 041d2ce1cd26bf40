//===- Describe.cpp - Print what an artifact holds ------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// `orchestra-run --describe`: the plan of an artifact without running it
// (no driver needed): its devices, memory, entry, kernels and steps, and for
// each GPU module bundle the modules and every launch with its grid, block,
// shared memory and parameters, tensor maps included. As text for people,
// and with `--describe=json` as JSON for tools (docs/UserGuide.md).
//
//===----------------------------------------------------------------------===//

#include "Describe.h"

#include "JsonWriter.h"
#include "orchestra/Support/AtomicFile.h"

#include "orchestra_rt/Artifact.h"
#include "orchestra_rt/GpuBundle.h"
#include "orchestra_rt/PjrtBundle.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

using namespace orx;
using orchestra::JsonWriter;

static const char *tensorMapDataTypeName(uint32_t type) {
  static const char *names[] = {"u8",        "u16",  "u32",       "i32", "u64",
                                "i64",       "f16",  "f32",       "f64", "bf16",
                                "f32 (ftz)", "tf32", "tf32 (ftz)"};
  return type < std::size(names) ? names[type] : "?";
}

static const char *swizzleName(uint32_t swizzle) {
  static const char *names[] = {"none", "32B", "64B", "128B"};
  return swizzle < std::size(names) ? names[swizzle] : "?";
}

/// "1024x512": a tensor map's dimensions, outermost first (they are stored
/// innermost first).
template <typename T>
static std::string outermostFirst(const T *dims, uint32_t rank) {
  std::string text;
  for (uint32_t i = rank; i > 0; --i)
    text += (i == rank ? "" : "x") + std::to_string(dims[i - 1]);
  return text;
}

static std::string describeArg(const GpuArgDesc &arg) {
  switch (arg.kind) {
  case GpuArgKind::Buffer:
    return "buffer " + std::to_string(arg.value);
  case GpuArgKind::Scratch:
    return "scratch " + std::to_string(arg.value);
  case GpuArgKind::Immediate:
    return "immediate " + std::to_string(arg.value) + " (" +
           std::to_string(arg.size) + " bytes)";
  case GpuArgKind::TensorMap: {
    const GpuTensorMapDesc &map = arg.tensorMap;
    std::string text = "tensor map of ";
    text += map.source == GpuArgKind::Scratch ? "scratch " : "buffer ";
    text += std::to_string(map.sourceIndex) + " (" +
            tensorMapDataTypeName(map.dataType) + " " +
            outermostFirst(map.globalDim, map.rank) + ", box " +
            outermostFirst(map.boxDim, map.rank);
    if (map.rank > 1)
      text += ", row stride " + std::to_string(map.globalStrides[0]) + " B";
    text += std::string(", swizzle ") + swizzleName(map.swizzle) + ")";
    return text;
  }
  case GpuArgKind::ProfileCounters:
    return "branch counters";
  case GpuArgKind::Register:
    return "register " + std::to_string(arg.value);
  }
  return "?";
}

/// "buffer 2", "scratch 0", "register 1": a program's argument.
static std::string describeSource(uint64_t kind, uint64_t index) {
  return describeArg({static_cast<GpuArgKind>(kind), index, 8, {}});
}

static std::string describeInstruction(const GpuInstruction &instruction) {
  switch (instruction.op) {
  case GpuOp::Launch:
    return "launch " + std::to_string(instruction.a);
  case GpuOp::Set:
    return "register " + std::to_string(instruction.a) + " = " +
           describeSource(instruction.b, instruction.c);
  case GpuOp::SetAlternating:
    return "register " + std::to_string(instruction.a) + " = scratch " +
           std::to_string(instruction.b) + " / " +
           std::to_string(instruction.c) + " in even / odd iterations";
  case GpuOp::LoopBegin:
    return instruction.b ? "loop until an exit"
                         : "loop " + std::to_string(instruction.a) + " times";
  case GpuOp::ExitUnless:
    return "exit the loop unless " +
           describeSource(instruction.b, instruction.c);
  case GpuOp::LoopEnd:
    return "end of the loop";
  }
  return "?";
}

static void describeBundle(const BinaryDesc &binary, std::ostream &os) {
  GpuBundle bundle;
  std::string error;
  if (!parseGpuBundle(binary.data.data(), binary.data.size(), bundle, error)) {
    os << "    invalid: " << error << "\n";
    return;
  }
  os << "    chip " << bundle.chip << "\n";
  for (size_t i = 0; i < bundle.modules.size(); ++i) {
    const GpuModuleDesc &module = bundle.modules[i];
    os << "    module " << i << " '" << module.name << "':";
    for (size_t j = 0; j < module.images.size(); ++j)
      os << (j ? ", " : " ") << module.images[j].kind << " "
         << module.images[j].data.size() << " B";
    os << "\n";
    for (const GpuFunctionDesc &function : module.functions) {
      os << "      function " << function.name << ":";
      for (size_t j = 0; j < function.resources.size(); ++j)
        os << (j ? ", " : " ") << function.resources[j].first << " "
           << function.resources[j].second;
      os << "\n";
    }
  }
  for (const GpuKernelDesc &kernel : bundle.kernels) {
    os << "    kernel " << kernel.symbol;
    if (!kernel.scratchBytes.empty()) {
      os << ", scratch";
      for (uint64_t bytes : kernel.scratchBytes)
        os << " " << bytes << " B";
    }
    os << "\n";
    for (size_t i = 0; i < kernel.launches.size(); ++i) {
      const GpuLaunchDesc &launch = kernel.launches[i];
      os << "      launch " << i << ": " << launch.function << " of module "
         << launch.module << ", grid " << launch.grid[0] << "x"
         << launch.grid[1] << "x" << launch.grid[2] << ", block "
         << launch.block[0] << "x" << launch.block[1] << "x" << launch.block[2]
         << ", " << launch.dynamicSharedBytes
         << " B of dynamic shared memory\n";
      for (size_t j = 0; j < launch.args.size(); ++j)
        os << "        param " << j << ": " << describeArg(launch.args[j])
           << "\n";
    }
    if (!kernel.program.empty()) {
      os << "      program (" << kernel.registers << " register(s)):\n";
      for (size_t i = 0; i < kernel.program.size(); ++i)
        os << "        " << i << ": " << describeInstruction(kernel.program[i])
           << "\n";
    }
  }
}

static std::string describeTensors(const std::vector<PjrtTensorDesc> &tensors) {
  std::string text;
  for (size_t i = 0; i < tensors.size(); ++i) {
    text +=
        (i ? ", " : "") + std::string(dtypeName(tensors[i].elementType)) + "[";
    for (size_t j = 0; j < tensors[i].dims.size(); ++j)
      text += (j ? "x" : "") + std::to_string(tensors[i].dims[j]);
    text += "]";
  }
  return text;
}

static void describePjrtBundle(const BinaryDesc &binary, std::ostream &os) {
  PjrtBundle bundle;
  std::string error;
  if (!parsePjrtBundle(binary.data.data(), binary.data.size(), bundle, error)) {
    os << "    invalid: " << error << "\n";
    return;
  }
  os << "    platform " << bundle.platform << ", plugin "
     << (bundle.plugin.empty() ? "$ORCHESTRA_PJRT_PLUGIN" : bundle.plugin)
     << "\n";
  if (!bundle.requirements.empty())
    os << "    needs " << bundle.requirements << "\n";
  for (const PjrtKernelDesc &kernel : bundle.kernels) {
    os << "    kernel " << kernel.symbol << ": " << kernel.programFormat << " "
       << kernel.program.size() << " B";
    if (!kernel.aotFormat.empty())
      os << ", " << kernel.aotFormat << " " << kernel.aotBinary.size() << " B";
    os << "; (" << describeTensors(kernel.args) << ") -> ("
       << describeTensors(kernel.results) << ")\n";
  }
}

bool orchestra::dumpConstants(const std::string &path, const std::string &dir,
                              std::string &error) {
  Artifact artifact;
  if (!readArtifactFile(path, artifact, error))
    return false;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    error = "cannot create '" + dir + "': " + ec.message();
    return false;
  }
  for (const ConstantDesc &constant : artifact.constants) {
    std::string file = (std::filesystem::path(dir) /
                        ("value_" + std::to_string(constant.value) + ".bin"))
                           .string();
    if (!orchestra::writeFileAtomically(file, constant.data.data(),
                                        constant.data.size(), error))
      return false;
  }
  return true;
}

/// A size program as infix text over the dims' names ("batch * 2").
static std::string formatSize(const SizeExpr &size,
                              const std::vector<DimDesc> &dims) {
  std::vector<std::string> stack;
  const std::vector<int64_t> &code = size.code;
  for (size_t pc = 0; pc < code.size(); ++pc) {
    auto op = static_cast<SizeOp>(code[pc]);
    if ((op == SizeOp::Const || op == SizeOp::Dim) && pc + 1 < code.size()) {
      int64_t immediate = code[++pc];
      stack.push_back(op == SizeOp::Const || immediate < 0 ||
                              static_cast<size_t>(immediate) >= dims.size()
                          ? std::to_string(immediate)
                          : dims[immediate].name);
      continue;
    }
    if (stack.size() < 2)
      return "?";
    std::string rhs = stack.back();
    stack.pop_back();
    const char *symbol = op == SizeOp::Add        ? " + "
                         : op == SizeOp::Mul      ? " * "
                         : op == SizeOp::FloorDiv ? " floordiv "
                         : op == SizeOp::CeilDiv  ? " ceildiv "
                                                  : " mod ";
    stack.back() = "(" + stack.back() + symbol + rhs + ")";
  }
  if (stack.size() != 1)
    return "?";
  std::string text = stack.back();
  return text.front() == '(' ? text.substr(1, text.size() - 2) : text;
}

/// The sizes of a tensor's dimensions as text, dynamic ones by their size.
static std::vector<std::string> formatShape(const TensorDesc &desc,
                                            const std::vector<DimDesc> &dims) {
  std::vector<std::string> sizes;
  size_t dynamic = 0;
  for (int64_t size : desc.shape)
    sizes.push_back(size != -1 ? std::to_string(size)
                    : dynamic < desc.dynamicSizes.size()
                        ? formatSize(desc.dynamicSizes[dynamic++], dims)
                        : "?");
  return sizes;
}

bool orchestra::describeArtifact(const std::string &path, std::ostream &os,
                                 std::string &error) {
  Artifact artifact;
  if (!readArtifactFile(path, artifact, error))
    return false;
  os << "artifact " << path << " (format " << artifact.versionMajor << "."
     << artifact.versionMinor << ", by " << artifact.producer << ")\n";
  os << "topology '" << artifact.topologyName << "'\n";
  for (size_t i = 0; i < artifact.devices.size(); ++i) {
    const DeviceDesc &device = artifact.devices[i];
    os << "device " << i << " '" << device.name << "': " << device.arch
       << ", id " << device.deviceId << ", " << device.numThreads
       << " thread(s), driver " << device.driver << "\n";
  }
  for (size_t i = 0; i < artifact.memorySpaces.size(); ++i) {
    const MemorySpaceDesc &space = artifact.memorySpaces[i];
    os << "memory " << i << " '" << space.name << "' of device " << space.device
       << ": " << space.arenaBytes << " B\n";
  }
  auto tensor = [&](const TensorDesc &desc) {
    std::string text = desc.name + ": " + dtypeName(desc.dtype) + "[";
    std::vector<std::string> sizes = formatShape(desc, artifact.dims);
    for (size_t i = 0; i < sizes.size(); ++i)
      text += (i ? "x" : "") + sizes[i];
    return text + "]";
  };
  os << "entry '" << artifact.entryName << "'\n";
  if (!artifact.dims.empty()) {
    os << "  dims:";
    for (size_t i = 0; i < artifact.dims.size(); ++i)
      os << (i ? ", " : " ") << artifact.dims[i].name << " = "
         << artifact.dims[i].min << ".." << artifact.dims[i].max;
    os << "\n";
  }
  for (size_t i = 0; i < artifact.inputs.size(); ++i)
    os << "  input " << i << " " << tensor(artifact.inputs[i]) << " = value "
       << artifact.inputValues[i] << "\n";
  for (size_t i = 0; i < artifact.outputs.size(); ++i)
    os << "  output " << i << " " << tensor(artifact.outputs[i]) << " = value "
       << artifact.outputValues[i] << "\n";
  os << artifact.values.size() << " value(s), " << artifact.constants.size()
     << " constant(s)\n";
  for (size_t i = 0; i < artifact.values.size(); ++i) {
    const ValueDesc &value = artifact.values[i];
    os << "  value " << i << ": memory " << value.space << " at "
       << value.offset << ", " << value.bytes << " B\n";
  }
  for (const ConstantDesc &constant : artifact.constants)
    os << "  constant: value " << constant.value << ", " << constant.data.size()
       << " B\n";
  for (size_t i = 0; i < artifact.binaries.size(); ++i) {
    const BinaryDesc &binary = artifact.binaries[i];
    os << "binary " << i << ": " << binary.arch << ", " << binary.format << ", "
       << binary.data.size() << " B";
    if (!binary.requiredFeatures.empty()) {
      os << ", needs";
      for (const std::string &feature : binary.requiredFeatures)
        os << " " << feature;
    }
    os << "\n";
    if (binary.format == kGpuBundleFormat)
      describeBundle(binary, os);
    else if (isPjrtBundle(binary))
      describePjrtBundle(binary, os);
  }
  for (size_t i = 0; i < artifact.kernels.size(); ++i) {
    const KernelDesc &kernel = artifact.kernels[i];
    os << "kernel " << i << ": " << kernel.symbol << " in binary "
       << kernel.binary << "\n";
    for (size_t b = 0; b < kernel.branches.size(); ++b)
      os << "  branch " << b << " (profiled): " << kernel.branches[b] << "\n";
  }
  for (size_t i = 0; i < artifact.steps.size(); ++i) {
    const StepDesc &step = artifact.steps[i];
    os << "step " << i << " on device " << step.device << ": ";
    if (step.kind == StepKind::Launch) {
      os << "launch kernel " << step.kernel << " '" << step.name << "' (";
      for (size_t j = 0; j < step.args.size(); ++j)
        os << (j ? ", " : "") << (j < step.numInputs ? "in " : "out ")
           << step.args[j];
      os << ")";
      if (!step.sizes.empty()) {
        os << ", sizes (";
        for (size_t j = 0; j < step.sizes.size(); ++j)
          os << (j ? ", " : "") << formatSize(step.sizes[j], artifact.dims);
        os << ")";
      }
    } else if (step.kind == StepKind::Select) {
      size_t n = step.args.size() / 3;
      auto list = [&](size_t first) {
        for (size_t j = 0; j < n; ++j)
          os << (j ? ", " : "") << step.args[first + j];
      };
      os << "select '" << step.name << "' by value " << step.args[0] << ": (";
      list(1 + 2 * n);
      os << ") = true (";
      list(1);
      os << ") or false (";
      list(1 + n);
      os << ")";
      if (!step.branchLocation.empty())
        os << ", profiled as " << getSelectBranchName(i)
           << " branch 0: " << step.branchLocation;
    } else {
      os << "copy '" << step.name << "' value " << step.args[0] << " -> value "
         << step.args[1];
    }
    if (!step.deps.empty()) {
      os << ", after";
      for (uint32_t dep : step.deps)
        os << " " << dep;
    }
    os << "\n";
  }
  return true;
}

//===----------------------------------------------------------------------===//
// --describe=json
//===----------------------------------------------------------------------===//

static const char *argKindName(GpuArgKind kind) {
  switch (kind) {
  case GpuArgKind::Buffer:
    return "buffer";
  case GpuArgKind::Scratch:
    return "scratch";
  case GpuArgKind::Immediate:
    return "immediate";
  case GpuArgKind::TensorMap:
    return "tensor_map";
  case GpuArgKind::ProfileCounters:
    return "branch_counters";
  case GpuArgKind::Register:
    return "register";
  }
  return "?";
}

template <typename T, size_t N>
static std::vector<uint64_t> firstN(const T (&values)[N], size_t n) {
  return std::vector<uint64_t>(values, values + std::min(n, N));
}

static void writeBundleJson(const GpuBundle &bundle, JsonWriter &json) {
  json.beginObject();
  json.member("chip", bundle.chip);
  json.key("modules");
  json.beginArray();
  for (const GpuModuleDesc &module : bundle.modules) {
    json.beginObject();
    json.member("name", module.name);
    json.key("images");
    json.beginArray();
    for (const GpuImageDesc &image : module.images) {
      json.beginObject();
      json.member("kind", image.kind);
      json.member("bytes", static_cast<uint64_t>(image.data.size()));
      json.endObject();
    }
    json.endArray();
    json.key("functions");
    json.beginArray();
    for (const GpuFunctionDesc &function : module.functions) {
      json.beginObject();
      json.member("name", function.name);
      json.key("resources");
      json.beginObject();
      for (const auto &[key, value] : function.resources)
        json.member(key, value);
      json.endObject();
      json.endObject();
    }
    json.endArray();
    json.endObject();
  }
  json.endArray();
  json.key("kernels");
  json.beginArray();
  for (const GpuKernelDesc &kernel : bundle.kernels) {
    json.beginObject();
    json.member("symbol", kernel.symbol);
    json.numbers("scratch_bytes", kernel.scratchBytes);
    json.key("launches");
    json.beginArray();
    for (const GpuLaunchDesc &launch : kernel.launches) {
      json.beginObject();
      json.member("module", launch.module);
      json.member("function", launch.function);
      json.numbers("grid", firstN(launch.grid, 3));
      json.numbers("block", firstN(launch.block, 3));
      json.member("dynamic_shared_bytes", launch.dynamicSharedBytes);
      json.key("params");
      json.beginArray();
      for (const GpuArgDesc &arg : launch.args) {
        json.beginObject();
        json.member("kind", argKindName(arg.kind));
        if (arg.kind == GpuArgKind::Immediate) {
          json.member("value", arg.value);
          json.member("size", arg.size);
        } else if (arg.kind == GpuArgKind::Buffer ||
                   arg.kind == GpuArgKind::Scratch ||
                   arg.kind == GpuArgKind::Register) {
          json.member("index", arg.value);
        } else if (arg.kind == GpuArgKind::TensorMap) {
          const GpuTensorMapDesc &map = arg.tensorMap;
          json.member("source", argKindName(map.source));
          json.member("source_index", map.sourceIndex);
          json.member("data_type", map.dataType);
          json.member("rank", map.rank);
          json.numbers("global_dim", firstN(map.globalDim, map.rank));
          json.numbers("global_strides",
                       firstN(map.globalStrides, map.rank ? map.rank - 1 : 0));
          json.numbers("box_dim", firstN(map.boxDim, map.rank));
          json.numbers("element_strides", firstN(map.elementStrides, map.rank));
          json.member("interleave", map.interleave);
          json.member("swizzle", map.swizzle);
          json.member("l2_promotion", map.l2Promotion);
          json.member("oob_fill", map.oobFill);
        }
        json.endObject();
      }
      json.endArray();
      json.endObject();
    }
    json.endArray();
    // The program: [op, a, b, c] per instruction (GpuOp's numbering).
    json.key("program");
    json.beginArray();
    for (const GpuInstruction &instruction : kernel.program) {
      json.beginArray();
      for (uint64_t field : {static_cast<uint64_t>(instruction.op),
                             instruction.a, instruction.b, instruction.c})
        json.value(field);
      json.endArray();
    }
    json.endArray();
    json.member("registers", kernel.registers);
    json.endObject();
  }
  json.endArray();
  json.endObject();
}

static void writeStrings(JsonWriter &json, const std::string &name,
                         const std::vector<std::string> &values) {
  json.key(name);
  json.beginArray();
  for (const std::string &value : values)
    json.value(value);
  json.endArray();
}

static void writeTensorJson(const TensorDesc &desc, uint32_t value,
                            const std::vector<DimDesc> &dims,
                            JsonWriter &json) {
  json.beginObject();
  json.member("name", desc.name);
  json.member("dtype", dtypeName(desc.dtype));
  json.numbers("shape", desc.shape);
  if (desc.isDynamic())
    writeStrings(json, "sizes", formatShape(desc, dims));
  json.member("value", value);
  json.endObject();
}

bool orchestra::describeArtifactJson(const std::string &path, std::ostream &os,
                                     std::string &error) {
  Artifact artifact;
  if (!readArtifactFile(path, artifact, error))
    return false;
  JsonWriter json(os);
  json.beginObject();
  json.member("format", std::to_string(artifact.versionMajor) + "." +
                            std::to_string(artifact.versionMinor));
  json.member("producer", artifact.producer);
  json.member("topology", artifact.topologyName);
  json.key("devices");
  json.beginArray();
  for (const DeviceDesc &device : artifact.devices) {
    json.beginObject();
    json.member("name", device.name);
    json.member("arch", device.arch);
    json.member("driver", device.driver);
    json.member("device_id", device.deviceId);
    json.member("num_threads", device.numThreads);
    json.endObject();
  }
  json.endArray();
  json.key("memory_spaces");
  json.beginArray();
  for (const MemorySpaceDesc &space : artifact.memorySpaces) {
    json.beginObject();
    json.member("name", space.name);
    json.member("device", space.device);
    json.member("arena_bytes", space.arenaBytes);
    json.endObject();
  }
  json.endArray();
  json.member("entry", artifact.entryName);
  json.key("dims");
  json.beginArray();
  for (const DimDesc &dim : artifact.dims) {
    json.beginObject();
    json.member("name", dim.name);
    json.member("min", dim.min);
    json.member("max", dim.max);
    json.endObject();
  }
  json.endArray();
  json.key("inputs");
  json.beginArray();
  for (size_t i = 0; i < artifact.inputs.size(); ++i)
    writeTensorJson(artifact.inputs[i], artifact.inputValues[i], artifact.dims,
                    json);
  json.endArray();
  json.key("outputs");
  json.beginArray();
  for (size_t i = 0; i < artifact.outputs.size(); ++i)
    writeTensorJson(artifact.outputs[i], artifact.outputValues[i],
                    artifact.dims, json);
  json.endArray();
  json.key("values");
  json.beginArray();
  for (const ValueDesc &value : artifact.values) {
    json.beginObject();
    json.member("space", value.space);
    json.member("offset", value.offset);
    json.member("bytes", value.bytes);
    json.endObject();
  }
  json.endArray();
  json.key("constants");
  json.beginArray();
  for (const ConstantDesc &constant : artifact.constants) {
    json.beginObject();
    json.member("value", constant.value);
    json.member("bytes", static_cast<uint64_t>(constant.data.size()));
    json.endObject();
  }
  json.endArray();
  json.key("binaries");
  json.beginArray();
  for (size_t i = 0; i < artifact.binaries.size(); ++i) {
    const BinaryDesc &binary = artifact.binaries[i];
    json.beginObject();
    json.member("arch", binary.arch);
    json.member("format", binary.format);
    json.member("bytes", static_cast<uint64_t>(binary.data.size()));
    json.key("required_features");
    json.beginArray();
    for (const std::string &feature : binary.requiredFeatures)
      json.value(feature);
    json.endArray();
    if (isGpuBundle(binary)) {
      GpuBundle bundle;
      std::string bundleError;
      if (!parseGpuBundleBinary(binary, i, bundle, bundleError)) {
        json.member("invalid", bundleError);
      } else {
        json.key("bundle");
        writeBundleJson(bundle, json);
      }
    }
    json.endObject();
  }
  json.endArray();
  json.key("kernels");
  json.beginArray();
  for (const KernelDesc &kernel : artifact.kernels) {
    json.beginObject();
    json.member("symbol", kernel.symbol);
    json.member("binary", kernel.binary);
    if (!kernel.branches.empty()) {
      json.key("branches");
      json.beginArray();
      for (const std::string &location : kernel.branches)
        json.value(location);
      json.endArray();
    }
    json.endObject();
  }
  json.endArray();
  json.key("steps");
  json.beginArray();
  for (const StepDesc &step : artifact.steps) {
    json.beginObject();
    json.member("kind", step.kind == StepKind::Launch   ? "launch"
                        : step.kind == StepKind::Select ? "select"
                                                        : "copy");
    json.member("device", step.device);
    json.member("name", step.name);
    if (step.kind == StepKind::Select)
      json.member("num_inputs", step.numInputs);
    if (step.kind == StepKind::Launch) {
      json.member("kernel", step.kernel);
      json.member("num_inputs", step.numInputs);
      if (!step.sizes.empty()) {
        std::vector<std::string> sizes;
        for (const SizeExpr &size : step.sizes)
          sizes.push_back(formatSize(size, artifact.dims));
        writeStrings(json, "sizes", sizes);
      }
    }
    json.numbers("args", step.args);
    json.numbers("deps", step.deps);
    if (step.predictedStart >= 0)
      json.member("predicted_start", step.predictedStart);
    if (step.predictedFinish >= 0)
      json.member("predicted_finish", step.predictedFinish);
    json.endObject();
  }
  json.endArray();
  json.endObject();
  json.finish();
  return true;
}
