//===- fake_pjrt.cpp - A simulated PJRT plugin for the runtime tests ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// A stand-in for a PJRT C API plugin that the `pjrt` driver tests load
// through ORCHESTRA_PJRT_PLUGIN. Built several times: the defines give a
// plugin of another major version (FAKE_PJRT_MAJOR), one too old
// (FAKE_PJRT_MINOR), one whose function table ends early
// (FAKE_PJRT_TABLE_END, a PJRT_Api field) and one that fails to initialise
// (FAKE_PJRT_INIT_FAILS). The working one simulates `num_devices` devices
// (orx_fake_pjrt_configure) and these programs (the text of the program):
//  - "add": one result, the elementwise sum of its two f32 arguments;
//  - "add_wide": the same with twice the elements (the second half zero);
//  - "two_results": two results, each a copy of its argument;
//  - "error: <message>": fails to compile with <message>.
// With "platform_tpu" set, its platform is "tpu" and it loads serialized
// executables "executable: <program>" (PJRT_Executable_DeserializeAndLoad)
// as if compiled from <program>; it refuses any other bytes.
// Configuration keys: "fail_client_create", "num_devices", "platform_tpu";
// queries:
// "live_buffers", "live_events", "live_executables", "live_clients",
// "compiles", "deserializations", "executions", "last_device" (of the last
// execution),
// "last_options_size".
//
//===----------------------------------------------------------------------===//

#include "pjrt_c_api.h"

#include <cstddef>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#ifndef FAKE_PJRT_MAJOR
#define FAKE_PJRT_MAJOR PJRT_API_MAJOR
#endif
#ifndef FAKE_PJRT_MINOR
#define FAKE_PJRT_MINOR PJRT_API_MINOR
#endif

struct PJRT_Error {
  std::string message;
};
struct PJRT_Event {
  int unused = 0;
};
struct PJRT_Device {
  int index = 0;
};
struct PJRT_Client {
  std::vector<PJRT_Device> devices;
  std::vector<PJRT_Device *> pointers;
};
struct PJRT_Executable {
  size_t numOutputs = 1;
};
struct PJRT_LoadedExecutable {
  std::string program;
  size_t numOutputs = 1;
};
struct PJRT_Buffer {
  std::vector<float> data;
  int device = 0;
};

namespace {

std::mutex stateMutex;
std::map<std::string, long long> config = {{"num_devices", 2}};
std::map<std::string, long long> counters;

long long setting(const char *key) {
  std::lock_guard<std::mutex> lock(stateMutex);
  return config[key];
}

void count(const char *key, long long delta) {
  std::lock_guard<std::mutex> lock(stateMutex);
  counters[key] += delta;
}

void record(const char *key, long long value) {
  std::lock_guard<std::mutex> lock(stateMutex);
  counters[key] = value;
}

PJRT_Error *fail(const std::string &message) { return new PJRT_Error{message}; }

PJRT_Event *newEvent() {
  count("live_events", 1);
  return new PJRT_Event();
}

PJRT_Buffer *newBuffer(std::vector<float> data, int device) {
  count("live_buffers", 1);
  return new PJRT_Buffer{std::move(data), device};
}

size_t elementSize(PJRT_Buffer_Type type) {
  switch (type) {
  case PJRT_Buffer_Type_PRED:
  case PJRT_Buffer_Type_S8:
  case PJRT_Buffer_Type_U8:
    return 1;
  case PJRT_Buffer_Type_F16:
  case PJRT_Buffer_Type_BF16:
  case PJRT_Buffer_Type_S16:
  case PJRT_Buffer_Type_U16:
    return 2;
  case PJRT_Buffer_Type_F64:
  case PJRT_Buffer_Type_S64:
  case PJRT_Buffer_Type_U64:
    return 8;
  default:
    return 4;
  }
}

//===----------------------------------------------------------------------===//
// The C API functions
//===----------------------------------------------------------------------===//

void errorDestroy(PJRT_Error_Destroy_Args *args) { delete args->error; }

void errorMessage(PJRT_Error_Message_Args *args) {
  args->message = args->error->message.data();
  args->message_size = args->error->message.size();
}

PJRT_Error *pluginInitialize(PJRT_Plugin_Initialize_Args *) {
#ifdef FAKE_PJRT_INIT_FAILS
  return fail("fake plugin: cannot initialise");
#else
  return nullptr;
#endif
}

PJRT_Error *pluginAttributes(PJRT_Plugin_Attributes_Args *args) {
  static const int64_t current[] = {1, 2, 3};
  static PJRT_NamedValue attribute = [] {
    PJRT_NamedValue value;
    std::memset(&value, 0, sizeof(value));
    value.struct_size = PJRT_NamedValue_STRUCT_SIZE;
    value.name = "stablehlo_current_version";
    value.name_size = std::strlen(value.name);
    value.type = PJRT_NamedValue_kInt64List;
    value.int64_array_value = current;
    value.value_size = 3;
    return value;
  }();
  args->attributes = &attribute;
  args->num_attributes = 1;
  return nullptr;
}

PJRT_Error *eventDestroy(PJRT_Event_Destroy_Args *args) {
  count("live_events", -1);
  delete args->event;
  return nullptr;
}

PJRT_Error *eventAwait(PJRT_Event_Await_Args *) { return nullptr; }

PJRT_Error *clientCreate(PJRT_Client_Create_Args *args) {
  if (setting("fail_client_create"))
    return fail("fake plugin: no devices found");
  auto *client = new PJRT_Client();
  long long n = setting("num_devices");
  client->devices.resize(static_cast<size_t>(n));
  for (long long i = 0; i < n; ++i) {
    client->devices[i].index = static_cast<int>(i);
    client->pointers.push_back(&client->devices[i]);
  }
  count("live_clients", 1);
  args->client = client;
  return nullptr;
}

PJRT_Error *clientDestroy(PJRT_Client_Destroy_Args *args) {
  count("live_clients", -1);
  delete args->client;
  return nullptr;
}

PJRT_Error *clientPlatformName(PJRT_Client_PlatformName_Args *args) {
  args->platform_name = setting("platform_tpu") ? "tpu" : "fake";
  args->platform_name_size = std::strlen(args->platform_name);
  return nullptr;
}

PJRT_Error *
clientAddressableDevices(PJRT_Client_AddressableDevices_Args *args) {
  args->addressable_devices = args->client->pointers.data();
  args->num_addressable_devices = args->client->pointers.size();
  return nullptr;
}

PJRT_Error *clientCompile(PJRT_Client_Compile_Args *args) {
  std::string format(args->program->format, args->program->format_size);
  std::string program(args->program->code, args->program->code_size);
  record("last_options_size",
         static_cast<long long>(args->compile_options_size));
  if (format != "mlir")
    return fail("fake plugin: unknown program format '" + format + "'");
  if (args->compile_options_size == 0)
    return fail("fake plugin: empty compile options");
  if (program.rfind("error: ", 0) == 0)
    return fail(program.substr(7));
  if (program != "add" && program != "add_wide" && program != "two_results")
    return fail("fake plugin: unknown program '" + program + "'");
  count("compiles", 1);
  count("live_executables", 1);
  args->executable = new PJRT_LoadedExecutable{
      program, static_cast<size_t>(program == "two_results" ? 2 : 1)};
  return nullptr;
}

PJRT_Error *
executableDeserializeAndLoad(PJRT_Executable_DeserializeAndLoad_Args *args) {
  std::string bytes(args->serialized_executable,
                    args->serialized_executable_size);
  static const std::string kPrefix = "executable: ";
  std::string program = bytes.rfind(kPrefix, 0) == 0
                            ? bytes.substr(kPrefix.size())
                            : std::string();
  if (program != "add" && program != "add_wide" && program != "two_results")
    return fail("fake plugin: not an executable of this plugin");
  count("deserializations", 1);
  count("live_executables", 1);
  args->loaded_executable = new PJRT_LoadedExecutable{
      program, static_cast<size_t>(program == "two_results" ? 2 : 1)};
  return nullptr;
}

PJRT_Error *bufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args *args) {
  if (!args->device)
    return fail("fake plugin: no device");
  size_t elements = 1;
  for (size_t i = 0; i < args->num_dims; ++i)
    elements *= static_cast<size_t>(args->dims[i]);
  size_t bytes = elements * elementSize(args->type);
  std::vector<float> data((bytes + sizeof(float) - 1) / sizeof(float));
  std::memcpy(data.data(), args->data, bytes);
  args->buffer = newBuffer(std::move(data), args->device->index);
  args->done_with_host_buffer = newEvent();
  return nullptr;
}

PJRT_Error *executableDestroy(PJRT_Executable_Destroy_Args *args) {
  delete args->executable;
  return nullptr;
}

PJRT_Error *executableNumOutputs(PJRT_Executable_NumOutputs_Args *args) {
  args->num_outputs = args->executable->numOutputs;
  return nullptr;
}

PJRT_Error *loadedExecutableDestroy(PJRT_LoadedExecutable_Destroy_Args *args) {
  count("live_executables", -1);
  delete args->executable;
  return nullptr;
}

PJRT_Error *
loadedExecutableGetExecutable(PJRT_LoadedExecutable_GetExecutable_Args *args) {
  args->executable = new PJRT_Executable{args->loaded_executable->numOutputs};
  return nullptr;
}

PJRT_Error *loadedExecutableExecute(PJRT_LoadedExecutable_Execute_Args *args) {
  if (args->num_devices != 1 || !args->execute_device)
    return fail("fake plugin: runs on one given device only");
  const PJRT_LoadedExecutable &executable = *args->executable;
  PJRT_Buffer *const *inputs = args->argument_lists[0];
  PJRT_Buffer **outputs = args->output_lists[0];
  int device = args->execute_device->index;
  for (size_t i = 0; i < args->num_args; ++i)
    if (inputs[i]->device != device)
      return fail("fake plugin: argument " + std::to_string(i) +
                  " is on another device");
  if (executable.program == "two_results") {
    if (args->num_args != 2)
      return fail("fake plugin: two_results takes 2 arguments");
    outputs[0] = newBuffer(inputs[0]->data, device);
    outputs[1] = newBuffer(inputs[1]->data, device);
  } else {
    if (args->num_args != 2 || inputs[0]->data.size() != inputs[1]->data.size())
      return fail("fake plugin: add takes 2 arguments of one shape");
    std::vector<float> sum(inputs[0]->data.size());
    for (size_t i = 0; i < sum.size(); ++i)
      sum[i] = inputs[0]->data[i] + inputs[1]->data[i];
    if (executable.program == "add_wide")
      sum.resize(2 * sum.size());
    outputs[0] = newBuffer(std::move(sum), device);
  }
  count("executions", 1);
  record("last_device", device);
  if (args->device_complete_events)
    args->device_complete_events[0] = newEvent();
  return nullptr;
}

PJRT_Error *bufferDestroy(PJRT_Buffer_Destroy_Args *args) {
  count("live_buffers", -1);
  delete args->buffer;
  return nullptr;
}

PJRT_Error *bufferToHostBuffer(PJRT_Buffer_ToHostBuffer_Args *args) {
  // Its buffers are vectors: the host layout must be row-major (the most
  // minor dimension last), as the driver asks for.
  const PJRT_Buffer_MemoryLayout *layout = args->host_layout;
  if (!layout)
    return fail("fake plugin: no host layout (the device's may differ)");
  if (layout->type != PJRT_Buffer_MemoryLayout_Type_Tiled ||
      layout->tiled.num_tiles != 0)
    return fail("fake plugin: the host layout is not an untiled one");
  for (size_t d = 0; d < layout->tiled.minor_to_major_size; ++d)
    if (layout->tiled.minor_to_major[d] !=
        static_cast<int64_t>(layout->tiled.minor_to_major_size - 1 - d))
      return fail("fake plugin: the host layout is not row-major");
  size_t bytes = args->src->data.size() * sizeof(float);
  if (!args->dst) {
    args->dst_size = bytes;
    return nullptr;
  }
  if (args->dst_size < bytes)
    return fail("fake plugin: destination too small");
  std::memcpy(args->dst, args->src->data.data(), bytes);
  args->event = newEvent();
  return nullptr;
}

PJRT_Api makeApi() {
  PJRT_Api api;
  std::memset(&api, 0, sizeof(api));
  api.struct_size = PJRT_Api_STRUCT_SIZE;
#ifdef FAKE_PJRT_TABLE_END
  api.struct_size = offsetof(PJRT_Api, FAKE_PJRT_TABLE_END);
#endif
  api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
  api.pjrt_api_version.major_version = FAKE_PJRT_MAJOR;
  api.pjrt_api_version.minor_version = FAKE_PJRT_MINOR;
  api.PJRT_Error_Destroy = errorDestroy;
  api.PJRT_Error_Message = errorMessage;
  api.PJRT_Plugin_Initialize = pluginInitialize;
  api.PJRT_Plugin_Attributes = pluginAttributes;
  api.PJRT_Event_Destroy = eventDestroy;
  api.PJRT_Event_Await = eventAwait;
  api.PJRT_Client_Create = clientCreate;
  api.PJRT_Client_Destroy = clientDestroy;
  api.PJRT_Client_PlatformName = clientPlatformName;
  api.PJRT_Client_AddressableDevices = clientAddressableDevices;
  api.PJRT_Client_Compile = clientCompile;
  api.PJRT_Client_BufferFromHostBuffer = bufferFromHostBuffer;
  api.PJRT_Executable_DeserializeAndLoad = executableDeserializeAndLoad;
  api.PJRT_Executable_Destroy = executableDestroy;
  api.PJRT_Executable_NumOutputs = executableNumOutputs;
  api.PJRT_LoadedExecutable_Destroy = loadedExecutableDestroy;
  api.PJRT_LoadedExecutable_GetExecutable = loadedExecutableGetExecutable;
  api.PJRT_LoadedExecutable_Execute = loadedExecutableExecute;
  api.PJRT_Buffer_Destroy = bufferDestroy;
  api.PJRT_Buffer_ToHostBuffer = bufferToHostBuffer;
  return api;
}

} // namespace

extern "C" {

__attribute__((visibility("default"))) const PJRT_Api *GetPjrtApi() {
  static const PJRT_Api api = makeApi();
  return &api;
}

__attribute__((visibility("default"))) void
orx_fake_pjrt_configure(const char *key, long long value) {
  std::lock_guard<std::mutex> lock(stateMutex);
  config[key] = value;
}

__attribute__((visibility("default"))) long long
orx_fake_pjrt_query(const char *key) {
  std::lock_guard<std::mutex> lock(stateMutex);
  return counters[key];
}

} // extern "C"
