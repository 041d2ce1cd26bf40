//===- GpuBundle.cpp - The GPU module bundle of an artifact ---------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra_rt/GpuBundle.h"

#include "ByteIO.h"

using namespace orx;

static constexpr char kBundleMagic[8] = {'O', 'R', 'X',  'G',
                                         'P', 'U', '\0', '\0'};

const GpuKernelDesc *GpuBundle::lookupKernel(const std::string &symbol) const {
  for (const GpuKernelDesc &kernel : kernels)
    if (kernel.symbol == symbol)
      return &kernel;
  return nullptr;
}

const GpuImageDesc *GpuModuleDesc::lookupImage(const std::string &kind) const {
  for (const GpuImageDesc &image : images)
    if (image.kind == kind)
      return &image;
  return nullptr;
}

std::vector<uint8_t> orx::serializeGpuBundle(const GpuBundle &bundle) {
  ByteWriter w;
  w.bytes.assign(kBundleMagic, kBundleMagic + sizeof(kBundleMagic));
  w.u32(kGpuBundleVersion);
  w.str(bundle.chip);
  w.count(bundle.modules.size());
  for (const GpuModuleDesc &module : bundle.modules) {
    w.str(module.name);
    w.count(module.images.size());
    for (const GpuImageDesc &image : module.images) {
      w.str(image.kind);
      w.blob(image.data);
    }
    w.count(module.functions.size());
    for (const GpuFunctionDesc &function : module.functions) {
      w.str(function.name);
      w.count(function.resources.size());
      for (const auto &[key, value] : function.resources) {
        w.str(key);
        w.u64(value);
      }
    }
  }
  w.count(bundle.kernels.size());
  for (const GpuKernelDesc &kernel : bundle.kernels) {
    w.str(kernel.symbol);
    w.count(kernel.scratchBytes.size());
    for (uint64_t bytes : kernel.scratchBytes)
      w.u64(bytes);
    w.count(kernel.launches.size());
    for (const GpuLaunchDesc &launch : kernel.launches) {
      w.u32(launch.module);
      w.str(launch.function);
      for (uint32_t dim : launch.grid)
        w.u32(dim);
      for (uint32_t dim : launch.block)
        w.u32(dim);
      w.u32(launch.dynamicSharedBytes);
      w.count(launch.args.size());
      for (const GpuArgDesc &arg : launch.args) {
        w.u32(static_cast<uint32_t>(arg.kind));
        w.u64(arg.value);
        w.u32(arg.size);
        if (arg.kind != GpuArgKind::TensorMap)
          continue;
        const GpuTensorMapDesc &map = arg.tensorMap;
        w.u32(static_cast<uint32_t>(map.source));
        w.u32(map.sourceIndex);
        w.u32(map.dataType);
        w.u32(map.rank);
        for (uint64_t dim : map.globalDim)
          w.u64(dim);
        for (uint64_t stride : map.globalStrides)
          w.u64(stride);
        for (uint32_t dim : map.boxDim)
          w.u32(dim);
        for (uint32_t stride : map.elementStrides)
          w.u32(stride);
        w.u32(map.interleave);
        w.u32(map.swizzle);
        w.u32(map.l2Promotion);
        w.u32(map.oobFill);
      }
    }
    w.count(kernel.program.size());
    for (const GpuInstruction &instruction : kernel.program) {
      w.u32(static_cast<uint32_t>(instruction.op));
      w.u64(instruction.a);
      w.u64(instruction.b);
      w.u64(instruction.c);
    }
    w.u32(kernel.registers);
  }
  return std::move(w.bytes);
}

static constexpr size_t kMinModule = 4 + 4;
static constexpr size_t kMinImage = 4 + 8;
static constexpr size_t kMinFunction = 4 + 4;
static constexpr size_t kMinResource = 4 + 8;
static constexpr size_t kMinKernel = 4 + 4 + 4;
static constexpr size_t kMinLaunch = 4 + 4 + 12 + 12 + 4 + 4;
static constexpr size_t kMinArg = 4 + 8 + 4;
static constexpr size_t kMinInstruction = 4 + 3 * 8;

static std::string at(const std::string &prefix, const char *field, size_t i) {
  return prefix + field + "[" + std::to_string(i) + "]";
}

/// Reads and checks the tensor map of a TensorMap parameter.
static bool readTensorMap(ByteReader &r, GpuTensorMapDesc &map,
                          const GpuKernelDesc &kernel,
                          const std::string &what) {
  uint32_t source;
  if (!r.u32(source, what + ".source") ||
      !r.u32(map.sourceIndex, what + ".source_index") ||
      !r.u32(map.dataType, what + ".data_type") ||
      !r.u32(map.rank, what + ".rank"))
    return false;
  for (uint64_t &dim : map.globalDim)
    if (!r.u64(dim, what + ".global_dim"))
      return false;
  for (uint64_t &stride : map.globalStrides)
    if (!r.u64(stride, what + ".global_strides"))
      return false;
  for (uint32_t &dim : map.boxDim)
    if (!r.u32(dim, what + ".box_dim"))
      return false;
  for (uint32_t &stride : map.elementStrides)
    if (!r.u32(stride, what + ".element_strides"))
      return false;
  if (!r.u32(map.interleave, what + ".interleave") ||
      !r.u32(map.swizzle, what + ".swizzle") ||
      !r.u32(map.l2Promotion, what + ".l2_promotion") ||
      !r.u32(map.oobFill, what + ".oob_fill"))
    return false;
  if (source != static_cast<uint32_t>(GpuArgKind::Buffer) &&
      source != static_cast<uint32_t>(GpuArgKind::Scratch))
    return r.fail(what + ".source = " + std::to_string(source) +
                  " is not a buffer or scratch buffer");
  map.source = static_cast<GpuArgKind>(source);
  if (map.source == GpuArgKind::Scratch &&
      map.sourceIndex >= kernel.scratchBytes.size())
    return r.fail(what + " names scratch buffer " +
                  std::to_string(map.sourceIndex) + " of " +
                  std::to_string(kernel.scratchBytes.size()));
  if (map.rank < 1 || map.rank > 5)
    return r.fail(what + ".rank = " + std::to_string(map.rank) +
                  " (tensor maps have 1 to 5 dimensions)");
  for (uint32_t i = 0; i < map.rank; ++i) {
    if (map.globalDim[i] == 0)
      return r.fail(what + " has an empty dimension " + std::to_string(i));
    if (map.boxDim[i] == 0 || map.boxDim[i] > 256 ||
        map.boxDim[i] > map.globalDim[i])
      return r.fail(what + ".box_dim[" + std::to_string(i) +
                    "] = " + std::to_string(map.boxDim[i]) +
                    " (1 to 256, at most the dimension)");
    if (map.elementStrides[i] == 0 || map.elementStrides[i] > 8)
      return r.fail(what + ".element_strides[" + std::to_string(i) + "] = " +
                    std::to_string(map.elementStrides[i]) + " (1 to 8)");
    if (i > 0 && map.globalStrides[i - 1] % 16 != 0)
      return r.fail(what + ".global_strides[" + std::to_string(i - 1) +
                    "] = " + std::to_string(map.globalStrides[i - 1]) +
                    " bytes is not a multiple of 16");
  }
  return true;
}

static bool readLaunch(ByteReader &r, GpuLaunchDesc &launch,
                       const GpuKernelDesc &kernel, size_t numModules,
                       uint32_t version, const std::string &what) {
  if (!r.u32(launch.module, what + ".module") ||
      !r.str(launch.function, what + ".function"))
    return false;
  if (launch.module >= numModules)
    return r.fail(what + ".module = " + std::to_string(launch.module) +
                  " is out of range (" + std::to_string(numModules) +
                  " modules)");
  if (launch.function.empty())
    return r.fail(what + ".function is empty");
  uint64_t threads = 1;
  for (int i = 0; i < 3; ++i)
    if (!r.u32(launch.grid[i], what + ".grid"))
      return false;
  for (int i = 0; i < 3; ++i) {
    if (!r.u32(launch.block[i], what + ".block"))
      return false;
    threads *= launch.block[i];
  }
  for (int i = 0; i < 3; ++i)
    if (launch.grid[i] == 0 || launch.block[i] == 0)
      return r.fail(what + " has a zero grid or block size");
  if (threads > 1024)
    return r.fail(what + " has " + std::to_string(threads) +
                  " threads per block (at most 1024)");
  uint32_t n;
  if (!r.u32(launch.dynamicSharedBytes, what + ".dynamic_shared_bytes") ||
      !r.count(n, kMinArg, what + ".args"))
    return false;
  launch.args.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    GpuArgDesc &arg = launch.args[i];
    std::string argWhat = at(what, ".args", i);
    uint32_t kind;
    if (!r.u32(kind, argWhat + ".kind") || !r.u64(arg.value, argWhat) ||
        !r.u32(arg.size, argWhat + ".size"))
      return false;
    if (kind > static_cast<uint32_t>(GpuArgKind::Register) ||
        (version < 5 &&
         kind >= static_cast<uint32_t>(GpuArgKind::ProfileCounters)))
      return r.fail(argWhat + ".kind = " + std::to_string(kind) +
                    " is not a parameter kind of bundle version " +
                    std::to_string(version));
    arg.kind = static_cast<GpuArgKind>(kind);
    if (arg.kind == GpuArgKind::TensorMap &&
        !readTensorMap(r, arg.tensorMap, kernel, argWhat + ".tensor_map"))
      return false;
    if (arg.kind == GpuArgKind::Immediate ? (arg.size != 4 && arg.size != 8)
                                          : arg.size != 8)
      return r.fail(argWhat + ".size = " + std::to_string(arg.size) +
                    " is not a valid parameter size");
    if (arg.kind == GpuArgKind::Scratch &&
        arg.value >= kernel.scratchBytes.size())
      return r.fail(argWhat + " names scratch buffer " +
                    std::to_string(arg.value) + " of " +
                    std::to_string(kernel.scratchBytes.size()));
  }
  return true;
}

/// Reads and checks a kernel's program: launches, scratch buffers and
/// registers in range, loops that do not nest and end, exits inside loops,
/// and Register parameters only of registers the program has.
static bool readProgram(ByteReader &r, GpuKernelDesc &kernel,
                        const std::string &what) {
  uint32_t n;
  if (!r.count(n, kMinInstruction, what + ".program"))
    return false;
  kernel.program.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    GpuInstruction &instruction = kernel.program[i];
    std::string where = at(what, ".program", i);
    uint32_t op;
    if (!r.u32(op, where + ".op") || !r.u64(instruction.a, where) ||
        !r.u64(instruction.b, where) || !r.u64(instruction.c, where))
      return false;
    if (op > static_cast<uint32_t>(GpuOp::LoopEnd))
      return r.fail(where + ".op = " + std::to_string(op) +
                    " is not an instruction");
    instruction.op = static_cast<GpuOp>(op);
  }
  if (!r.u32(kernel.registers, what + ".registers"))
    return false;
  uint64_t scratch = kernel.scratchBytes.size();
  // A Buffer, Scratch or Register argument (b, c); buffers are checked
  // against the step's values when a launch is prepared.
  auto isSource = [&](const GpuInstruction &instruction) {
    if (instruction.b == static_cast<uint64_t>(GpuArgKind::Buffer))
      return true;
    if (instruction.b == static_cast<uint64_t>(GpuArgKind::Scratch))
      return instruction.c < scratch;
    if (instruction.b == static_cast<uint64_t>(GpuArgKind::Register))
      return instruction.c < kernel.registers;
    return false;
  };
  // Registers are set before they are read, in program order (so that no
  // launch ever gets an unset one).
  std::vector<bool> set(kernel.registers, false);
  auto isSet = [&](const GpuInstruction &instruction) {
    return instruction.b != static_cast<uint64_t>(GpuArgKind::Register) ||
           set[instruction.c];
  };
  auto launchReadsSet = [&](uint64_t index) {
    for (const GpuArgDesc &arg : kernel.launches[index].args)
      if (arg.kind == GpuArgKind::Register &&
          (arg.value >= kernel.registers || !set[arg.value]))
        return false;
    return true;
  };
  bool inLoop = false;
  for (uint32_t i = 0; i < n; ++i) {
    const GpuInstruction &instruction = kernel.program[i];
    bool ok = true;
    switch (instruction.op) {
    case GpuOp::Launch:
      ok = instruction.a < kernel.launches.size() &&
           launchReadsSet(instruction.a);
      break;
    case GpuOp::Set:
      ok = instruction.a < kernel.registers && isSource(instruction) &&
           isSet(instruction);
      if (ok)
        set[instruction.a] = true;
      break;
    case GpuOp::SetAlternating:
      ok = instruction.a < kernel.registers && instruction.b < scratch &&
           instruction.c < scratch;
      if (ok)
        set[instruction.a] = true;
      break;
    case GpuOp::LoopBegin:
      ok = !inLoop && instruction.b <= 1;
      inLoop = true;
      break;
    case GpuOp::ExitUnless:
      ok = inLoop && isSource(instruction) && isSet(instruction);
      break;
    case GpuOp::LoopEnd:
      ok = inLoop;
      inLoop = false;
      break;
    }
    if (!ok)
      return r.fail(at(what, ".program", i) +
                    " is not a valid instruction here (a launch, scratch "
                    "buffer or register out of range, a register read "
                    "before it is set, a nested loop, or an exit or end "
                    "outside a loop)");
  }
  if (inLoop)
    return r.fail(what + ".program ends inside a loop");
  for (size_t l = 0; l < kernel.launches.size(); ++l)
    for (size_t a = 0; a < kernel.launches[l].args.size(); ++a) {
      const GpuArgDesc &arg = kernel.launches[l].args[a];
      if (arg.kind == GpuArgKind::Register && arg.value >= kernel.registers)
        return r.fail(at(at(what, ".launches", l), ".args", a) +
                      " names register " + std::to_string(arg.value) + " of " +
                      std::to_string(kernel.registers));
    }
  return true;
}

bool orx::parseGpuBundle(const uint8_t *data, size_t size, GpuBundle &out,
                         std::string &error) {
  out = GpuBundle();
  if (size < sizeof(kBundleMagic) ||
      std::memcmp(data, kBundleMagic, sizeof(kBundleMagic)) != 0) {
    error = "not a GPU module bundle";
    return false;
  }
  ByteReader r(data + sizeof(kBundleMagic), size - sizeof(kBundleMagic));
  uint32_t version = 0, n = 0;
  if (r.u32(version, "version") &&
      (version < kGpuBundleMinVersion || version > kGpuBundleVersion))
    r.fail("GPU module bundle version " + std::to_string(version) +
           ", this runtime reads " + std::to_string(kGpuBundleMinVersion) +
           " to " + std::to_string(kGpuBundleVersion));
  if (r.ok() && r.str(out.chip, "chip") && r.count(n, kMinModule, "modules")) {
    out.modules.resize(n);
    for (uint32_t i = 0; i < n && r.ok(); ++i) {
      GpuModuleDesc &module = out.modules[i];
      std::string what = at("", "modules", i);
      uint32_t m = 0;
      if (!r.str(module.name, what + ".name") ||
          !r.count(m, kMinImage, what + ".images"))
        break;
      if (m == 0) {
        r.fail(what + " has no image");
        break;
      }
      module.images.resize(m);
      for (uint32_t j = 0; j < m && r.ok(); ++j) {
        GpuImageDesc &image = module.images[j];
        std::string imageWhat = at(what, ".images", j);
        if (r.str(image.kind, imageWhat + ".kind") &&
            r.blob(image.data, imageWhat + ".data") && image.kind.empty())
          r.fail(imageWhat + ".kind is empty");
      }
      uint32_t f = 0;
      if (!r.ok() || !r.count(f, kMinFunction, what + ".functions"))
        break;
      module.functions.resize(f);
      for (uint32_t j = 0; j < f && r.ok(); ++j) {
        GpuFunctionDesc &function = module.functions[j];
        std::string functionWhat = at(what, ".functions", j);
        uint32_t k = 0;
        if (!r.str(function.name, functionWhat + ".name") ||
            !r.count(k, kMinResource, functionWhat + ".resources"))
          break;
        function.resources.resize(k);
        for (uint32_t l = 0; l < k && r.ok(); ++l)
          if (r.str(function.resources[l].first, functionWhat + ".resources"))
            r.u64(function.resources[l].second, functionWhat + ".resources");
      }
    }
  }
  if (r.ok() && r.count(n, kMinKernel, "kernels")) {
    out.kernels.resize(n);
    for (uint32_t i = 0; i < n && r.ok(); ++i) {
      GpuKernelDesc &kernel = out.kernels[i];
      std::string what = at("", "kernels", i);
      uint32_t m;
      if (!r.str(kernel.symbol, what + ".symbol") ||
          !r.count(m, 8, what + ".scratch"))
        break;
      kernel.scratchBytes.resize(m);
      for (uint32_t j = 0; j < m; ++j)
        r.u64(kernel.scratchBytes[j], what + ".scratch");
      if (!r.count(m, kMinLaunch, what + ".launches"))
        break;
      kernel.launches.resize(m);
      for (uint32_t j = 0; j < m && r.ok(); ++j)
        readLaunch(r, kernel.launches[j], kernel, out.modules.size(), version,
                   at(what, ".launches", j));
      if (version >= 5 && r.ok())
        readProgram(r, kernel, what);
    }
  }
  if (r.ok() && r.remaining() != 0)
    r.fail(std::to_string(r.remaining()) +
           " bytes follow the last kernel of the GPU module bundle");
  if (!r.ok()) {
    error = "GPU module bundle: " + r.error;
    return false;
  }
  return true;
}

bool orx::isGpuBundle(const BinaryDesc &binary) {
  return binary.format == kGpuBundleFormat;
}

bool orx::parseGpuBundleBinary(const BinaryDesc &binary, size_t index,
                               GpuBundle &out, std::string &error) {
  std::string what = "kernel binary " + std::to_string(index);
  if (!isGpuBundle(binary)) {
    error = what + " has format '" + binary.format + "', not '" +
            kGpuBundleFormat + "'";
    return false;
  }
  std::string reason;
  if (parseGpuBundle(binary.data.data(), binary.data.size(), out, reason))
    return true;
  error = what + " (" + std::to_string(binary.data.size()) +
          " bytes) is invalid: " + reason;
  return false;
}
