//===- PjrtDevice.cpp - A device behind a PJRT plugin ---------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The `pjrt` driver: runs the StableHLO programs of a PJRT program bundle
// (PjrtBundle.h) through the PJRT C API plugin the bundle names
// (PjrtPlugin.h), on the client's addressable device numbered
// DeviceDesc::deviceId.
//
// This first version is a synchronous device whose arenas are host memory:
// a value lives in host memory between tasks, and each launch copies the
// step's inputs to the device, runs the compiled program, copies its results
// back into their slots and waits for all of it before it returns. That is
// correct on any plugin and lets the device share values with the CPU
// without copy steps, but moves every value across the host link once per
// task; keeping values in device buffers between the tasks of one device is
// future work (an asynchronous device whose arenas are PJRT buffers).
//
// The plugin is opened, initialised and its client created when a session
// first prepares one of the device's kernels (a plan that leaves the device
// idle never loads it); each kernel's program is compiled once per device.
//
//===----------------------------------------------------------------------===//

#include "PjrtPlugin.h"
#include "hal/Device.h"
#include "hal/HostMemory.h"
#include "orchestra_rt/PjrtBundle.h"

#include <algorithm>
#include <cstring>
#include <map>

using namespace orx;

/// CompileOptionsProto{executable_build_options{num_replicas: 1
/// num_partitions: 1} compile_portable_executable: true}, for kernels whose
/// bundle gives no options. Plugins reject (or abort on) options without a
/// replica and partition count; a portable executable runs on the device
/// Execute names (DeviceDesc::deviceId), not only on the default
/// assignment's device 0.
static constexpr uint8_t kDefaultCompileOptions[] = {0x1a, 0x04, 0x20, 0x01,
                                                     0x28, 0x01, 0x20, 0x01};

/// "1 result", "2 results".
static std::string countOf(size_t n, const std::string &noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

static PJRT_Buffer_Type toPjrtType(DType type) {
  switch (type) {
  case DType::F32:
    return PJRT_Buffer_Type_F32;
  case DType::F64:
    return PJRT_Buffer_Type_F64;
  case DType::F16:
    return PJRT_Buffer_Type_F16;
  case DType::BF16:
    return PJRT_Buffer_Type_BF16;
  case DType::I1:
    return PJRT_Buffer_Type_PRED;
  case DType::I8:
    return PJRT_Buffer_Type_S8;
  case DType::I16:
    return PJRT_Buffer_Type_S16;
  case DType::I32:
    return PJRT_Buffer_Type_S32;
  case DType::I64:
    return PJRT_Buffer_Type_S64;
  case DType::U8:
    return PJRT_Buffer_Type_U8;
  case DType::U16:
    return PJRT_Buffer_Type_U16;
  case DType::U32:
    return PJRT_Buffer_Type_U32;
  case DType::U64:
    return PJRT_Buffer_Type_U64;
  }
  return PJRT_Buffer_Type_INVALID;
}

/// Destroys a compiled program, ignoring errors (during clean-up).
static void destroyExecutable(const PjrtPlugin &plugin,
                              PJRT_LoadedExecutable *executable) {
  PJRT_LoadedExecutable_Destroy_Args args =
      ORX_PJRT_ARGS(PJRT_LoadedExecutable_Destroy_Args);
  args.executable = executable;
  std::string ignored;
  plugin.check(plugin.api->PJRT_LoadedExecutable_Destroy(&args),
               "PJRT_LoadedExecutable_Destroy", ignored, "");
}

namespace {

/// A kernel's program compiled for one device.
struct PjrtExecutable {
  /// Owned by the device's parsed bundle.
  const PjrtKernelDesc *desc = nullptr;
  PJRT_LoadedExecutable *executable = nullptr;
};

/// One step's executable and the slots of its values.
struct PjrtLaunch final : hal::PreparedLaunch {
  const PjrtExecutable *executable = nullptr;
  /// Inputs, then outputs: host addresses.
  std::vector<void *> buffers;
  /// "kernel 'orx_kernel_matmul' on device 'tpu0' (google_tpu_v5e)", for
  /// errors (which the session prefixes with the step).
  std::string name;
};

/// The device buffers of one launch, destroyed when it returns.
struct LaunchBuffers {
  explicit LaunchBuffers(const PjrtPlugin &plugin) : plugin(plugin) {}
  ~LaunchBuffers() {
    for (PJRT_Buffer *buffer : inputs)
      plugin.destroy(buffer);
    for (PJRT_Buffer *buffer : outputs)
      plugin.destroy(buffer);
  }
  const PjrtPlugin &plugin;
  std::vector<PJRT_Buffer *> inputs;
  std::vector<PJRT_Buffer *> outputs;
};

class PjrtDevice final : public hal::Device {
public:
  explicit PjrtDevice(const DeviceDesc &desc)
      : desc(desc),
        description("device '" + desc.name + "' (" + desc.arch + ")") {}

  ~PjrtDevice() override {
    // The programs go before the client that compiled them.
    for (const auto &entry : executables)
      destroyExecutable(client->getPlugin(), entry.second->executable);
    executables.clear();
    client.reset();
  }

  const std::string &getDriverName() const override {
    static const std::string name = kPjrtDriverName;
    return name;
  }
  const std::string &getDescription() const override { return description; }
  bool isHostMemory() const override { return true; }
  bool isAsynchronous() const override { return false; }

  bool allocate(uint64_t bytes, const std::string &what, void *&out,
                std::string &error) override {
    return arenas.allocate(bytes, what, out, error);
  }

  bool upload(void *destination, const void *source, size_t bytes,
              std::string &) override {
    std::memcpy(destination, source, bytes);
    return true;
  }

  std::unique_ptr<hal::PreparedLaunch>
  prepareLaunch(const Artifact &artifact, uint32_t kernelIndex,
                const std::vector<void *> &buffers, const std::string &step,
                std::string &error) override;

  bool launch(hal::PreparedLaunch &launch, const hal::StepEvents &events,
              std::string &error) override;

  bool copyAndWait(hal::Memory destination, hal::Memory source, size_t bytes,
                   std::string &error) override {
    return hal::copyHostMemory(description, destination, source, bytes, error);
  }

private:
  /// Opens the plugin `bundle` names and gets its client and this device's
  /// PJRT device, once; later bundles must name the same plugin.
  bool connect(const PjrtBundle &bundle, uint32_t binaryIndex,
               std::string &error);
  /// Compiles `kernel` of kernel binary `binaryIndex`, once.
  const PjrtExecutable *compile(const PjrtKernelDesc &kernel,
                                uint32_t binaryIndex, std::string &error);

  DeviceDesc desc;
  std::string description;
  std::string ignored;
  /// The arenas, host memory (see the file comment).
  hal::HostArenas arenas;
  /// The parsed bundles by kernel binary index.
  std::map<uint32_t, std::unique_ptr<PjrtBundle>> bundles;
  /// Null until a kernel is prepared.
  std::shared_ptr<PjrtClient> client;
  PJRT_Device *device = nullptr;
  /// Compiled kernels by (kernel binary index, symbol).
  std::map<std::pair<uint32_t, std::string>, std::unique_ptr<PjrtExecutable>>
      executables;
};

} // namespace

bool PjrtDevice::connect(const PjrtBundle &bundle, uint32_t binaryIndex,
                         std::string &error) {
  std::string path;
  if (!resolvePjrtPluginPath(bundle.plugin, description, path, error))
    return false;
  if (client) {
    if (client->getPlugin().path == path)
      return true;
    error = "kernel binary " + std::to_string(binaryIndex) +
            " needs the PJRT plugin '" + path + "', but " + description +
            " already runs on '" + client->getPlugin().path + "'";
    return false;
  }
  const PjrtPlugin *plugin = PjrtPlugin::get(path, description, error);
  if (!plugin)
    return false;
  std::shared_ptr<PjrtClient> shared =
      PjrtClient::get(*plugin, description, error);
  if (!shared)
    return false;
  const std::vector<PJRT_Device *> &devices = shared->getDevices();
  if (desc.deviceId >= devices.size()) {
    size_t count = devices.size();
    error = description + " is PJRT device " + std::to_string(desc.deviceId) +
            ", but the " + shared->getPlatform() + " client of the " +
            plugin->describe() + " has " + std::to_string(count) + " device" +
            (count == 1 ? " (0)" : "s (0-" + std::to_string(count - 1) + ")");
    return false;
  }
  client = std::move(shared);
  device = devices[desc.deviceId];
  return true;
}

const PjrtExecutable *PjrtDevice::compile(const PjrtKernelDesc &kernel,
                                          uint32_t binaryIndex,
                                          std::string &error) {
  std::unique_ptr<PjrtExecutable> &cached =
      executables[{binaryIndex, kernel.symbol}];
  if (cached)
    return cached.get();
  const PjrtPlugin &plugin = client->getPlugin();
  const PJRT_Api &api = *plugin.api;
  std::string what = "cannot compile kernel '" + kernel.symbol +
                     "' of kernel binary " + std::to_string(binaryIndex) +
                     " for " + description + " with the " + plugin.describe();

  PJRT_LoadedExecutable *loaded = nullptr;
  // An executable compiled ahead of time for this platform (libtpu's, for a
  // TPU topology) is loaded as is; where the plugin refuses it (another
  // plugin version, another topology), the program is compiled instead.
  if (kernel.aotFormat == kPjrtExecutableFormatPrefix + client->getPlatform() &&
      ORX_PJRT_HAS(api, PJRT_Executable_DeserializeAndLoad)) {
    PJRT_Executable_DeserializeAndLoad_Args load =
        ORX_PJRT_ARGS(PJRT_Executable_DeserializeAndLoad_Args);
    load.client = client->getClient();
    load.serialized_executable =
        reinterpret_cast<const char *>(kernel.aotBinary.data());
    load.serialized_executable_size = kernel.aotBinary.size();
    std::string refused;
    if (plugin.check(api.PJRT_Executable_DeserializeAndLoad(&load),
                     "PJRT_Executable_DeserializeAndLoad", refused, what))
      loaded = load.loaded_executable;
  }
  if (!loaded) {
    PJRT_Program program = ORX_PJRT_ARGS(PJRT_Program);
    // The plugin only reads the code.
    program.code = const_cast<char *>(
        reinterpret_cast<const char *>(kernel.program.data()));
    program.code_size = kernel.program.size();
    program.format = kernel.programFormat.data();
    program.format_size = kernel.programFormat.size();
    PJRT_Client_Compile_Args args = ORX_PJRT_ARGS(PJRT_Client_Compile_Args);
    args.client = client->getClient();
    args.program = &program;
    const uint8_t *options = kernel.compileOptions.data();
    size_t optionsSize = kernel.compileOptions.size();
    if (kernel.compileOptions.empty()) {
      options = kDefaultCompileOptions;
      optionsSize = sizeof(kDefaultCompileOptions);
    }
    args.compile_options = reinterpret_cast<const char *>(options);
    args.compile_options_size = optionsSize;
    if (!plugin.check(api.PJRT_Client_Compile(&args), "PJRT_Client_Compile",
                      error, what)) {
      if (!plugin.stablehloCurrentVersion.empty())
        error += " (the plugin reads StableHLO " +
                 (plugin.stablehloMinimumVersion.empty()
                      ? std::string("up to ")
                      : plugin.stablehloMinimumVersion + " to ") +
                 plugin.stablehloCurrentVersion + ")";
      executables.erase({binaryIndex, kernel.symbol});
      return nullptr;
    }
    loaded = args.executable;
  }
  // Cached only once it passes the checks below.
  auto reject = [&]() -> const PjrtExecutable * {
    destroyExecutable(plugin, loaded);
    executables.erase({binaryIndex, kernel.symbol});
    return nullptr;
  };

  // The bundle's results must be the program's.
  PJRT_LoadedExecutable_GetExecutable_Args get =
      ORX_PJRT_ARGS(PJRT_LoadedExecutable_GetExecutable_Args);
  get.loaded_executable = loaded;
  if (!plugin.check(api.PJRT_LoadedExecutable_GetExecutable(&get),
                    "PJRT_LoadedExecutable_GetExecutable", error, what))
    return reject();
  PJRT_Executable_NumOutputs_Args outputs =
      ORX_PJRT_ARGS(PJRT_Executable_NumOutputs_Args);
  outputs.executable = get.executable;
  bool counted = plugin.check(api.PJRT_Executable_NumOutputs(&outputs),
                              "PJRT_Executable_NumOutputs", error, what);
  PJRT_Executable_Destroy_Args destroy =
      ORX_PJRT_ARGS(PJRT_Executable_Destroy_Args);
  destroy.executable = get.executable;
  plugin.check(api.PJRT_Executable_Destroy(&destroy), "PJRT_Executable_Destroy",
               ignored, what);
  if (!counted)
    return reject();
  if (outputs.num_outputs != kernel.results.size()) {
    error = "kernel '" + kernel.symbol + "' of kernel binary " +
            std::to_string(binaryIndex) + " declares " +
            countOf(kernel.results.size(), "result") +
            ", but its program returns " + std::to_string(outputs.num_outputs);
    return reject();
  }
  cached = std::make_unique<PjrtExecutable>();
  cached->desc = &kernel;
  cached->executable = loaded;
  return cached.get();
}

std::unique_ptr<hal::PreparedLaunch>
PjrtDevice::prepareLaunch(const Artifact &artifact, uint32_t kernelIndex,
                          const std::vector<void *> &buffers,
                          const std::string &step, std::string &error) {
  const KernelDesc &kernel = artifact.kernels[kernelIndex];
  const BinaryDesc &binary = artifact.binaries[kernel.binary];
  if (!isPjrtBundle(binary)) {
    error = hal::describeForeignBinary(step, description, kernel, binary,
                                       "a PJRT program bundle");
    return nullptr;
  }
  if (binary.arch != desc.arch) {
    error = "kernel binary " + std::to_string(kernel.binary) +
            " is for arch '" + binary.arch + "', device '" + desc.name +
            "' is '" + desc.arch + "'";
    return nullptr;
  }
  std::unique_ptr<PjrtBundle> &bundle = bundles[kernel.binary];
  if (!bundle) {
    auto parsed = std::make_unique<PjrtBundle>();
    if (!parsePjrtBundleBinary(binary, kernel.binary, *parsed, error)) {
      bundles.erase(kernel.binary);
      return nullptr;
    }
    bundle = std::move(parsed);
  }
  const PjrtKernelDesc *kernelDesc = bundle->lookupKernel(kernel.symbol);
  if (!kernelDesc) {
    error = "kernel '" + kernel.symbol + "' is not defined in kernel binary " +
            std::to_string(kernel.binary);
    return nullptr;
  }
  size_t expected = kernelDesc->args.size() + kernelDesc->results.size();
  if (buffers.size() != expected) {
    error = step + " passes " + countOf(buffers.size(), "value") +
            " to kernel '" + kernel.symbol + "', whose program takes " +
            countOf(kernelDesc->args.size(), "argument") + " and returns " +
            countOf(kernelDesc->results.size(), "result");
    return nullptr;
  }
  if (!connect(*bundle, kernel.binary, error))
    return nullptr;
  auto result = std::make_unique<PjrtLaunch>();
  result->executable = compile(*kernelDesc, kernel.binary, error);
  if (!result->executable)
    return nullptr;
  result->buffers = buffers;
  result->name = "kernel '" + kernel.symbol + "' on " + description;
  return result;
}

bool PjrtDevice::launch(hal::PreparedLaunch &prepared, const hal::StepEvents &,
                        std::string &error) {
  auto &launch = static_cast<PjrtLaunch &>(prepared);
  const PjrtKernelDesc &kernel = *launch.executable->desc;
  const PjrtPlugin &plugin = client->getPlugin();
  const PJRT_Api &api = *plugin.api;
  LaunchBuffers buffers(plugin);

  for (size_t i = 0; i < kernel.args.size(); ++i) {
    const PjrtTensorDesc &tensor = kernel.args[i];
    PJRT_Client_BufferFromHostBuffer_Args args =
        ORX_PJRT_ARGS(PJRT_Client_BufferFromHostBuffer_Args);
    args.client = client->getClient();
    args.data = launch.buffers[i];
    args.type = toPjrtType(tensor.elementType);
    args.dims = tensor.dims.data();
    args.num_dims = tensor.dims.size();
    // The slot may change once the copy is done: the next task may write it.
    args.host_buffer_semantics =
        PJRT_HostBufferSemantics_kImmutableUntilTransferCompletes;
    args.device = device;
    std::string what = launch.name + ": argument " + std::to_string(i);
    if (!plugin.check(api.PJRT_Client_BufferFromHostBuffer(&args),
                      "PJRT_Client_BufferFromHostBuffer", error, what))
      return false;
    buffers.inputs.push_back(args.buffer);
    if (!plugin.await(args.done_with_host_buffer, "the copy to the device",
                      error, what))
      return false;
  }

  buffers.outputs.assign(kernel.results.size(), nullptr);
  PJRT_ExecuteOptions options = ORX_PJRT_ARGS(PJRT_ExecuteOptions);
  PJRT_Buffer *const *argumentLists[1] = {buffers.inputs.data()};
  PJRT_Buffer **outputLists[1] = {buffers.outputs.data()};
  PJRT_Event *completed[1] = {nullptr};
  PJRT_LoadedExecutable_Execute_Args execute =
      ORX_PJRT_ARGS(PJRT_LoadedExecutable_Execute_Args);
  execute.executable = launch.executable->executable;
  execute.options = &options;
  execute.argument_lists = argumentLists;
  execute.num_devices = 1;
  execute.num_args = buffers.inputs.size();
  execute.output_lists = outputLists;
  execute.device_complete_events = completed;
  execute.execute_device = device;
  if (!plugin.check(api.PJRT_LoadedExecutable_Execute(&execute),
                    "PJRT_LoadedExecutable_Execute", error, launch.name) ||
      !plugin.await(completed[0], "the execution", error, launch.name))
    return false;

  size_t firstOutput = kernel.args.size();
  for (size_t i = 0; i < kernel.results.size(); ++i) {
    std::string what = launch.name + ": result " + std::to_string(i);
    // Row-major on the host, whatever layout the device chose for the
    // result (a TPU may keep a matrix column-major or tiled): dimension
    // rank-1 is the most minor.
    size_t rank = kernel.results[i].dims.size();
    std::vector<int64_t> minorToMajor(rank);
    for (size_t d = 0; d < rank; ++d)
      minorToMajor[d] = static_cast<int64_t>(rank - 1 - d);
    PJRT_Buffer_MemoryLayout rowMajor = ORX_PJRT_ARGS(PJRT_Buffer_MemoryLayout);
    rowMajor.type = PJRT_Buffer_MemoryLayout_Type_Tiled;
    rowMajor.tiled = ORX_PJRT_ARGS(PJRT_Buffer_MemoryLayout_Tiled);
    rowMajor.tiled.minor_to_major = minorToMajor.data();
    rowMajor.tiled.minor_to_major_size = rank;
    PJRT_Buffer_ToHostBuffer_Args query =
        ORX_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args);
    query.src = buffers.outputs[i];
    query.host_layout = &rowMajor;
    if (!plugin.check(api.PJRT_Buffer_ToHostBuffer(&query),
                      "PJRT_Buffer_ToHostBuffer", error, what))
      return false;
    size_t bytes = kernel.results[i].byteSize();
    if (query.dst_size != bytes) {
      error = what + " has " + std::to_string(query.dst_size) +
              " bytes, but kernel '" + kernel.symbol + "' declares " +
              std::to_string(bytes);
      return false;
    }
    PJRT_Buffer_ToHostBuffer_Args copy =
        ORX_PJRT_ARGS(PJRT_Buffer_ToHostBuffer_Args);
    copy.src = buffers.outputs[i];
    copy.host_layout = &rowMajor;
    copy.dst = launch.buffers[firstOutput + i];
    copy.dst_size = bytes;
    if (!plugin.check(api.PJRT_Buffer_ToHostBuffer(&copy),
                      "PJRT_Buffer_ToHostBuffer", error, what) ||
        !plugin.await(copy.event, "the copy to the host", error, what))
      return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

static std::unique_ptr<hal::Device> createPjrtDevice(const DeviceDesc &desc,
                                                     std::string &) {
  // The plugin is opened when a kernel needs it (see prepareLaunch).
  return std::make_unique<PjrtDevice>(desc);
}

namespace orx::hal {
void registerPjrtDriver();
} // namespace orx::hal

void orx::hal::registerPjrtDriver() {
  registerDriver(kPjrtDriverName, createPjrtDevice);
}
