//===- Describe.cpp - Print what an artifact holds ------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// `orchestra-run --describe`: the plan of an artifact without running it
// (no driver needed): its devices, memory, entry, kernels and steps, and for
// each GPU module bundle the modules and every launch with its grid, block,
// shared memory and parameters, tensor maps included.
//
//===----------------------------------------------------------------------===//

#include "Describe.h"

#include "orchestra_rt/Artifact.h"
#include "orchestra_rt/GpuBundle.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

#include <string>

using namespace orx;

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
  }
  return "?";
}

static void describeBundle(const BinaryDesc &binary, llvm::raw_ostream &os) {
  GpuBundle bundle;
  std::string error;
  if (!parseGpuBundle(binary.data.data(), binary.data.size(), bundle, error)) {
    os << "    invalid: " << error << "\n";
    return;
  }
  os << "    chip " << bundle.chip << "\n";
  for (size_t i = 0; i < bundle.modules.size(); ++i) {
    const GpuModuleDesc &module = bundle.modules[i];
    os << "    module " << i << " '" << module.name
       << "': " << module.image.size() << " bytes of cubin, "
       << module.ptx.size() << " bytes of PTX\n";
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
      os << llvm::formatv("      launch {0}: {1} of module {2}, grid "
                          "{3}x{4}x{5}, block {6}x{7}x{8}, {9} B of dynamic "
                          "shared memory\n",
                          i, launch.function, launch.module, launch.grid[0],
                          launch.grid[1], launch.grid[2], launch.block[0],
                          launch.block[1], launch.block[2],
                          launch.dynamicSharedBytes);
      for (size_t j = 0; j < launch.args.size(); ++j)
        os << "        param " << j << ": " << describeArg(launch.args[j])
           << "\n";
    }
  }
}

bool orchestra::dumpConstants(const std::string &path, const std::string &dir,
                              std::string &error) {
  Artifact artifact;
  if (!readArtifactFile(path, artifact, error))
    return false;
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    error = "cannot create '" + dir + "': " + ec.message();
    return false;
  }
  for (const ConstantDesc &constant : artifact.constants) {
    llvm::SmallString<128> file(dir);
    llvm::sys::path::append(file,
                            "value_" + std::to_string(constant.value) + ".bin");
    std::error_code ec;
    llvm::raw_fd_ostream os(file, ec);
    if (ec) {
      error = "cannot write '" + file.str().str() + "': " + ec.message();
      return false;
    }
    os.write(reinterpret_cast<const char *>(constant.data.data()),
             constant.data.size());
  }
  return true;
}

bool orchestra::describeArtifact(const std::string &path, llvm::raw_ostream &os,
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
       << " thread(s)\n";
  }
  for (size_t i = 0; i < artifact.memorySpaces.size(); ++i) {
    const MemorySpaceDesc &space = artifact.memorySpaces[i];
    os << "memory " << i << " '" << space.name << "' of device " << space.device
       << ": " << space.arenaBytes << " B\n";
  }
  auto tensor = [](const TensorDesc &desc) {
    std::string text = desc.name + ": " + dtypeName(desc.dtype) + "[";
    for (size_t i = 0; i < desc.shape.size(); ++i)
      text += (i ? "x" : "") + std::to_string(desc.shape[i]);
    return text + "]";
  };
  os << "entry '" << artifact.entryName << "'\n";
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
  }
  for (size_t i = 0; i < artifact.kernels.size(); ++i)
    os << "kernel " << i << ": " << artifact.kernels[i].symbol << " in binary "
       << artifact.kernels[i].binary << "\n";
  for (size_t i = 0; i < artifact.steps.size(); ++i) {
    const StepDesc &step = artifact.steps[i];
    os << "step " << i << " on device " << step.device << ": ";
    if (step.kind == StepKind::Launch) {
      os << "launch kernel " << step.kernel << " '" << step.name << "' (";
      for (size_t j = 0; j < step.args.size(); ++j)
        os << (j ? ", " : "") << (j < step.numInputs ? "in " : "out ")
           << step.args[j];
      os << ")";
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
