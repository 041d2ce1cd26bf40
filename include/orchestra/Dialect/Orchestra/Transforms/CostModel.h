//===- CostModel.h - Time estimates of tasks and transfers ------*- C++ -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The scheduler's cost model (stage 2). For a fusion group and a device of the
// topology it estimates the run time as a roofline, the larger of
// FLOPs / peak FLOP/s (for the group's element type) and bytes moved /
// memory bandwidth, plus the device's launch overhead; infinite where the
// device's arch cannot take one of the group's ops (the registry's support
// mask) or has no throughput figure for its element type. Transfers between
// memory spaces cost latency + bytes / bandwidth summed along the fastest
// route of the topology's links.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_COSTMODEL_H
#define ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_COSTMODEL_H

#include "orchestra/Dialect/Orchestra/Utils/DynamicDims.h"
#include "orchestra/Topology/Topology.h"

#include "mlir/IR/Operation.h"

#include <string>
#include <vector>

namespace mlir::orchestra {
class TargetRegistry;

/// What a group of ops computes and moves.
struct Work {
  /// Arithmetic operations (a multiply-add counts two).
  double flops = 0;
  /// Bytes read from and written to device memory: inputs from outside the
  /// group and results.
  double bytes = 0;
  /// The element type that sets the throughput ("f32", "bf16", "i32", ...):
  /// that of the anchor's (else the first op's) first result.
  std::string elementType = "f32";
  /// What SIMT devices (TargetInfo::simtLanes) spend on top of `flops`
  /// where the lanes of a warp disagree on a branch and the warp runs both
  /// sides (a profile's divergence rates; design/0019).
  double divergenceFlops = 0;
};

/// The sizes a program is costed at (design/0017, decision 5): static sizes
/// as they are, a dynamic size through its expression in the dims at their
/// opt (`--dim NAME=MIN..MAX@OPT`: times) or their max (memory, which the
/// plan holds at the largest sizes); 1 where it has none.
class CostShapes {
public:
  enum Point { AtOpt, AtMax };
  /// Static sizes only (dynamic ones cost 1).
  CostShapes() = default;
  CostShapes(func::FuncOp entry, ArrayRef<DynamicDim> dims, Point point);

  /// The size of dimension `dim` of the shaped `value`.
  int64_t getDimSize(Value value, int64_t dim) const;
  /// Arithmetic work of one op: for structured ops, iterations times the
  /// scalar ops of the body; for an `scf.for` its body's work times its
  /// trip count; for others one operation per result element. A branch
  /// costs its sides weighted by the profile's shares (half each without
  /// one); `simt` adds, for branches whose warps diverged
  /// (orchestra.branch_divergence), the side a divergent warp also runs.
  double estimateFlops(Operation *op, bool simt = false) const;
  /// estimateFlops(op, true) - estimateFlops(op): Work::divergenceFlops.
  double estimateDivergenceFlops(Operation *op) const;
  /// Bytes of a value: its buffer size for tensors of int or float
  /// elements, one 8-byte word otherwise.
  double estimateBytes(Value value) const;

private:
  int64_t getNumElements(Value value) const;

  func::FuncOp entry;
  /// The dims' sizes, in symbol order.
  SmallVector<int64_t> sizes;
  mutable DenseMap<std::pair<Value, int64_t>, int64_t> cache;
};

/// The element type name the throughput tables use ("f32", "i8", "i1", ...).
std::string getElementTypeName(Type type);

class CostModel {
public:
  /// Routes between the default memory spaces of every pair of devices are
  /// computed once here.
  CostModel(const Topology &topology, const TargetRegistry &registry);

  const Topology &getTopology() const { return topology; }

  /// Whether this build can compile tasks for `device`'s arch (its registry
  /// entry has a lowering pipeline).
  bool canCompile(const TopologyDevice &device) const;

  /// Whether every op of `ops` is in the support mask of `device`'s arch.
  bool supports(const TopologyDevice &device, ArrayRef<Operation *> ops) const {
    return !getUnsupportedOp(device, ops);
  }
  /// The first op of `ops` (or nested in one) outside the support mask of
  /// `device`'s arch, or null; an unknown arch supports nothing (returns the
  /// first op).
  Operation *getUnsupportedOp(const TopologyDevice &device,
                              ArrayRef<Operation *> ops) const;

  /// Peak FLOP/s of `device` for `elementType`: its entry, else for 16-bit
  /// floats the f32 entry, for integers the i32 then the f32 entry; 0 when
  /// the device has none (f64 on a device without an f64 entry).
  double getPeakFlops(const TopologyDevice &device,
                      StringRef elementType) const;

  /// Estimated time of `work` on `device`, seconds; infinity when the device
  /// has no throughput for its element type.
  double computeTime(const TopologyDevice &device, const Work &work) const;

  /// Time to move `bytes` from the default memory space of device `from` to
  /// that of device `to` (indices into the topology's devices): the sum of
  /// latencies plus bytes over each link's bandwidth along the route.
  /// Zero on the same device; infinity without a route.
  double transferTime(unsigned from, unsigned to, double bytes) const;
  /// The route's fixed part (seconds) and time per byte.
  double getRouteLatency(unsigned from, unsigned to) const {
    return routeLatency[from * numDevices + to];
  }
  double getRouteSecondsPerByte(unsigned from, unsigned to) const {
    return routePerByte[from * numDevices + to];
  }
  /// Memory spaces the route from `from` to `to` passes through, both ends
  /// included; empty without a route.
  std::vector<std::string> getRoute(unsigned from, unsigned to) const;

  /// The default memory space of device `index`, or null.
  const TopologyMemorySpace *getDefaultSpace(unsigned index) const {
    return defaultSpaces[index];
  }

private:
  const Topology &topology;
  const TargetRegistry &registry;
  unsigned numDevices;
  std::vector<const TopologyMemorySpace *> defaultSpaces;
  std::vector<double> routeLatency, routePerByte;
  /// Next hop (memory-space index) on the route between memory spaces.
  std::vector<int> nextHop;
  std::vector<int> spaceOfDevice;
};

} // namespace mlir::orchestra

#endif // ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_COSTMODEL_H
