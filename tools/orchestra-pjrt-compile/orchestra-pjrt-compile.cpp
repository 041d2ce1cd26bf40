//===- orchestra-pjrt-compile.cpp - Ahead-of-time PJRT compilation --------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Compiles StableHLO programs (portable artifacts or text) for a device
// topology through a PJRT plugin's topology API, without the devices: the
// plugin describes the topology (PJRT_TopologyDescription_Create), compiles
// each program for it (PJRT_Compile, no client) and serializes the
// executable (PJRT_Executable_Serialize), which a host of that topology
// loads without compiling (PJRT_Executable_DeserializeAndLoad). libtpu does
// this for TPU v5e on a machine without a TPU. orchestra-stablehlo-emit-binary
// runs it for the devices whose `tpu_aot` key asks for it; one run compiles
// every kernel of a kernel module.
//
//   orchestra-pjrt-compile --topology v5e:1x1 [--plugin libtpu.so]
//                          kernel.mlirbc=kernel.tpu ...
//   orchestra-pjrt-compile --plugin PLUGIN.so --stablehlo-version
//
// The second form prints the newest StableHLO version the plugin reads (its
// stablehlo_current_version attribute), the version the compiler writes
// portable artifacts for when a device's stablehlo_version is "plugin".
//
// Exit status: 0; 1 with a message on stderr; 3 when no plugin is given and
// none is configured or found (the compiler then leaves the programs to be
// compiled on the device's host).
//
//===----------------------------------------------------------------------===//

#include "PjrtPlugin.h"
#include "orchestra/Support/AtomicFile.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

using namespace orx;

namespace {
constexpr const char *kTool = "orchestra-pjrt-compile";
constexpr int kNoPlugin = 3;
/// CompileOptionsProto{executable_build_options{num_replicas: 1
/// num_partitions: 1} compile_portable_executable: true}: what the pjrt
/// driver compiles with (a portable executable runs on the device the
/// launch names).
constexpr char kCompileOptions[] = {0x1a, 0x04, 0x20, 0x01,
                                    0x28, 0x01, 0x20, 0x01};

int fail(const std::string &message) {
  std::cerr << kTool << ": error: " << message << "\n";
  return 1;
}

void printUsage(std::ostream &os) {
  os << "usage: " << kTool
     << " --topology NAME [--plugin PLUGIN.so] PROGRAM=EXECUTABLE...\n"
     << "       " << kTool
     << " --plugin PLUGIN.so --stablehlo-version\n\n"
        "Compiles each StableHLO PROGRAM (a portable artifact or text) for "
        "the device\ntopology NAME through the PJRT plugin's topology API, "
        "without the devices, and\nwrites the serialized executable to "
        "EXECUTABLE.\n\n"
        "  --topology NAME   the plugin's topology name (libtpu: "
        "v5e:1x1, v5e:2x2, ...)\n"
        "  --plugin PATH     the PJRT plugin (default: $ORCHESTRA_LIBTPU, "
        "else the libtpu\n"
        "                    of the build's .venv-xla)\n"
        "  --stablehlo-version\n"
        "                    print the newest StableHLO version the plugin "
        "reads\n\n"
        "Exit status: 0; 1 on an error; 3 when no plugin is given or "
        "found.\n";
}

bool readFile(const std::string &path, std::string &bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  bytes.assign(std::istreambuf_iterator<char>(in),
               std::istreambuf_iterator<char>());
  return !in.bad();
}

bool writeFile(const std::string &path, const char *data, size_t size) {
  std::string error;
  return orchestra::writeFileAtomically(path, data, size, error);
}

/// libtpu's topology names are "<generation>:<X>x<Y>[x<Z>]"; the chips of
/// one host default to 2x2x1, which a smaller topology cannot be divided
/// into: such a topology is one host of exactly its chips.
std::vector<int64_t> getChipsPerHost(const std::string &topology) {
  size_t colon = topology.find(':');
  if (colon == std::string::npos)
    return {};
  std::vector<int64_t> dims;
  std::stringstream stream(topology.substr(colon + 1));
  std::string part;
  while (std::getline(stream, part, 'x')) {
    char *end = nullptr;
    long long value = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end || value <= 0)
      return {};
    dims.push_back(value);
  }
  if (dims.size() < 2 || dims.size() > 3)
    return {};
  dims.resize(3, 1);
  if (dims[0] * dims[1] * dims[2] >= 4)
    return {};
  return dims;
}

/// libtpu reads the machine it runs on from these variables (else from the
/// cloud metadata server, which PjrtPlugin::get turns off) and complains on
/// stderr when they are missing. Compiling for a topology, this process is
/// one host of it: set them when the caller did not.
void describeHostToLibtpu(const std::string &topology,
                          const std::vector<int64_t> &chipsPerHost) {
  ::setenv("TPU_WORKER_ID", "0", /*overwrite=*/0);
  ::setenv("TPU_WORKER_HOSTNAMES", "localhost", /*overwrite=*/0);
  int64_t chips = 4;
  if (!chipsPerHost.empty())
    chips = chipsPerHost[0] * chipsPerHost[1] * chipsPerHost[2];
  // Cloud TPU's accelerator type of one host of the generation.
  if (topology.rfind("v5e:", 0) == 0)
    ::setenv("TPU_ACCELERATOR_TYPE",
             ("v5litepod-" + std::to_string(chips)).c_str(), 0);
  else if (topology.rfind("v6e:", 0) == 0)
    ::setenv("TPU_ACCELERATOR_TYPE", ("v6e-" + std::to_string(chips)).c_str(),
             0);
}

/// Owns what the plugin returned, destroyed on every path.
struct Compilation {
  const PjrtPlugin &plugin;
  PJRT_TopologyDescription *topology = nullptr;

  ~Compilation() {
    if (!topology)
      return;
    PJRT_TopologyDescription_Destroy_Args args =
        ORX_PJRT_ARGS(PJRT_TopologyDescription_Destroy_Args);
    args.topology = topology;
    std::string ignored;
    plugin.check(plugin.api->PJRT_TopologyDescription_Destroy(&args),
                 "PJRT_TopologyDescription_Destroy", ignored, "");
  }

  /// Compiles `code` for the topology and returns the serialized
  /// executable in `out`.
  bool compile(const std::string &code, const std::string &what,
               std::string &out, std::string &error) {
    const PJRT_Api &api = *plugin.api;
    PJRT_Program program = ORX_PJRT_ARGS(PJRT_Program);
    program.code = const_cast<char *>(code.data());
    program.code_size = code.size();
    program.format = "mlir";
    program.format_size = 4;
    PJRT_Compile_Args args = ORX_PJRT_ARGS(PJRT_Compile_Args);
    args.topology = topology;
    args.program = &program;
    args.compile_options = kCompileOptions;
    args.compile_options_size = sizeof(kCompileOptions);
    args.client = nullptr;
    if (!plugin.check(api.PJRT_Compile(&args), "PJRT_Compile", error, what))
      return false;
    PJRT_Executable_Serialize_Args serialize =
        ORX_PJRT_ARGS(PJRT_Executable_Serialize_Args);
    serialize.executable = args.executable;
    bool serialized = plugin.check(api.PJRT_Executable_Serialize(&serialize),
                                   "PJRT_Executable_Serialize", error, what);
    if (serialized) {
      out.assign(serialize.serialized_bytes, serialize.serialized_bytes_size);
      if (serialize.serialized_executable_deleter)
        serialize.serialized_executable_deleter(
            serialize.serialized_executable);
    }
    PJRT_Executable_Destroy_Args destroy =
        ORX_PJRT_ARGS(PJRT_Executable_Destroy_Args);
    destroy.executable = args.executable;
    std::string ignored;
    plugin.check(api.PJRT_Executable_Destroy(&destroy),
                 "PJRT_Executable_Destroy", ignored, what);
    return serialized;
  }
};
} // namespace

int main(int argc, char **argv) {
  std::string topologyName, pluginPath;
  bool printVersion = false;
  std::vector<std::pair<std::string, std::string>> programs;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *flag) -> const char * {
      if (i + 1 >= argc) {
        fail(std::string(flag) + " needs a value");
        std::exit(1);
      }
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      printUsage(std::cout);
      return 0;
    }
    if (arg == "--topology")
      topologyName = value("--topology");
    else if (arg == "--plugin")
      pluginPath = value("--plugin");
    else if (arg == "--stablehlo-version")
      printVersion = true;
    else if (arg.rfind("-", 0) == 0)
      return fail("unknown option '" + arg + "' (see --help)");
    else {
      size_t equals = arg.find('=');
      if (equals == std::string::npos || equals == 0 ||
          equals + 1 == arg.size())
        return fail("expected PROGRAM=EXECUTABLE, got '" + arg + "'");
      programs.emplace_back(arg.substr(0, equals), arg.substr(equals + 1));
    }
  }
  if (printVersion) {
    if (pluginPath.empty())
      return fail("--stablehlo-version needs --plugin");
    std::string error;
    const PjrtPlugin *plugin = PjrtPlugin::get(pluginPath, kTool, error);
    if (!plugin)
      return fail(error);
    if (plugin->stablehloCurrentVersion.empty())
      return fail(plugin->describe() +
                  " does not report the StableHLO versions it reads");
    std::cout << plugin->stablehloCurrentVersion << "\n";
    return 0;
  }
  if (topologyName.empty())
    return fail("no --topology (libtpu: v5e:1x1, v5e:2x2, ...)");
  if (programs.empty())
    return fail("no PROGRAM=EXECUTABLE to compile");

  if (pluginPath.empty()) {
    const char *env = std::getenv("ORCHESTRA_LIBTPU");
    pluginPath = env && *env ? env : ORCHESTRA_DEFAULT_LIBTPU;
    if (pluginPath.empty() || ::access(pluginPath.c_str(), R_OK) != 0) {
      std::cerr << kTool
                << ": error: no TPU PJRT plugin: give --plugin, set "
                   "$ORCHESTRA_LIBTPU, or install libtpu into .venv-xla "
                   "(scripts/setup.sh)\n";
      return kNoPlugin;
    }
  }
  std::vector<int64_t> chipsPerHost = getChipsPerHost(topologyName);
  describeHostToLibtpu(topologyName, chipsPerHost);
  std::string error;
  // PjrtPlugin::get sets TPU_SKIP_MDS_QUERY=1: libtpu never waits on cloud
  // metadata servers.
  const PjrtPlugin *plugin = PjrtPlugin::get(pluginPath, kTool, error);
  if (!plugin)
    return fail(error);
  const PJRT_Api &api = *plugin->api;
  if (!ORX_PJRT_HAS(api, PJRT_TopologyDescription_Create) ||
      !ORX_PJRT_HAS(api, PJRT_Compile) ||
      !ORX_PJRT_HAS(api, PJRT_Executable_Serialize))
    return fail(plugin->describe() +
                " cannot compile ahead of time (no topology API)");

  Compilation compilation{*plugin};
  PJRT_NamedValue option = ORX_PJRT_ARGS(PJRT_NamedValue);
  PJRT_TopologyDescription_Create_Args create =
      ORX_PJRT_ARGS(PJRT_TopologyDescription_Create_Args);
  create.topology_name = topologyName.data();
  create.topology_name_size = topologyName.size();
  if (!chipsPerHost.empty()) {
    static constexpr char kName[] = "chips_per_host_bounds";
    option.name = kName;
    option.name_size = sizeof(kName) - 1;
    option.type = PJRT_NamedValue_kInt64List;
    option.int64_array_value = chipsPerHost.data();
    option.value_size = chipsPerHost.size();
    create.create_options = &option;
    create.num_options = 1;
  }
  if (!plugin->check(api.PJRT_TopologyDescription_Create(&create),
                     "PJRT_TopologyDescription_Create", error,
                     "topology '" + topologyName + "' of the " +
                         plugin->describe()))
    return fail(error);
  compilation.topology = create.topology;

  for (const auto &[input, output] : programs) {
    std::string code, executable;
    if (!readFile(input, code) || code.empty())
      return fail("cannot read the program '" + input + "'");
    if (!compilation.compile(code,
                             "cannot compile '" + input + "' for topology '" +
                                 topologyName + "' with the " +
                                 plugin->describe(),
                             executable, error))
      return fail(error);
    if (!writeFile(output, executable.data(), executable.size()))
      return fail("cannot write '" + output + "'");
  }
  return 0;
}
