//===- PjrtPlugin.cpp - A PJRT C API plugin, loaded at run time -----------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "PjrtPlugin.h"
#include "hal/Device.h"

#include <cctype>
#include <cstdlib>
#include <map>
#include <mutex>

#include <dlfcn.h>
#include <unistd.h>

using namespace orx;

//===----------------------------------------------------------------------===//
// Finding the plugin
//===----------------------------------------------------------------------===//

/// The folder of the library this function is in (the runtime), or empty.
static std::string getRuntimeFolder() {
  Dl_info info;
  if (!::dladdr(reinterpret_cast<void *>(&getRuntimeFolder), &info) ||
      !info.dli_fname)
    return {};
  std::string path = info.dli_fname;
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

bool orx::resolvePjrtPluginPath(const std::string &named,
                                const std::string &requester, std::string &path,
                                std::string &error) {
  if (const char *override = std::getenv(kPjrtPluginVariable);
      override && *override) {
    path = override;
    return true;
  }
  if (named.empty()) {
    error = requester + " names no PJRT plugin: set " + kPjrtPluginVariable +
            " to the path of one";
    return false;
  }
  path = named;
  if (named.find('/') != std::string::npos)
    return true;
  std::string folder = getRuntimeFolder();
  if (!folder.empty() && ::access((folder + "/" + named).c_str(), R_OK) == 0)
    path = folder + "/" + named;
  return true;
}

//===----------------------------------------------------------------------===//
// PjrtPlugin
//===----------------------------------------------------------------------===//

namespace {
/// A plugin opened once: the plugin, or why it cannot be used.
struct LoadedPlugin {
  PjrtPlugin plugin;
  std::string failure;
};
} // namespace

/// The message of `failure` (which stays alive).
static std::string messageOf(const PJRT_Api &api, PJRT_Error *failure) {
  PJRT_Error_Message_Args args = ORX_PJRT_ARGS(PJRT_Error_Message_Args);
  args.error = failure;
  api.PJRT_Error_Message(&args);
  std::string message(args.message ? args.message : "",
                      args.message ? args.message_size : 0);
  // Messages are quoted mid-sentence: drop a final period and line breaks.
  while (!message.empty() &&
         (std::isspace(static_cast<unsigned char>(message.back())) ||
          message.back() == '.'))
    message.pop_back();
  return message.empty() ? "(no message)" : message;
}

static void destroyError(const PJRT_Api &api, PJRT_Error *failure) {
  PJRT_Error_Destroy_Args args = ORX_PJRT_ARGS(PJRT_Error_Destroy_Args);
  args.error = failure;
  api.PJRT_Error_Destroy(&args);
}

/// The first function the driver calls that `api` lacks, or null. The error
/// functions come first: without them no failure can be reported.
static const char *findMissingFunction(const PJRT_Api &api) {
#define ORX_PJRT_REQUIRE(field)                                                \
  if (!ORX_PJRT_HAS(api, field))                                               \
    return #field;
  ORX_PJRT_REQUIRE(PJRT_Error_Destroy)
  ORX_PJRT_REQUIRE(PJRT_Error_Message)
  ORX_PJRT_REQUIRE(PJRT_Plugin_Initialize)
  ORX_PJRT_REQUIRE(PJRT_Event_Destroy)
  ORX_PJRT_REQUIRE(PJRT_Event_Await)
  ORX_PJRT_REQUIRE(PJRT_Client_Create)
  ORX_PJRT_REQUIRE(PJRT_Client_Destroy)
  ORX_PJRT_REQUIRE(PJRT_Client_PlatformName)
  ORX_PJRT_REQUIRE(PJRT_Client_AddressableDevices)
  ORX_PJRT_REQUIRE(PJRT_Client_Compile)
  ORX_PJRT_REQUIRE(PJRT_Client_BufferFromHostBuffer)
  ORX_PJRT_REQUIRE(PJRT_Executable_Destroy)
  ORX_PJRT_REQUIRE(PJRT_Executable_NumOutputs)
  ORX_PJRT_REQUIRE(PJRT_LoadedExecutable_Destroy)
  ORX_PJRT_REQUIRE(PJRT_LoadedExecutable_GetExecutable)
  ORX_PJRT_REQUIRE(PJRT_LoadedExecutable_Execute)
  ORX_PJRT_REQUIRE(PJRT_Buffer_Destroy)
  ORX_PJRT_REQUIRE(PJRT_Buffer_ToHostBuffer)
#undef ORX_PJRT_REQUIRE
  return nullptr;
}

/// Reads the StableHLO versions the plugin reports, when it has attributes.
static void readAttributes(PjrtPlugin &plugin) {
  const PJRT_Api &api = *plugin.api;
  if (!ORX_PJRT_HAS(api, PJRT_Plugin_Attributes))
    return;
  PJRT_Plugin_Attributes_Args args = ORX_PJRT_ARGS(PJRT_Plugin_Attributes_Args);
  if (PJRT_Error *failure = api.PJRT_Plugin_Attributes(&args)) {
    destroyError(api, failure);
    return;
  }
  for (size_t i = 0; i < args.num_attributes; ++i) {
    const PJRT_NamedValue &value = args.attributes[i];
    std::string name(value.name, value.name_size);
    std::string *target =
        name == "stablehlo_current_version"   ? &plugin.stablehloCurrentVersion
        : name == "stablehlo_minimum_version" ? &plugin.stablehloMinimumVersion
                                              : nullptr;
    if (!target || value.type != PJRT_NamedValue_kInt64List)
      continue;
    for (size_t j = 0; j < value.value_size; ++j)
      *target += (j ? "." : "") + std::to_string(value.int64_array_value[j]);
  }
}

/// Checks the table of a freshly opened plugin and initialises it; returns
/// why it cannot be used, or an empty string.
static std::string initialize(PjrtPlugin &plugin, void *handle) {
  using GetPjrtApiFn = const PJRT_Api *(*)();
  auto getApi = reinterpret_cast<GetPjrtApiFn>(::dlsym(handle, "GetPjrtApi"));
  std::string what = "the PJRT plugin '" + plugin.path + "'";
  if (!getApi)
    return "'" + plugin.path +
           "' is not a PJRT plugin: it does not export GetPjrtApi";
  plugin.api = getApi();
  if (!plugin.api)
    return what + " returned no API table from GetPjrtApi";
  const PJRT_Api &api = *plugin.api;
  if (api.struct_size <
      offsetof(PJRT_Api, pjrt_api_version) + sizeof(PJRT_Api_Version))
    return what + " returned a " + std::to_string(api.struct_size) +
           "-byte API table, too small to hold a version";
  int major = api.pjrt_api_version.major_version;
  int minor = api.pjrt_api_version.minor_version;
  std::string version = std::to_string(major) + "." + std::to_string(minor);
  if (major != PJRT_API_MAJOR || minor < kPjrtMinimumMinorVersion)
    return what + " implements PJRT C API " + version +
           ", this runtime reads " + std::to_string(PJRT_API_MAJOR) + "." +
           std::to_string(kPjrtMinimumMinorVersion) +
           " and later minor "
           "versions of major version " +
           std::to_string(PJRT_API_MAJOR);
  if (const char *missing = findMissingFunction(api))
    return what + " (PJRT C API " + version + ") lacks " + missing;
  PJRT_Plugin_Initialize_Args args = ORX_PJRT_ARGS(PJRT_Plugin_Initialize_Args);
  std::string reason;
  if (!plugin.check(api.PJRT_Plugin_Initialize(&args), "PJRT_Plugin_Initialize",
                    reason, what))
    return reason;
  readAttributes(plugin);
  return {};
}

const PjrtPlugin *PjrtPlugin::get(const std::string &path,
                                  const std::string &requester,
                                  std::string &error) {
  // Never destroyed: sessions on other threads may still use a plugin while
  // static destructors run.
  static std::mutex *mutex = new std::mutex();
  static auto *loaded =
      new std::map<std::string, std::unique_ptr<LoadedPlugin>>();

  std::lock_guard<std::mutex> lock(*mutex);
  std::unique_ptr<LoadedPlugin> &entry = (*loaded)[path];
  if (!entry) {
    // Without it, the TPU plugin (libtpu) asks the cloud metadata server
    // about the machine and waits about 30 seconds per question where there
    // is none; with it, a machine without TPUs fails client creation at
    // once. An explicit setting wins.
    ::setenv("TPU_SKIP_MDS_QUERY", "1", /*overwrite=*/0);
    std::string reason;
    void *handle = hal::openVendorLibrary(path, reason);
    if (!handle) {
      loaded->erase(path);
      error = "cannot open the PJRT plugin '" + path + "' (" + reason + "); " +
              requester +
              " needs it (set $ORCHESTRA_PJRT_PLUGIN to the plugin's path)";
      return nullptr;
    }
    entry = std::make_unique<LoadedPlugin>();
    entry->plugin.path = path;
    entry->failure = initialize(entry->plugin, handle);
  }
  if (!entry->failure.empty()) {
    error = entry->failure + "; " + requester + " cannot use it";
    return nullptr;
  }
  return &entry->plugin;
}

std::string PjrtPlugin::describe() const {
  return "PJRT plugin '" + path + "' (C API " +
         std::to_string(api->pjrt_api_version.major_version) + "." +
         std::to_string(api->pjrt_api_version.minor_version) + ")";
}

bool PjrtPlugin::check(PJRT_Error *failure, const char *call,
                       std::string &error, const std::string &context) const {
  if (!failure)
    return true;
  error = context + ": " + call + " failed: " + messageOf(*api, failure);
  destroyError(*api, failure);
  return false;
}

bool PjrtPlugin::await(PJRT_Event *event, const char *what, std::string &error,
                       const std::string &context) const {
  if (!event)
    return true;
  PJRT_Event_Await_Args args = ORX_PJRT_ARGS(PJRT_Event_Await_Args);
  args.event = event;
  bool ok = check(api->PJRT_Event_Await(&args), what, error, context);
  destroy(event);
  return ok;
}

void PjrtPlugin::destroy(PJRT_Buffer *buffer) const {
  if (!buffer)
    return;
  PJRT_Buffer_Destroy_Args args = ORX_PJRT_ARGS(PJRT_Buffer_Destroy_Args);
  args.buffer = buffer;
  if (PJRT_Error *failure = api->PJRT_Buffer_Destroy(&args))
    destroyError(*api, failure);
}

void PjrtPlugin::destroy(PJRT_Event *event) const {
  if (!event)
    return;
  PJRT_Event_Destroy_Args args = ORX_PJRT_ARGS(PJRT_Event_Destroy_Args);
  args.event = event;
  if (PJRT_Error *failure = api->PJRT_Event_Destroy(&args))
    destroyError(*api, failure);
}

//===----------------------------------------------------------------------===//
// PjrtClient
//===----------------------------------------------------------------------===//

std::shared_ptr<PjrtClient> PjrtClient::get(const PjrtPlugin &plugin,
                                            const std::string &requester,
                                            std::string &error) {
  static std::mutex *mutex = new std::mutex();
  static auto *clients =
      new std::map<const PjrtPlugin *, std::weak_ptr<PjrtClient>>();

  std::lock_guard<std::mutex> lock(*mutex);
  if (std::shared_ptr<PjrtClient> client = (*clients)[&plugin].lock())
    return client;

  const PJRT_Api &api = *plugin.api;
  std::shared_ptr<PjrtClient> result(new PjrtClient(plugin));
  PJRT_Client_Create_Args create = ORX_PJRT_ARGS(PJRT_Client_Create_Args);
  std::string reason;
  if (!plugin.check(api.PJRT_Client_Create(&create), "PJRT_Client_Create",
                    reason, plugin.describe())) {
    error = "no device found: " + reason + "; " + requester +
            " needs a device of the plugin's platform";
    return nullptr;
  }
  result->client = create.client;

  PJRT_Client_PlatformName_Args name =
      ORX_PJRT_ARGS(PJRT_Client_PlatformName_Args);
  name.client = result->client;
  if (!plugin.check(api.PJRT_Client_PlatformName(&name),
                    "PJRT_Client_PlatformName", error, plugin.describe()))
    return nullptr;
  result->platform.assign(name.platform_name, name.platform_name_size);

  PJRT_Client_AddressableDevices_Args devices =
      ORX_PJRT_ARGS(PJRT_Client_AddressableDevices_Args);
  devices.client = result->client;
  if (!plugin.check(api.PJRT_Client_AddressableDevices(&devices),
                    "PJRT_Client_AddressableDevices", error, plugin.describe()))
    return nullptr;
  result->devices.assign(devices.addressable_devices,
                         devices.addressable_devices +
                             devices.num_addressable_devices);
  if (result->devices.empty()) {
    error = "no device found: the " + result->platform + " client of the " +
            plugin.describe() + " has no device this process can use; " +
            requester + " needs one";
    return nullptr;
  }
  (*clients)[&plugin] = result;
  return result;
}

PjrtClient::~PjrtClient() {
  if (!client)
    return;
  const PJRT_Api &api = *plugin.api;
  PJRT_Client_Destroy_Args args = ORX_PJRT_ARGS(PJRT_Client_Destroy_Args);
  args.client = client;
  if (PJRT_Error *failure = api.PJRT_Client_Destroy(&args))
    destroyError(api, failure);
}
