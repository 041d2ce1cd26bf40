//===- Device.h - The runtime's device interface ----------------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The hardware abstraction of the runtime. A session sees every device of an
// artifact through `Device`: it allocates the arenas of the device's memory
// spaces, copies constants and inputs in and outputs out, makes each launch
// step's kernel ready for the step's buffers, and executes the device's steps
// (launches and copies) with events between queues. Each kind of device is a
// driver (runtime/src/drivers/<name>/) that registers a factory under its
// name; an artifact's device records name their driver.
//
// Two execution models meet here:
//  - a synchronous device (a CPU) runs each step on the session's worker
//    thread before `launch`/`copy` returns; it has no events;
//  - an asynchronous device (a GPU or accelerator) enqueues the step on one
//    of its in-order queues and returns; events recorded after a step tell
//    the session, or another queue, when it has completed.
//
// Device memory is named by `void *` addresses that only the owning device's
// driver interprets, unless the device's memory is host memory
// (`isHostMemory`).
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_RT_HAL_DEVICE_H
#define ORCHESTRA_RT_HAL_DEVICE_H

#include "orchestra_rt/Artifact.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace orx::hal {

class Device;

/// A place in memory: host memory when `device` is null, else an address in
/// the memory of `device` (which the host cannot dereference).
struct Memory {
  Device *device = nullptr;
  void *address = nullptr;
};

/// A point in one of an asynchronous device's queues, created by the device.
class Event {
public:
  virtual ~Event();
};

/// A launch step's kernel made ready for the step's buffers by the device
/// that runs it; only that device interprets it.
class PreparedLaunch {
public:
  virtual ~PreparedLaunch();
  /// The kernel's dynamic sizes for the current run (StepDesc::sizes,
  /// evaluated by the session before the run); empty for static kernels.
  std::vector<int64_t> sizes;
};

/// The in-order queues of an asynchronous device. Steps on one queue run in
/// plan order; steps on different queues only wait for each other through
/// events.
enum class Queue {
  /// Kernel launches.
  Compute,
  /// Copies that the device's own queue of the plan makes.
  Transfer,
};

/// Events recorded around one asynchronous step; each may be null.
struct StepEvents {
  /// Recorded before and after the step's work, for its device time (timing
  /// events).
  Event *started = nullptr;
  Event *finished = nullptr;
  /// Recorded after the step: what later steps wait for.
  Event *done = nullptr;
};

/// Restores what a device changed in the calling thread's state (e.g. a
/// current context) when destroyed.
class CallerState {
public:
  virtual ~CallerState();
};

class Device {
public:
  virtual ~Device();

  /// The driver's name (DeviceDesc::driver).
  virtual const std::string &getDriverName() const = 0;
  /// "device 'gpu0' (arch, what the driver found)", for messages.
  virtual const std::string &getDescription() const = 0;

  /// Whether the device's memory is the host's: its arenas are host
  /// pointers that kernels of other host-memory devices and the session may
  /// read and write directly.
  virtual bool isHostMemory() const = 0;
  /// Whether steps are enqueued (see the file comment).
  virtual bool isAsynchronous() const = 0;

  /// Saves the calling thread's state that the device's calls may change;
  /// null when they change none. Held by the session around its own calls.
  virtual std::unique_ptr<CallerState> saveCallerState() const {
    return nullptr;
  }

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  /// Allocates `bytes` of zeroed memory, at least 64-byte aligned, freed by
  /// the destructor; a zero-byte allocation still gets a distinct address.
  /// `what` names the buffer in the error.
  virtual bool allocate(uint64_t bytes, const std::string &what, void *&out,
                        std::string &error) = 0;
  /// Copies host memory into the device's memory and waits for the copy.
  /// (Only called while no step runs.)
  virtual bool upload(void *destination, const void *source, size_t bytes,
                      std::string &error) = 0;
  /// Makes `bytes` of host memory at `pointer` faster to copy to and from
  /// (pins it); best effort, undone by the destructor.
  virtual void registerHostMemory(void *pointer, size_t bytes,
                                  const std::string &what) {}
  /// Waits for everything that set-up (allocate, upload, prepareLaunch)
  /// queued, before the first run.
  virtual bool finishSetup(std::string &error) { return true; }

  //===--------------------------------------------------------------------===//
  // Kernels
  //===--------------------------------------------------------------------===//

  /// Makes kernel `kernelIndex` of `artifact` ready to run on this device
  /// for a step whose values (inputs, then outputs) are at `buffers`
  /// (addresses in this device's memory, or host memory for a host-memory
  /// device). Binaries are loaded once per device. `step` names the step in
  /// errors.
  virtual std::unique_ptr<PreparedLaunch>
  prepareLaunch(const Artifact &artifact, uint32_t kernelIndex,
                const std::vector<void *> &buffers, const std::string &step,
                std::string &error) = 0;

  //===--------------------------------------------------------------------===//
  // Execution
  //===--------------------------------------------------------------------===//

  /// Runs (synchronous device) or enqueues on the Compute queue a prepared
  /// launch; `events` are recorded around it on an asynchronous device.
  virtual bool launch(PreparedLaunch &launch, const StepEvents &events,
                      std::string &error) = 0;

  /// Whether this device can copy between its memory (or host memory) and
  /// the memory of `other` itself (a peer copy).
  virtual bool canCopyWith(const Device &other) const { return &other == this; }
  /// Enqueues on the Transfer queue a copy of `bytes`; each side is host
  /// memory, this device's memory, or memory of a device canCopyWith
  /// accepts. Asynchronous devices only.
  virtual bool enqueueCopy(Memory destination, Memory source, size_t bytes,
                           const StepEvents &events, std::string &error) {
    error = getDescription() + " cannot enqueue copies";
    return false;
  }
  /// Copies like enqueueCopy, on a queue of its own, and waits for the copy.
  virtual bool copyAndWait(Memory destination, Memory source, size_t bytes,
                           std::string &error) = 0;

  /// Creates an event of this device (asynchronous devices only), destroyed
  /// by the device; with `timing`, one elapsedNanoseconds can measure.
  virtual std::unique_ptr<Event> createEvent(bool timing, std::string &error) {
    error = getDescription() + " has no events";
    return nullptr;
  }
  /// Whether elapsedNanoseconds works.
  virtual bool canTime() const { return false; }
  /// The device time between two completed timing events.
  virtual bool elapsedNanoseconds(const Event &start, const Event &end,
                                  uint64_t &out, std::string &error) const {
    error = getDescription() + " cannot time events";
    return false;
  }
  /// Whether `queue` of this device can wait for events of `other` on the
  /// device (rather than the host waiting for them).
  virtual bool canWaitOnDevice(const Device &other) const { return false; }
  /// Makes `queue` wait for `event` (of this device or of a device
  /// canWaitOnDevice accepts).
  virtual bool waitForEvent(Queue queue, const Event &event,
                            std::string &error) {
    error = getDescription() + " cannot wait for events";
    return false;
  }
  /// Waits on the host for `event` of this device.
  virtual bool synchronizeEvent(const Event &event, std::string &error) {
    error = getDescription() + " has no events";
    return false;
  }
  /// Waits for every queue of the device.
  virtual bool synchronize(std::string &error) { return true; }
};

/// Creates the device an artifact describes, or returns null with `error`
/// set (the driver is missing, cannot be opened, or has no such device).
using DeviceFactory = std::unique_ptr<Device> (*)(const DeviceDesc &desc,
                                                  std::string &error);

/// Adds driver `name` (DeviceDesc::driver) to the drivers of this runtime.
/// Called by each driver's register function (see Drivers.def).
void registerDriver(const std::string &name, DeviceFactory factory);

/// Returns the factory of driver `name`, or null.
DeviceFactory lookupDriver(const std::string &name);

/// The names of the drivers of this runtime, sorted.
std::vector<std::string> getDriverNames();

/// Opens the vendor library at `path` (dlopen, local symbols); on failure
/// returns null with `reason` set to the loader's message without the path.
void *openVendorLibrary(const std::string &path, std::string &reason);

/// Returns the address of `name` in a library openVendorLibrary opened, or
/// null.
void *lookupVendorSymbol(void *library, const char *name);

/// Resolves entry point `name` of `library` into `slot`; when it is missing,
/// records `name` in `missing` unless an earlier one is there.
template <typename Fn>
void resolveVendorSymbol(void *library, const char *name, Fn &slot,
                         std::string &missing) {
  void *address = lookupVendorSymbol(library, name);
  if (!address && missing.empty())
    missing = name;
  slot = reinterpret_cast<Fn>(address);
}

} // namespace orx::hal

#endif // ORCHESTRA_RT_HAL_DEVICE_H
