//===- CostModel.cpp - Time estimates of tasks and transfers --------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/Transforms/CostModel.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/Transforms/Plan.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace mlir::orchestra;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

CostShapes::CostShapes(func::FuncOp entry, ArrayRef<DynamicDim> dims,
                       Point point)
    : entry(entry) {
  for (const DynamicDim &dim : dims)
    sizes.push_back(point == AtOpt ? dim.opt : dim.max);
}

int64_t CostShapes::getDimSize(Value value, int64_t dim) const {
  auto shaped = cast<ShapedType>(value.getType());
  if (!shaped.isDynamicDim(dim))
    return shaped.getDimSize(dim);
  if (!entry || sizes.empty())
    return 1;
  auto key = std::make_pair(value, dim);
  auto it = cache.find(key);
  if (it != cache.end())
    return it->second;
  FailureOr<AffineExpr> expr =
      getDimExpr(value, dim, entry, resolveEntryArgDim);
  int64_t size =
      succeeded(expr) ? std::max<int64_t>(1, evaluateDimExpr(*expr, sizes)) : 1;
  cache[key] = size;
  return size;
}

int64_t CostShapes::getNumElements(Value value) const {
  auto shaped = cast<ShapedType>(value.getType());
  if (!shaped.hasRank())
    return 1;
  int64_t count = 1;
  for (int64_t d = 0; d < shaped.getRank(); ++d)
    count *= getDimSize(value, d);
  return count;
}

double CostShapes::estimateFlops(Operation *op, bool simt) const {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    // The loop ranges from the operands' sizes at opt.
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic)) {
      SmallVector<int64_t> sizes;
      for (OpOperand &operand : op->getOpOperands())
        for (int64_t d = 0, e = linalgOp.getRank(&operand); d < e; ++d)
          sizes.push_back(getDimSize(operand.get(), d));
      if (AffineMap map = linalgOp.getShapesToLoopsMap())
        ranges = map.compose(sizes);
    }
    double iterations = 1;
    for (int64_t range : ranges)
      iterations *= ShapedType::isDynamic(range) ? 1 : range;
    // Scalar ops count one each, a branch its sides' ops.
    double bodyOps = 0;
    if (Block *body = linalgOp.getBlock())
      for (Operation &nested : body->without_terminator())
        bodyOps += nested.getNumRegions() ? estimateFlops(&nested, simt) : 1;
    return iterations * std::max(1.0, bodyOps);
  }
  // A loop (a recurrent layer's steps): its body's ops, once per iteration.
  if (auto loop = dyn_cast<scf::ForOp>(op)) {
    std::optional<APInt> trips = loop.getStaticTripCount();
    double body = 0;
    for (Operation &nested : loop.getBody()->without_terminator())
      body += estimateFlops(&nested, simt);
    return (trips ? trips->getZExtValue() : 1) * body;
  }
  // A branch: each side's ops, weighted by the probability p that it is
  // taken: measured (orchestra.branch_weights, from a profile), else one
  // half; on a SIMT device a warp whose lanes disagree (a share d of them,
  // orchestra.branch_divergence) runs both sides (design/0019):
  // (1 - d)(p T + (1 - p) E) + d (T + E).
  if (auto branch = dyn_cast<scf::IfOp>(op)) {
    double thenShare = 0.5;
    auto weights = op->getAttrOfType<DenseI64ArrayAttr>(attr::kBranchWeights);
    if (weights && weights.size() == 2 && weights[0] >= 0 && weights[1] >= 0 &&
        weights[0] + weights[1] > 0)
      thenShare = double(weights[0]) / (double(weights[0]) + weights[1]);
    double divergence = 0;
    if (auto rate = op->getAttrOfType<FloatAttr>(attr::kBranchDivergence);
        simt && rate)
      divergence = std::clamp(rate.getValueAsDouble(), 0.0, 1.0);
    double sides[2] = {0, 0};
    // (An array of its own: a braced list in the loop's range would end
    // before the loop body runs.)
    Region *regions[2] = {&branch.getThenRegion(), &branch.getElseRegion()};
    for (int s = 0; s < 2; ++s)
      if (!regions[s]->empty())
        for (Operation &nested : regions[s]->front().without_terminator())
          sides[s] += estimateFlops(&nested, simt);
    return (1 - divergence) *
               (thenShare * sides[0] + (1 - thenShare) * sides[1]) +
           divergence * (sides[0] + sides[1]);
  }
  // A loop whose trip count is data: its body's ops once per iteration,
  // measured (next iterations over exits, from a profile), else once.
  if (auto loop = dyn_cast<scf::WhileOp>(op)) {
    double trips = 1;
    auto weights = op->getAttrOfType<DenseI64ArrayAttr>(attr::kBranchWeights);
    if (weights && weights.size() == 2 && weights[0] >= 0 && weights[1] > 0)
      trips = double(weights[0]) / double(weights[1]);
    double before = 0, after = 0;
    for (Operation &nested : loop.getBeforeBody()->without_terminator())
      before += estimateFlops(&nested, simt);
    for (Operation &nested : loop.getAfterBody()->without_terminator())
      after += estimateFlops(&nested, simt);
    return (trips + 1) * before + trips * after;
  }
  double flops = 0;
  for (Value result : op->getResults())
    flops += isa<ShapedType>(result.getType()) ? getNumElements(result) : 1;
  return flops;
}

double CostShapes::estimateDivergenceFlops(Operation *op) const {
  return estimateFlops(op, /*simt=*/true) - estimateFlops(op);
}

double CostShapes::estimateBytes(Value value) const {
  auto shaped = dyn_cast<ShapedType>(value.getType());
  if (!shaped || !shaped.hasRank() || !shaped.getElementType().isIntOrFloat())
    return 8;
  if (shaped.hasStaticShape())
    return getBufferSize(shaped);
  return static_cast<double>(getNumElements(value)) *
         llvm::divideCeil(shaped.getElementType().getIntOrFloatBitWidth(), 8);
}

std::string mlir::orchestra::getElementTypeName(Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  std::string name;
  llvm::raw_string_ostream os(name);
  os << type;
  return name;
}

CostModel::CostModel(const Topology &topology, const TargetRegistry &registry)
    : topology(topology), registry(registry),
      numDevices(topology.devices.size()) {
  unsigned numSpaces = topology.memorySpaces.size();
  llvm::StringMap<int> spaceIndex;
  for (auto [i, space] : llvm::enumerate(topology.memorySpaces))
    spaceIndex[space.name] = i;

  // Fastest routes between memory spaces (Floyd-Warshall on the time of a
  // 1 MiB transfer), keeping latency and time per byte apart.
  constexpr double kNominalBytes = 1 << 20;
  std::vector<double> latency(numSpaces * numSpaces, kInfinity);
  std::vector<double> perByte(numSpaces * numSpaces, kInfinity);
  nextHop.assign(numSpaces * numSpaces, -1);
  for (unsigned s = 0; s < numSpaces; ++s) {
    latency[s * numSpaces + s] = 0;
    perByte[s * numSpaces + s] = 0;
    nextHop[s * numSpaces + s] = s;
  }
  auto addLink = [&](int from, int to, const TopologyLink &link) {
    unsigned pair = from * numSpaces + to;
    double time = link.latency + kNominalBytes / link.bandwidth;
    if (time < latency[pair] + kNominalBytes * perByte[pair]) {
      latency[pair] = link.latency;
      perByte[pair] = 1 / link.bandwidth;
      nextHop[pair] = to;
    }
  };
  for (const TopologyLink &link : topology.links) {
    auto from = spaceIndex.find(link.from), to = spaceIndex.find(link.to);
    if (from == spaceIndex.end() || to == spaceIndex.end())
      continue;
    addLink(from->second, to->second, link);
    if (link.bidirectional)
      addLink(to->second, from->second, link);
  }
  for (unsigned k = 0; k < numSpaces; ++k)
    for (unsigned i = 0; i < numSpaces; ++i)
      for (unsigned j = 0; j < numSpaces; ++j) {
        unsigned ik = i * numSpaces + k, kj = k * numSpaces + j,
                 ij = i * numSpaces + j;
        if (nextHop[ik] < 0 || nextHop[kj] < 0)
          continue;
        double viaLatency = latency[ik] + latency[kj];
        double viaPerByte = perByte[ik] + perByte[kj];
        if (nextHop[ij] < 0 || viaLatency + kNominalBytes * viaPerByte <
                                   latency[ij] + kNominalBytes * perByte[ij]) {
          latency[ij] = viaLatency;
          perByte[ij] = viaPerByte;
          nextHop[ij] = nextHop[ik];
        }
      }

  defaultSpaces.resize(numDevices, nullptr);
  spaceOfDevice.assign(numDevices, -1);
  for (auto [d, device] : llvm::enumerate(topology.devices))
    if (const TopologyMemorySpace *space =
            topology.getDefaultMemorySpace(device, registry)) {
      defaultSpaces[d] = space;
      spaceOfDevice[d] = spaceIndex.lookup(space->name);
    }
  routeLatency.assign(numDevices * numDevices, kInfinity);
  routePerByte.assign(numDevices * numDevices, kInfinity);
  for (unsigned p = 0; p < numDevices; ++p)
    for (unsigned q = 0; q < numDevices; ++q) {
      int from = spaceOfDevice[p], to = spaceOfDevice[q];
      if (from < 0 || to < 0 || nextHop[from * numSpaces + to] < 0)
        continue;
      routeLatency[p * numDevices + q] = latency[from * numSpaces + to];
      routePerByte[p * numDevices + q] = perByte[from * numSpaces + to];
    }
}

std::vector<std::string> CostModel::getRoute(unsigned from, unsigned to) const {
  unsigned numSpaces = topology.memorySpaces.size();
  int at = spaceOfDevice[from], end = spaceOfDevice[to];
  if (at < 0 || end < 0 || nextHop[at * numSpaces + end] < 0)
    return {};
  std::vector<std::string> route = {topology.memorySpaces[at].name};
  while (at != end) {
    at = nextHop[at * numSpaces + end];
    route.push_back(topology.memorySpaces[at].name);
  }
  return route;
}

bool CostModel::canCompile(const TopologyDevice &device) const {
  const TargetInfo *info = registry.lookup(device.arch);
  return info && !info->loweringPipeline.empty();
}

Operation *CostModel::getUnsupportedOp(const TopologyDevice &device,
                                       ArrayRef<Operation *> ops) const {
  const TargetInfo *info = registry.lookup(device.arch);
  if (!info)
    return ops.empty() ? nullptr : ops.front();
  if (!info->supportsDynamicShapes) {
    auto isDynamic = [](Type type) {
      auto shaped = dyn_cast<ShapedType>(type);
      return shaped && shaped.hasRank() && !shaped.hasStaticShape();
    };
    for (Operation *op : ops)
      if (llvm::any_of(op->getResultTypes(), isDynamic) ||
          llvm::any_of(op->getOperandTypes(), isDynamic))
        return op;
  }
  if (!info->supportsOp)
    return nullptr;
  for (Operation *op : ops) {
    Operation *unsupported = nullptr;
    // Pre-order, so that skipping a structured op skips its body.
    op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
      // Bodies of structured ops are judged with their op.
      if (nested != op && isa<linalg::LinalgOp>(nested->getParentOp()))
        return WalkResult::skip();
      if (!info->supportsOp(nested)) {
        unsupported = nested;
        return WalkResult::interrupt();
      }
      return isa<linalg::LinalgOp>(nested) ? WalkResult::skip()
                                           : WalkResult::advance();
    });
    if (unsupported)
      return unsupported;
  }
  return nullptr;
}

double CostModel::getPeakFlops(const TopologyDevice &device,
                               StringRef elementType) const {
  auto lookup = [&](StringRef key) { return device.peakFlops.lookup(key); };
  if (double peak = lookup(elementType))
    return peak;
  if (elementType == "f16" || elementType == "bf16")
    return lookup("f32");
  if (elementType.starts_with("i") || elementType.starts_with("ui") ||
      elementType.starts_with("si") || elementType == "index") {
    if (double peak = lookup("i32"))
      return peak;
    return lookup("f32");
  }
  return 0;
}

double CostModel::computeTime(const TopologyDevice &device,
                              const Work &work) const {
  double peak = getPeakFlops(device, work.elementType);
  if (peak <= 0)
    return kInfinity;
  double flops = work.flops;
  const TargetInfo *info = registry.lookup(device.arch);
  if (info && info->simtLanes > 0)
    flops += work.divergenceFlops;
  double compute = flops / peak;
  double memory =
      device.memoryBandwidth > 0 ? work.bytes / device.memoryBandwidth : 0;
  return std::max(compute, memory) + device.launchOverhead;
}

double CostModel::transferTime(unsigned from, unsigned to, double bytes) const {
  if (from == to)
    return 0;
  unsigned pair = from * numDevices + to;
  return routeLatency[pair] + bytes * routePerByte[pair];
}
