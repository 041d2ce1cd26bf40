//===- fake_cuda.cpp - A simulated CUDA driver for the runtime tests ------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// Stands in for libcuda.so.1 (through ORCHESTRA_CUDA_DRIVER) so that the
// runtime's GPU path runs on machines without a GPU. "Device memory" is host
// memory; modules are byte strings ("FAKECUBIN..." images, "//FAKEPTX..."
// PTX) whose functions come from a fixed table of host implementations.
//
// The simulation is strict where the runtime could go wrong unnoticed on a
// real GPU:
// - work enqueued on a stream runs only when something waits for it
//   (cuStreamSynchronize, cuEventSynchronize, or a stream that waits for an
//   event of it and is itself waited for), so a missing wait leaves results
//   unwritten;
// - copies from pinned host memory read it when they run, copies from
//   pageable memory when enqueued (as the real driver stages them);
// - device pointers must lie inside live allocations, calls that need a
//   context fail without a current one, launches check their grid, block and
//   dynamic shared memory (more than 48 KiB needs cuFuncSetAttribute);
// - every object is counted so that tests can check that a session releases
//   everything.
//
// Tests drive it through orx_fake_cuda_configure / orx_fake_cuda_query.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

/// What cuInit returns unless a test configures "init_result".
#ifndef FAKE_DEFAULT_INIT_RESULT
#define FAKE_DEFAULT_INIT_RESULT 0
#endif

// The handle types, with the names cuda.h gives them (and the runtime
// declares), so that the function types match.
struct CUctx_st {
  int device = 0;
  int retains = 0;
};

struct CUstream_st {
  std::vector<std::function<int()>> ops;
  size_t executed = 0;
};

struct CUevent_st {
  CUstream_st *stream = nullptr;
  size_t position = 0;
  bool timing = false;
};

struct CUmod_st {
  int unused = 0;
};

/// A kernel's parameters, each zero-extended to 8 bytes.
using FakeParams = std::vector<uint64_t>;

struct CUfunc_st {
  const char *name;
  std::vector<unsigned> paramSizes;
  int (*impl)(const FakeParams &params);
  int maxDynamicShared = 48 * 1024;
};

namespace {

using Context = CUctx_st;
using Stream = CUstream_st;
using Event = CUevent_st;
using Module = CUmod_st;
using Function = CUfunc_st;
using Params = FakeParams;

using CUresult = int;
using CUdeviceptr = unsigned long long;

constexpr CUresult kSuccess = 0;
constexpr CUresult kInvalidValue = 1;
constexpr CUresult kOutOfMemory = 2;
constexpr CUresult kNotInitialized = 3;
constexpr CUresult kNoDevice = 100;
constexpr CUresult kInvalidDevice = 101;
constexpr CUresult kInvalidImage = 200;
constexpr CUresult kInvalidContext = 201;
constexpr CUresult kNoBinaryForGpu = 209;
constexpr CUresult kInvalidPtx = 218;
constexpr CUresult kInvalidHandle = 400;
constexpr CUresult kNotFound = 500;
constexpr CUresult kNotReady = 600;
constexpr CUresult kIllegalAddress = 700;
constexpr CUresult kNotSupported = 801;

const char *errorName(CUresult result) {
  switch (result) {
  case kSuccess:
    return "CUDA_SUCCESS";
  case kInvalidValue:
    return "CUDA_ERROR_INVALID_VALUE";
  case kOutOfMemory:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case kNotInitialized:
    return "CUDA_ERROR_NOT_INITIALIZED";
  case kNoDevice:
    return "CUDA_ERROR_NO_DEVICE";
  case kInvalidDevice:
    return "CUDA_ERROR_INVALID_DEVICE";
  case kInvalidImage:
    return "CUDA_ERROR_INVALID_IMAGE";
  case kInvalidContext:
    return "CUDA_ERROR_INVALID_CONTEXT";
  case kNoBinaryForGpu:
    return "CUDA_ERROR_NO_BINARY_FOR_GPU";
  case kInvalidPtx:
    return "CUDA_ERROR_INVALID_PTX";
  case kInvalidHandle:
    return "CUDA_ERROR_INVALID_HANDLE";
  case kNotFound:
    return "CUDA_ERROR_NOT_FOUND";
  case kNotReady:
    return "CUDA_ERROR_NOT_READY";
  case kIllegalAddress:
    return "CUDA_ERROR_ILLEGAL_ADDRESS";
  case kNotSupported:
    return "CUDA_ERROR_NOT_SUPPORTED";
  }
  return nullptr;
}

const char *errorString(CUresult result) {
  switch (result) {
  case kSuccess:
    return "no error";
  case kInvalidValue:
    return "invalid argument";
  case kOutOfMemory:
    return "out of memory";
  case kNotInitialized:
    return "initialization error";
  case kNoDevice:
    return "no CUDA-capable device is detected";
  case kInvalidDevice:
    return "invalid device ordinal";
  case kInvalidImage:
    return "device kernel image is invalid";
  case kInvalidContext:
    return "invalid device context";
  case kNoBinaryForGpu:
    return "no kernel image is available for execution on the device";
  case kInvalidPtx:
    return "a PTX JIT compilation failed";
  case kInvalidHandle:
    return "invalid resource handle";
  case kNotFound:
    return "named symbol not found";
  case kIllegalAddress:
    return "an illegal memory access was encountered";
  }
  return nullptr;
}

using KernelImpl = CUresult (*)(const Params &params);

struct State {
  std::recursive_mutex mutex;
  std::map<std::string, long long> config;
  std::map<std::string, long long> counters;
  bool initialized = false;
  CUresult sticky = kSuccess;
  Context contexts[8];
  std::map<CUdeviceptr, size_t> allocations;
  std::map<uintptr_t, size_t> pinned;
  std::map<Stream *, std::unique_ptr<Stream>> streams;
  std::map<Event *, std::unique_ptr<Event>> events;
  std::map<Module *, std::unique_ptr<Module>> modules;
  std::vector<Function> functions;
};

State &state() {
  static State *s = new State();
  return *s;
}

thread_local Context *current = nullptr;

long long config(const char *key, long long fallback) {
  auto it = state().config.find(key);
  return it == state().config.end() ? fallback : it->second;
}

void count(const std::string &key, long long delta = 1) {
  state().counters[key] += delta;
}

/// Is [address, address + bytes) inside one live allocation?
bool isDeviceRange(CUdeviceptr address, size_t bytes) {
  auto &allocations = state().allocations;
  auto it = allocations.upper_bound(address);
  if (it == allocations.begin())
    return false;
  --it;
  return address >= it->first && address - it->first <= it->second &&
         bytes <= it->second - (address - it->first);
}

bool isPinned(const void *pointer, size_t bytes) {
  uintptr_t address = reinterpret_cast<uintptr_t>(pointer);
  auto &pinned = state().pinned;
  auto it = pinned.upper_bound(address);
  if (it == pinned.begin())
    return false;
  --it;
  return address >= it->first && address - it->first <= it->second &&
         bytes <= it->second - (address - it->first);
}

float *floats(uint64_t address, uint64_t n) {
  if (!isDeviceRange(address, n * sizeof(float)))
    return nullptr;
  return reinterpret_cast<float *>(static_cast<uintptr_t>(address));
}

float bitsToFloat(uint64_t bits) {
  uint32_t low = static_cast<uint32_t>(bits);
  float value;
  std::memcpy(&value, &low, sizeof(value));
  return value;
}

/// The simulated tensor map: what cuTensorMapEncodeTiled was given, in the
/// 128 bytes of a CUtensorMap.
struct FakeTensorMap {
  static constexpr uint64_t kMagic = 0x50414d524f534e54ull; // "TNSORMAP"
  uint64_t magic;
  uint64_t address;
  uint32_t dataType, rank;
  uint64_t globalDim[5];
  uint32_t boxDim[5];
  uint32_t swizzle;
};
static_assert(sizeof(FakeTensorMap) <= 128, "a CUtensorMap has 128 bytes");

// The kernels of fake modules. A pointer outside device memory is an illegal
// address, as on a GPU.

/// (map, out): a TMA load of the first box of a 1-D f32 tensor map, which
/// must be in device memory (where the runtime copies it), into out.
CUresult tmaCopyF32(const Params &p) {
  if (!isDeviceRange(p[0], 128))
    return kIllegalAddress;
  FakeTensorMap map;
  std::memcpy(&map, reinterpret_cast<const void *>(p[0]), sizeof(map));
  if (map.magic != FakeTensorMap::kMagic || map.rank != 1 ||
      map.dataType != 7 /*FLOAT32*/)
    return kIllegalAddress;
  float *in = floats(map.address, map.globalDim[0]);
  float *out = floats(p[1], map.boxDim[0]);
  if (!in || !out || map.boxDim[0] > map.globalDim[0])
    return kIllegalAddress;
  std::memcpy(out, in, map.boxDim[0] * sizeof(float));
  return kSuccess;
}

/// (a, b, c, n: i32): c = a + b.
CUresult addF32(const Params &p) {
  uint64_t n = static_cast<uint32_t>(p[3]);
  float *a = floats(p[0], n), *b = floats(p[1], n), *c = floats(p[2], n);
  if (!a || !b || !c)
    return kIllegalAddress;
  for (uint64_t i = 0; i < n; ++i)
    c[i] = a[i] + b[i];
  return kSuccess;
}

/// (x, y, factor: f32, n: i64): y = factor * x.
CUresult scaleF32(const Params &p) {
  uint64_t n = p[3];
  float *x = floats(p[0], n), *y = floats(p[1], n);
  if (!x || !y)
    return kIllegalAddress;
  float factor = bitsToFloat(p[2]);
  for (uint64_t i = 0; i < n; ++i)
    y[i] = factor * x[i];
  return kSuccess;
}

/// (x, counters, n: i32): what a kernel compiled with --profile-branches
/// adds for one branch on `x[i] > 0` of n threads in warps of 32: then
/// lanes, else lanes, warps, divergent warps.
CUresult countPositiveF32(const Params &p) {
  uint64_t n = static_cast<uint32_t>(p[2]);
  float *x = floats(p[0], n);
  if (!x || !isDeviceRange(p[1], 4 * sizeof(uint64_t)))
    return kIllegalAddress;
  auto *counters = reinterpret_cast<uint64_t *>(static_cast<uintptr_t>(p[1]));
  for (uint64_t warp = 0; warp < n; warp += 32) {
    uint64_t lanes = std::min<uint64_t>(32, n - warp), taken = 0;
    for (uint64_t i = warp; i < warp + lanes; ++i)
      taken += x[i] > 0;
    counters[0] += taken;
    counters[1] += lanes - taken;
    counters[2] += 1;
    counters[3] += taken != 0 && taken != lanes;
  }
  return kSuccess;
}

/// (n: i64 buffer, counter: i64 buffer, condition: byte buffer): counter =
/// n, condition = n > 0 (the start of a loop of n iterations).
CUresult startCountdown(const Params &p) {
  if (!isDeviceRange(p[0], 8) || !isDeviceRange(p[1], 8) ||
      !isDeviceRange(p[2], 1))
    return kIllegalAddress;
  auto *n = reinterpret_cast<const int64_t *>(static_cast<uintptr_t>(p[0]));
  auto *counter = reinterpret_cast<int64_t *>(static_cast<uintptr_t>(p[1]));
  *counter = *n;
  *reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(p[2])) = *n > 0;
  return kSuccess;
}

/// (counter: i64 buffer, condition: byte buffer): counter -= 1, condition
/// = counter > 0.
CUresult countDown(const Params &p) {
  if (!isDeviceRange(p[0], 8) || !isDeviceRange(p[1], 1))
    return kIllegalAddress;
  auto *counter = reinterpret_cast<int64_t *>(static_cast<uintptr_t>(p[0]));
  *counter -= 1;
  *reinterpret_cast<uint8_t *>(static_cast<uintptr_t>(p[1])) = *counter > 0;
  return kSuccess;
}

/// (): writes to address 0.
CUresult fault(const Params &) { return kIllegalAddress; }

bool startsWith(const void *data, const char *prefix) {
  return std::strncmp(static_cast<const char *>(data), prefix,
                      std::strlen(prefix)) == 0;
}

/// Runs the operations of `stream` up to `position`.
CUresult flush(Stream *stream, size_t position) {
  while (stream->executed < position) {
    CUresult result = stream->ops[stream->executed++]();
    if (result != kSuccess && state().sticky == kSuccess)
      state().sticky = result;
  }
  return state().sticky;
}

Stream *findStream(Stream *handle) {
  auto it = state().streams.find(handle);
  return it == state().streams.end() ? nullptr : it->second.get();
}

Event *findEvent(Event *handle) {
  auto it = state().events.find(handle);
  return it == state().events.end() ? nullptr : it->second.get();
}

#define LOCKED std::lock_guard<std::recursive_mutex> lock(state().mutex)
#define NEEDS_CONTEXT                                                          \
  if (!state().initialized)                                                    \
    return kNotInitialized;                                                    \
  if (!current)                                                                \
    return kInvalidContext;                                                    \
  if (state().sticky != kSuccess)                                              \
  return state().sticky

/// Enqueues a copy on `stream`. `source` is read now when it is pageable host
/// memory (the driver stages it); a copy to pageable memory returns once done.
CUresult enqueueCopy(Stream *streamHandle, void *destination, bool toDevice,
                     const void *source, bool fromDevice, size_t bytes) {
  Stream *stream = findStream(streamHandle);
  if (!stream)
    return kInvalidHandle;
  if ((toDevice &&
       !isDeviceRange(reinterpret_cast<uintptr_t>(destination), bytes)) ||
      (fromDevice &&
       !isDeviceRange(reinterpret_cast<uintptr_t>(source), bytes)))
    return kInvalidValue;
  bool pageableSource = !fromDevice && !isPinned(source, bytes);
  bool pageableDestination = !toDevice && !isPinned(destination, bytes);
  if (pageableSource || pageableDestination)
    count("pageable_async_copies");
  if (pageableSource) {
    auto staged = std::make_shared<std::vector<uint8_t>>(
        static_cast<const uint8_t *>(source),
        static_cast<const uint8_t *>(source) + bytes);
    stream->ops.push_back([=] {
      std::memcpy(destination, staged->data(), bytes);
      return kSuccess;
    });
  } else {
    stream->ops.push_back([=] {
      std::memmove(destination, source, bytes);
      return kSuccess;
    });
  }
  count("async_copies");
  if (pageableDestination)
    return flush(stream, stream->ops.size());
  return kSuccess;
}

} // namespace

extern "C" {

//===----------------------------------------------------------------------===//
// Test control
//===----------------------------------------------------------------------===//

/// Sets a knob: "init_result", "device_count", "reject_cubin", "reject_ptx",
/// "reject_host_register" (and "reject_hsaco", read by fake_hip.cpp).
/// "reset" (any value) restores the defaults and clears the counters of
/// calls (not of live objects) and the sticky error.
void orx_fake_cuda_configure(const char *key, long long value) {
  LOCKED;
  if (std::strcmp(key, "reset") == 0) {
    state().config.clear();
    state().sticky = kSuccess;
    for (const char *counter :
         {"launches", "async_copies", "pageable_async_copies", "stream_waits",
          "event_syncs", "stream_syncs", "ctx_syncs", "set_attribute",
          "ptx_loads"})
      state().counters[counter] = 0;
    return;
  }
  state().config[key] = value;
}

/// Reads a counter: "allocations", "pinned", "streams", "events", "modules",
/// "retains" (live objects) or a count of calls; or a knob that was set.
long long orx_fake_cuda_query(const char *key) {
  LOCKED;
  std::string name = key;
  auto knob = state().config.find(name);
  if (knob != state().config.end())
    return knob->second;
  if (name == "allocations")
    return state().allocations.size();
  if (name == "pinned")
    return state().pinned.size();
  if (name == "streams")
    return state().streams.size();
  if (name == "events")
    return state().events.size();
  if (name == "modules")
    return state().modules.size();
  if (name == "retains") {
    long long retains = 0;
    for (const Context &context : state().contexts)
      retains += context.retains;
    return retains;
  }
  return state().counters[name];
}

/// The context current on the calling thread.
void *orx_fake_cuda_current_context(void) { return current; }

//===----------------------------------------------------------------------===//
// The driver API
//===----------------------------------------------------------------------===//

CUresult cuGetErrorName(CUresult error, const char **name) {
  *name = errorName(error);
  return *name ? kSuccess : kInvalidValue;
}

CUresult cuGetErrorString(CUresult error, const char **text) {
  *text = errorString(error);
  return *text ? kSuccess : kInvalidValue;
}

CUresult cuInit(unsigned flags) {
  LOCKED;
  CUresult result =
      static_cast<CUresult>(config("init_result", FAKE_DEFAULT_INIT_RESULT));
  if (flags != 0)
    return kInvalidValue;
  if (result == kSuccess && state().functions.empty())
    state().functions = {
        {"fake_add_f32", {8, 8, 8, 4}, addF32},
        {"fake_scale_f32", {8, 8, 4, 8}, scaleF32},
        {"fake_fault", {}, fault},
        {"fake_count_positive_f32", {8, 8, 4}, countPositiveF32},
        {"fake_start_countdown", {8, 8, 8}, startCountdown},
        {"fake_count_down", {8, 8}, countDown},
        {"fake_tma_copy_f32", {8, 8}, tmaCopyF32},
    };
  state().initialized = result == kSuccess;
  return result;
}

CUresult cuDeviceGetCount(int *count) {
  LOCKED;
  if (!state().initialized)
    return kNotInitialized;
  *count = static_cast<int>(config("device_count", 1));
  return kSuccess;
}

CUresult cuDeviceGet(int *device, int ordinal) {
  LOCKED;
  if (ordinal < 0 || ordinal >= config("device_count", 1) || ordinal >= 8)
    return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}

CUresult cuDeviceGetName(char *name, int length, int device) {
  std::string text = "Fake GPU " + std::to_string(device);
  std::strncpy(name, text.c_str(), static_cast<size_t>(length));
  return kSuccess;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, int) {
  if (attribute == 75)
    *value = 9;
  else if (attribute == 76)
    *value = 0;
  else
    return kInvalidValue;
  return kSuccess;
}

CUresult cuDevicePrimaryCtxRetain(CUctx_st **context, int device) {
  LOCKED;
  if (device < 0 || device >= 8)
    return kInvalidDevice;
  state().contexts[device].device = device;
  ++state().contexts[device].retains;
  *context = &state().contexts[device];
  return kSuccess;
}

CUresult cuDevicePrimaryCtxRelease_v2(int device) {
  LOCKED;
  if (device < 0 || device >= 8 || state().contexts[device].retains == 0)
    return kInvalidContext;
  --state().contexts[device].retains;
  return kSuccess;
}

CUresult cuCtxGetCurrent(CUctx_st **context) {
  *context = current;
  return kSuccess;
}

CUresult cuCtxSetCurrent(CUctx_st *context) {
  current = context;
  return kSuccess;
}

CUresult cuCtxSynchronize() {
  LOCKED;
  NEEDS_CONTEXT;
  count("ctx_syncs");
  for (auto &entry : state().streams)
    flush(entry.second.get(), entry.second->ops.size());
  return state().sticky;
}

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  LOCKED;
  NEEDS_CONTEXT;
  if (bytes == 0)
    return kInvalidValue;
  if (bytes > (size_t(1) << 40))
    return kOutOfMemory;
  // 256-byte aligned, as cuMemAlloc's are (the runtime checks the 64 bytes
  // kernels assume). Garbage, so that a missing memset shows.
  void *memory = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
  std::memset(memory, 0xab, bytes);
  *pointer = reinterpret_cast<uintptr_t>(memory);
  state().allocations[*pointer] = bytes;
  return kSuccess;
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  LOCKED;
  if (!state().allocations.erase(pointer))
    return kInvalidValue;
  std::free(reinterpret_cast<void *>(static_cast<uintptr_t>(pointer)));
  return kSuccess;
}

CUresult cuMemsetD8_v2(CUdeviceptr pointer, unsigned char value, size_t count) {
  LOCKED;
  NEEDS_CONTEXT;
  if (!isDeviceRange(pointer, count))
    return kInvalidValue;
  std::memset(reinterpret_cast<void *>(static_cast<uintptr_t>(pointer)), value,
              count);
  return kSuccess;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr destination, const void *source,
                         size_t bytes) {
  LOCKED;
  NEEDS_CONTEXT;
  if (!isDeviceRange(destination, bytes))
    return kInvalidValue;
  std::memcpy(reinterpret_cast<void *>(static_cast<uintptr_t>(destination)),
              source, bytes);
  return kSuccess;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr destination, const void *source,
                              size_t bytes, CUstream_st *stream) {
  LOCKED;
  NEEDS_CONTEXT;
  return enqueueCopy(
      stream, reinterpret_cast<void *>(static_cast<uintptr_t>(destination)),
      true, source, false, bytes);
}

CUresult cuMemcpyDtoHAsync_v2(void *destination, CUdeviceptr source,
                              size_t bytes, CUstream_st *stream) {
  LOCKED;
  NEEDS_CONTEXT;
  return enqueueCopy(stream, destination, false,
                     reinterpret_cast<void *>(static_cast<uintptr_t>(source)),
                     true, bytes);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr destination, CUdeviceptr source,
                              size_t bytes, CUstream_st *stream) {
  LOCKED;
  NEEDS_CONTEXT;
  return enqueueCopy(
      stream, reinterpret_cast<void *>(static_cast<uintptr_t>(destination)),
      true, reinterpret_cast<void *>(static_cast<uintptr_t>(source)), true,
      bytes);
}

CUresult cuMemcpyPeerAsync(CUdeviceptr destination, CUctx_st *,
                           CUdeviceptr source, CUctx_st *, size_t bytes,
                           CUstream_st *stream) {
  LOCKED;
  NEEDS_CONTEXT;
  count("peer_copies");
  return enqueueCopy(
      stream, reinterpret_cast<void *>(static_cast<uintptr_t>(destination)),
      true, reinterpret_cast<void *>(static_cast<uintptr_t>(source)), true,
      bytes);
}

CUresult cuMemHostRegister_v2(void *pointer, size_t bytes, unsigned flags) {
  LOCKED;
  NEEDS_CONTEXT;
  if (bytes == 0 || flags != 1 || isPinned(pointer, 1))
    return kInvalidValue;
  if (config("reject_host_register", 0))
    return kNotSupported;
  state().pinned[reinterpret_cast<uintptr_t>(pointer)] = bytes;
  return kSuccess;
}

CUresult cuMemHostUnregister(void *pointer) {
  LOCKED;
  if (!state().pinned.erase(reinterpret_cast<uintptr_t>(pointer)))
    return kInvalidValue;
  return kSuccess;
}

CUresult cuStreamCreate(CUstream_st **stream, unsigned flags) {
  LOCKED;
  NEEDS_CONTEXT;
  if (flags != 1)
    return kInvalidValue;
  auto created = std::make_unique<Stream>();
  *stream = created.get();
  state().streams[created.get()] = std::move(created);
  return kSuccess;
}

CUresult cuStreamDestroy_v2(CUstream_st *stream) {
  LOCKED;
  Stream *found = findStream(stream);
  if (!found)
    return kInvalidHandle;
  flush(found, found->ops.size());
  state().streams.erase(found);
  return kSuccess;
}

CUresult cuStreamSynchronize(CUstream_st *stream) {
  LOCKED;
  Stream *found = findStream(stream);
  if (!found)
    return kInvalidHandle;
  count("stream_syncs");
  return flush(found, found->ops.size());
}

CUresult cuStreamWaitEvent(CUstream_st *stream, CUevent_st *event,
                           unsigned flags) {
  LOCKED;
  NEEDS_CONTEXT;
  Stream *waiting = findStream(stream);
  Event *found = findEvent(event);
  if (!waiting || !found || flags != 0)
    return kInvalidHandle;
  count("stream_waits");
  if (!found->stream)
    return kSuccess;
  Stream *other = found->stream;
  size_t position = found->position;
  waiting->ops.push_back([=] { return flush(other, position); });
  return kSuccess;
}

CUresult cuEventCreate(CUevent_st **event, unsigned flags) {
  LOCKED;
  NEEDS_CONTEXT;
  if (flags != 0 && flags != 2)
    return kInvalidValue;
  auto created = std::make_unique<Event>();
  created->timing = flags == 0;
  *event = created.get();
  state().events[created.get()] = std::move(created);
  return kSuccess;
}

CUresult cuEventRecord(CUevent_st *event, CUstream_st *stream) {
  LOCKED;
  NEEDS_CONTEXT;
  Event *found = findEvent(event);
  Stream *on = findStream(stream);
  if (!found || !on)
    return kInvalidHandle;
  found->stream = on;
  found->position = on->ops.size();
  return kSuccess;
}

CUresult cuEventSynchronize(CUevent_st *event) {
  LOCKED;
  Event *found = findEvent(event);
  if (!found)
    return kInvalidHandle;
  count("event_syncs");
  if (!found->stream)
    return kSuccess;
  return flush(found->stream, found->position);
}

/// The GPU time between two timing events of one stream, once both are
/// complete: a microsecond per operation of the stream between them.
CUresult cuEventElapsedTime_v2(float *milliseconds, CUevent_st *start,
                               CUevent_st *end) {
  LOCKED;
  NEEDS_CONTEXT;
  Event *from = findEvent(start);
  Event *to = findEvent(end);
  if (!milliseconds || !from || !to || !from->timing || !to->timing ||
      !from->stream || from->stream != to->stream ||
      from->position > to->position)
    return kInvalidHandle;
  if (to->stream->executed < to->position)
    return kNotReady;
  count("elapsed_times");
  *milliseconds = 0.001f * static_cast<float>(to->position - from->position);
  return kSuccess;
}

CUresult cuEventDestroy_v2(CUevent_st *event) {
  LOCKED;
  return state().events.erase(event) ? kSuccess : kInvalidHandle;
}

CUresult cuModuleLoadData(CUmod_st **module, const void *image) {
  LOCKED;
  NEEDS_CONTEXT;
  if (startsWith(image, "FAKECUBIN")) {
    if (config("reject_cubin", 0))
      return kNoBinaryForGpu;
  } else if (startsWith(image, "//FAKEPTX")) {
    if (config("reject_ptx", 0))
      return kInvalidPtx;
    count("ptx_loads");
  } else {
    return kInvalidImage;
  }
  auto created = std::make_unique<Module>();
  *module = created.get();
  state().modules[created.get()] = std::move(created);
  return kSuccess;
}

CUresult cuModuleUnload(CUmod_st *module) {
  LOCKED;
  return state().modules.erase(module) ? kSuccess : kInvalidHandle;
}

CUresult cuModuleGetFunction(CUfunc_st **function, CUmod_st *module,
                             const char *name) {
  LOCKED;
  NEEDS_CONTEXT;
  if (!state().modules.count(module))
    return kInvalidHandle;
  for (Function &candidate : state().functions) {
    if (std::strcmp(candidate.name, name) == 0) {
      *function = &candidate;
      return kSuccess;
    }
  }
  return kNotFound;
}

CUresult cuFuncSetAttribute(CUfunc_st *function, int attribute, int value) {
  LOCKED;
  NEEDS_CONTEXT;
  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, up to Hopper's 227 KiB.
  if (attribute != 8 || value < 0 || value > 227 * 1024)
    return kInvalidValue;
  function->maxDynamicShared = value;
  count("set_attribute");
  return kSuccess;
}

/// Checks what the real driver checks that the runtime controls: rank,
/// a 16-byte aligned address inside device memory, non-zero dimensions,
/// boxes of at most 256 elements, strides that are multiples of 16 bytes.
CUresult cuTensorMapEncodeTiled(void *tensorMap, int dataType, uint32_t rank,
                                void *globalAddress, const uint64_t *globalDim,
                                const uint64_t *globalStrides,
                                const uint32_t *boxDim,
                                const uint32_t *elementStrides, int interleave,
                                int swizzle, int l2Promotion, int oobFill) {
  LOCKED;
  uint64_t address = reinterpret_cast<uintptr_t>(globalAddress);
  // CUtensorMapDataType has 13 values (UINT8 .. TFLOAT32_FTZ).
  if (!tensorMap || dataType < 0 || dataType > 12 || rank < 1 || rank > 5 ||
      address % 16 != 0 || !isDeviceRange(address, 1))
    return kInvalidValue;
  FakeTensorMap map{};
  map.magic = FakeTensorMap::kMagic;
  map.address = address;
  map.dataType = static_cast<uint32_t>(dataType);
  map.rank = rank;
  map.swizzle = static_cast<uint32_t>(swizzle);
  for (unsigned i = 0; i < rank; ++i) {
    if (globalDim[i] == 0 || boxDim[i] == 0 || boxDim[i] > 256 ||
        elementStrides[i] == 0 || (i > 0 && globalStrides[i - 1] % 16 != 0))
      return kInvalidValue;
    map.globalDim[i] = globalDim[i];
    map.boxDim[i] = boxDim[i];
  }
  std::memset(tensorMap, 0, 128);
  std::memcpy(tensorMap, &map, sizeof(map));
  count("tensor_maps");
  return kSuccess;
}

CUresult cuLaunchKernel(CUfunc_st *function, unsigned gridX, unsigned gridY,
                        unsigned gridZ, unsigned blockX, unsigned blockY,
                        unsigned blockZ, unsigned sharedBytes,
                        CUstream_st *stream, void **kernelParams,
                        void **extra) {
  LOCKED;
  NEEDS_CONTEXT;
  Stream *on = findStream(stream);
  const Function *kernel = function;
  if (!on || !kernel)
    return kInvalidHandle;
  if (extra || (!kernelParams && !kernel->paramSizes.empty()) || !gridX ||
      !gridY || !gridZ || !blockX || !blockY || !blockZ ||
      uint64_t(blockX) * blockY * blockZ > 1024 ||
      sharedBytes > static_cast<unsigned>(kernel->maxDynamicShared))
    return kInvalidValue;
  // The parameters are copied at launch, as the driver does.
  Params params;
  for (size_t i = 0; i < kernel->paramSizes.size(); ++i) {
    uint64_t value = 0;
    std::memcpy(&value, kernelParams[i], kernel->paramSizes[i]);
    params.push_back(value);
  }
  KernelImpl impl = kernel->impl;
  on->ops.push_back([=] { return impl(params); });
  count("launches");
  return kSuccess;
}

} // extern "C"
