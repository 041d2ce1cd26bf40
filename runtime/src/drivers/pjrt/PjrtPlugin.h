//===- PjrtPlugin.h - A PJRT C API plugin, loaded at run time ---*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// A PJRT plugin is a shared library exporting `GetPjrtApi`, which returns the
// table of the PJRT C API functions (pjrt_c_api.h, found at build time next
// to a plugin, never copied into the repository). The runtime never links
// one: the driver opens the plugin a kernel binary names with dlopen when a
// session first prepares one of its kernels, checks the table's version,
// initialises the plugin once per process and creates a client, which the
// devices using the plugin share.
//
// Every call takes an argument struct: the helpers here zero it and set its
// `struct_size` to the size this header knows, which is how the plugin tells
// which fields the caller set. Functions past the end of an older plugin's
// table are never called.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_DRIVERS_PJRT_PJRTPLUGIN_H
#define ORCHESTRA_RT_DRIVERS_PJRT_PJRTPLUGIN_H

#include "pjrt_c_api.h"

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace orx {

/// The name under which the driver registers (DeviceDesc::driver).
inline constexpr const char *kPjrtDriverName = "pjrt";

/// The environment variable naming the plugin to load (a path), which
/// overrides the plugin a kernel binary names.
inline constexpr const char *kPjrtPluginVariable = "ORCHESTRA_PJRT_PLUGIN";

/// The oldest C API minor version whose function table this driver reads:
/// 0.57 rearranged the fields of PJRT_Api.
inline constexpr int kPjrtMinimumMinorVersion = 57;

/// Returns a zeroed argument struct of type `T` whose struct_size is `size`
/// (use ORX_PJRT_ARGS).
template <typename T>
T makePjrtArgs(size_t size) {
  T args;
  std::memset(&args, 0, sizeof(args));
  args.struct_size = size;
  return args;
}
#define ORX_PJRT_ARGS(Type) ::orx::makePjrtArgs<Type>(Type##_STRUCT_SIZE)

/// Whether `api`'s table, of the plugin's own size, has function `field`.
#define ORX_PJRT_HAS(api, field)                                               \
  (offsetof(PJRT_Api, field) + sizeof(void *) <= (api).struct_size &&          \
   (api).field != nullptr)

/// Which plugin a kernel binary's devices load: $ORCHESTRA_PJRT_PLUGIN when
/// set, else `named` (the bundle's `plugin`): a path as is, a file name next
/// to the runtime library when there is one, else the name itself for the
/// dynamic loader to search. Returns false with `error` set when neither
/// names a plugin.
bool resolvePjrtPluginPath(const std::string &named,
                           const std::string &requester, std::string &path,
                           std::string &error);

/// A plugin library, opened and initialised once per process and never
/// closed (plugins do not support unloading, and their threads may outlive
/// any session).
struct PjrtPlugin {
  /// Returns the plugin at `path`. `requester` names the device that needs
  /// it in messages ("device 'tpu0' (google_tpu_v5e)"). Returns null with
  /// `error` set when the library cannot be opened, does not export
  /// GetPjrtApi, implements another major version or too old a minor one of
  /// the C API, lacks a function the driver calls, or fails to initialise.
  static const PjrtPlugin *get(const std::string &path,
                               const std::string &requester,
                               std::string &error);

  /// "PJRT plugin '/opt/plugins/pjrt_plugin.so' (C API 0.81)", for messages.
  std::string describe() const;

  /// Returns true when `failure` is null, else sets `error` to "<context>:
  /// <call> failed: <the plugin's message>" and destroys `failure`.
  bool check(PJRT_Error *failure, const char *call, std::string &error,
             const std::string &context) const;
  /// Waits for `event` (when not null) and destroys it; false with `error`
  /// set (like check) when the event carries an error.
  bool await(PJRT_Event *event, const char *what, std::string &error,
             const std::string &context) const;
  /// Destroys a buffer or event, ignoring errors (during clean-up).
  void destroy(PJRT_Buffer *buffer) const;
  void destroy(PJRT_Event *event) const;

  std::string path;
  const PJRT_Api *api = nullptr;
  /// The plugin's stablehlo_minimum_version and stablehlo_current_version
  /// attributes ("1.13.3"), empty when it does not report them.
  std::string stablehloMinimumVersion;
  std::string stablehloCurrentVersion;
};

/// A client of a plugin: the plugin's view of the devices this process may
/// use. Shared by every device that uses the plugin (the devices of a
/// session, and concurrent sessions: some platforms allow one client per
/// process) and destroyed with the last of them.
class PjrtClient {
public:
  /// Returns the client of `plugin`, creating it when no device holds one.
  /// Returns null with `error` set when the plugin cannot create one (no
  /// device of its platform) or it has no addressable device.
  static std::shared_ptr<PjrtClient> get(const PjrtPlugin &plugin,
                                         const std::string &requester,
                                         std::string &error);
  ~PjrtClient();
  PjrtClient(const PjrtClient &) = delete;
  PjrtClient &operator=(const PjrtClient &) = delete;

  const PjrtPlugin &getPlugin() const { return plugin; }
  PJRT_Client *getClient() const { return client; }
  /// The client's platform name ("cpu", ...).
  const std::string &getPlatform() const { return platform; }
  /// The devices this process can run programs on, in the client's order
  /// (DeviceDesc::deviceId indexes them).
  const std::vector<PJRT_Device *> &getDevices() const { return devices; }

private:
  explicit PjrtClient(const PjrtPlugin &plugin) : plugin(plugin) {}

  const PjrtPlugin &plugin;
  PJRT_Client *client = nullptr;
  std::string platform;
  std::vector<PJRT_Device *> devices;
};

} // namespace orx

#endif // ORCHESTRA_RT_DRIVERS_PJRT_PJRTPLUGIN_H
