//===- ArtifactBuilder.cpp - Compiled module to .orcx artifact ------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Artifact/ArtifactBuilder.h"
#include "orchestra/Artifact/DType.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"

#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Dialect/Orchestra/Transforms/EntryFunction.h"
#include "orchestra/Dialect/Orchestra/Transforms/Plan.h"
#include "orchestra/Dialect/Orchestra/Utils/DynamicDims.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::orchestra;

namespace {

FailureOr<orx::DType> getDType(Location loc, Type type, bool isUnsigned) {
  Type element = cast<ShapedType>(type).getElementType();
  if (std::optional<orx::DType> dtype = toDType(element, isUnsigned))
    return *dtype;
  return emitError(loc) << "element type " << element
                        << " cannot cross the runtime interface";
}

/// `expr` (a size in the entry's dims) as a postfix size program.
LogicalResult appendSizeProgram(AffineExpr expr, std::vector<int64_t> &code) {
  if (auto constant = dyn_cast<AffineConstantExpr>(expr)) {
    code.push_back(static_cast<int64_t>(orx::SizeOp::Const));
    code.push_back(constant.getValue());
    return success();
  }
  if (auto symbol = dyn_cast<AffineSymbolExpr>(expr)) {
    code.push_back(static_cast<int64_t>(orx::SizeOp::Dim));
    code.push_back(symbol.getPosition());
    return success();
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary || failed(appendSizeProgram(binary.getLHS(), code)) ||
      failed(appendSizeProgram(binary.getRHS(), code)))
    return failure();
  orx::SizeOp op;
  switch (expr.getKind()) {
  case AffineExprKind::Add:
    op = orx::SizeOp::Add;
    break;
  case AffineExprKind::Mul:
    op = orx::SizeOp::Mul;
    break;
  case AffineExprKind::FloorDiv:
    op = orx::SizeOp::FloorDiv;
    break;
  case AffineExprKind::CeilDiv:
    op = orx::SizeOp::CeilDiv;
    break;
  case AffineExprKind::Mod:
    op = orx::SizeOp::Mod;
    break;
  default:
    return failure();
  }
  code.push_back(static_cast<int64_t>(op));
  return success();
}

/// The sizes of the plan's values whose shapes depend on the dims
/// (orchestra-plan-buffers' `orchestra.shapes`), with the dims' ranges.
class PlanShapes {
public:
  LogicalResult init(func::FuncOp func) {
    FailureOr<SmallVector<DynamicDim>> found = getDynamicDims(func);
    if (failed(found))
      return failure();
    dims = std::move(*found);
    auto record = [&](ValueRange values, ArrayAttr maps) -> LogicalResult {
      if (!maps)
        return success();
      if (maps.size() != values.size())
        return emitError(func.getLoc())
               << "'" << attr::kShapes << "' does not match the values";
      for (auto [value, map] : llvm::zip(values, maps))
        shapes[value] =
            llvm::to_vector(cast<AffineMapAttr>(map).getValue().getResults());
      return success();
    };
    if (failed(record(func.getArguments(),
                      func->getAttrOfType<ArrayAttr>(attr::kArgShapes))))
      return failure();
    WalkResult walk = func.walk([&](Operation *op) {
      return failed(record(op->getResults(),
                           op->getAttrOfType<ArrayAttr>(attr::kShapes)))
                 ? WalkResult::interrupt()
                 : WalkResult::advance();
    });
    return failure(walk.wasInterrupted());
  }

  ArrayRef<DynamicDim> getDims() const { return dims; }

  /// The sizes of a dynamic dimension of `value`, or null.
  AffineExpr getSize(Value value, int64_t dim) const {
    auto it = shapes.find(value);
    return it == shapes.end() ? AffineExpr() : it->second[dim];
  }

  /// The bytes of `value`'s buffer (at the upper bounds of its sizes).
  FailureOr<int64_t> getBufferBytes(Value value) const {
    auto type = cast<ShapedType>(value.getType());
    if (type.hasStaticShape())
      return getBufferSize(type);
    auto it = shapes.find(value);
    if (it == shapes.end())
      return emitError(value.getLoc())
             << "value of dynamic type " << type << " has no planned sizes";
    FailureOr<SmallVector<int64_t>> bound =
        getUpperBoundShape(it->second, dims);
    if (failed(bound))
      return emitError(value.getLoc()) << "value has unbounded sizes";
    return getBufferSize(type.clone(*bound));
  }

  /// The size programs of `value`'s dynamic dimensions, appended to `out`.
  LogicalResult appendDynamicSizes(Value value,
                                   std::vector<orx::SizeExpr> &out) const {
    auto type = cast<ShapedType>(value.getType());
    for (int64_t dim = 0; dim < type.getRank(); ++dim) {
      if (!type.isDynamicDim(dim))
        continue;
      AffineExpr size = getSize(value, dim);
      orx::SizeExpr program;
      if (!size || failed(appendSizeProgram(size, program.code)))
        return emitError(value.getLoc())
               << "dimension #" << dim << " of a value of type " << type
               << " has no size program";
      out.push_back(std::move(program));
    }
    return success();
  }

private:
  SmallVector<DynamicDim> dims;
  DenseMap<Value, SmallVector<AffineExpr>> shapes;
};

FailureOr<orx::TensorDesc> getTensorDesc(Value value, std::string name,
                                         bool isUnsigned,
                                         const PlanShapes &shapes) {
  Type type = value.getType();
  FailureOr<orx::DType> dtype = getDType(value.getLoc(), type, isUnsigned);
  if (failed(dtype))
    return failure();
  orx::TensorDesc desc;
  desc.name = std::move(name);
  desc.dtype = *dtype;
  for (int64_t size : cast<ShapedType>(type).getShape())
    desc.shape.push_back(ShapedType::isDynamic(size) ? -1 : size);
  if (failed(shapes.appendDynamicSizes(value, desc.dynamicSizes)))
    return failure();
  return desc;
}

/// The bytes of a constant in memory layout (row major, i1 as one byte).
FailureOr<std::vector<uint8_t>> getConstantBytes(Operation *op) {
  auto typed = op->getAttrOfType<TypedAttr>("value");
  auto type = typed ? dyn_cast<ShapedType>(typed.getType()) : ShapedType();
  if (!type || !type.hasStaticShape())
    return op->emitError() << "constant of the schedule must have a "
                              "statically shaped tensor value";
  int64_t elementBytes =
      getBufferSize(RankedTensorType::get({1}, type.getElementType()));
  std::vector<uint8_t> bytes;
  bytes.reserve(type.getNumElements() * elementBytes);
  // Little endian, one byte per element at least.
  auto append = [&](const APInt &bits) {
    unsigned width = bits.getBitWidth();
    for (int64_t i = 0; i < elementBytes; ++i) {
      unsigned low = 8 * i;
      uint64_t byte =
          low < width
              ? bits.extractBitsAsZExtValue(std::min(8u, width - low), low)
              : 0;
      bytes.push_back(static_cast<uint8_t>(byte));
    }
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(typed)) {
    if (isa<FloatType>(type.getElementType())) {
      for (APFloat value : dense.getValues<APFloat>())
        append(value.bitcastToAPInt());
    } else if (type.getElementType().isIntOrIndex()) {
      for (APInt value : dense.getValues<APInt>())
        append(value);
    } else {
      return op->emitError()
             << "unsupported constant element type " << type.getElementType();
    }
    return bytes;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(typed)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return op->emitError() << "constant resource has no data";
    ArrayRef<char> data = blob->getData();
    if (static_cast<int64_t>(data.size()) !=
        type.getNumElements() * elementBytes)
      return op->emitError() << "constant resource holds " << data.size()
                             << " bytes, its type needs "
                             << type.getNumElements() * elementBytes;
    bytes.assign(data.begin(), data.end());
    return bytes;
  }
  return op->emitError() << "unsupported constant attribute " << typed;
}

std::vector<uint8_t> toBytes(StringRef data) {
  return std::vector<uint8_t>(data.bytes_begin(), data.bytes_end());
}

} // namespace

FailureOr<orx::Artifact> mlir::orchestra::buildArtifact(ModuleOp module,
                                                        StringRef entry) {
  FailureOr<func::FuncOp> funcOr = lookupEntryFunction(module, entry);
  if (failed(funcOr))
    return failure();
  func::FuncOp func = *funcOr;
  ScheduleOp schedule;
  for (Operation &op : func.getBody().front())
    if (auto s = dyn_cast<ScheduleOp>(op))
      schedule = s;
  auto argOffsets = func->getAttrOfType<DenseI64ArrayAttr>(attr::kArgOffsets);
  auto plan = func->getAttrOfType<DictionaryAttr>(attr::kPlan);
  if (!schedule || !argOffsets || !plan)
    return func.emitError() << "entry function '" << func.getSymName()
                            << "' has no planned schedule (run the pipeline "
                               "up to orchestra-plan-buffers)";
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  if (ret.getOperands() != ValueRange(schedule.getResults()))
    return ret.emitError() << "the entry function must return the results "
                              "of its schedule";

  orx::Artifact artifact;
  artifact.producer = "orchestra-compile " ORCHESTRA_VERSION;
  artifact.entryName = func.getSymName().str();
  PlanShapes shapes;
  if (failed(shapes.init(func)))
    return failure();
  for (const DynamicDim &dim : shapes.getDims())
    artifact.dims.push_back({dim.name, dim.min, dim.max});

  // Devices, from the topology the module was placed for.
  FailureOr<TopologyAttr> topology =
      TopologyAttr::require(module, "an artifact");
  if (failed(topology))
    return failure();
  artifact.topologyName = topology->getName().str();
  for (DeviceAttr device : topology->getDevices()) {
    // The verifier of DeviceAttr checked the arch is registered.
    const TargetInfo *target =
        getTargetRegistry().lookup(device.getArch().getValue());
    orx::DeviceDesc desc;
    desc.name = device.getName().str();
    desc.arch = device.getArch().str();
    desc.driver = target->runtimeDriver;
    desc.deviceId = device.getDeviceId();
    desc.numThreads = device.getComputeUnits();
    artifact.devices.push_back(desc);
  }
  auto deviceIndex = [&](StringRef arch,
                         int64_t deviceId) -> std::optional<uint32_t> {
    for (auto [i, device] : llvm::enumerate(artifact.devices))
      if (device.arch == arch && device.deviceId == deviceId)
        return i;
    return std::nullopt;
  };

  // Memory spaces with their arenas.
  llvm::StringMap<uint32_t> spaceIndex;
  for (auto space : module.getOps<MemorySpaceOp>()) {
    std::optional<uint32_t> device =
        deviceIndex(space.getArch(), space.getDeviceId());
    if (!device)
      return space.emitOpError() << "belongs to no device of the topology";
    orx::MemorySpaceDesc desc;
    desc.name = space.getSymName().str();
    desc.device = *device;
    if (auto usage = plan.getAs<DictionaryAttr>(space.getSymName()))
      if (auto peak = usage.getAs<IntegerAttr>("peak"))
        desc.arenaBytes = peak.getInt();
    spaceIndex[space.getSymName()] = artifact.memorySpaces.size();
    artifact.memorySpaces.push_back(desc);
  }
  FailureOr<MemorySpaceOp> host = lookupHostMemorySpace(module);
  if (failed(host))
    return failure();
  uint32_t hostSpace = spaceIndex.lookup(host->getSymName());

  // Values.
  DenseMap<Value, uint32_t> valueIds;
  auto addValue = [&](Value value, uint32_t space,
                      int64_t offset) -> FailureOr<uint32_t> {
    if (offset < 0)
      return emitError(value.getLoc()) << "value has no planned buffer";
    FailureOr<int64_t> bytes = shapes.getBufferBytes(value);
    if (failed(bytes))
      return failure();
    orx::ValueDesc desc;
    desc.space = space;
    desc.offset = offset;
    desc.bytes = *bytes;
    valueIds[value] = artifact.values.size();
    artifact.values.push_back(desc);
    return artifact.values.size() - 1;
  };
  if (argOffsets.size() != func.getNumArguments())
    return func.emitError() << "'orchestra.arg_offsets' does not match the "
                               "arguments";
  for (BlockArgument arg : func.getArguments()) {
    FailureOr<uint32_t> id =
        addValue(arg, hostSpace, argOffsets[arg.getArgNumber()]);
    if (failed(id))
      return failure();
    auto name =
        func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), attr::kName);
    FailureOr<orx::TensorDesc> desc = getTensorDesc(
        arg, name ? name.str() : "input_" + std::to_string(arg.getArgNumber()),
        func.getArgAttr(arg.getArgNumber(), attr::kUnsigned) != nullptr,
        shapes);
    if (failed(desc))
      return failure();
    artifact.inputs.push_back(*desc);
    artifact.inputValues.push_back(*id);
  }
  auto addDefinedValues = [&](Operation *op, uint32_t space) -> LogicalResult {
    if (auto planned = op->getAttrOfType<FlatSymbolRefAttr>(attr::kSpace)) {
      auto it = spaceIndex.find(planned.getValue());
      if (it == spaceIndex.end())
        return op->emitOpError() << "is planned in an unknown memory space";
      space = it->second;
    }
    auto offsets = op->getAttrOfType<DenseI64ArrayAttr>(attr::kOffsets);
    if (!offsets || offsets.size() != op->getNumResults())
      return op->emitOpError() << "has no planned buffers "
                                  "('orchestra.offsets')";
    for (auto [result, offset] :
         llvm::zip(op->getResults(), offsets.asArrayRef()))
      if (failed(addValue(result, space, offset)))
        return failure();
    return success();
  };

  // Kernels, by kernel module and function name.
  llvm::StringMap<uint32_t> binaryIndex;
  for (auto kernels : module.getOps<ModuleOp>()) {
    auto binary = kernels->getAttrOfType<StringAttr>(attr::kBinary);
    if (!binary)
      continue;
    orx::BinaryDesc desc;
    if (auto arch = kernels->getAttrOfType<StringAttr>(attr::kArch))
      desc.arch = arch.str();
    if (auto format = kernels->getAttrOfType<StringAttr>(attr::kBinaryFormat))
      desc.format = format.str();
    desc.data = toBytes(binary.getValue());
    if (auto features =
            kernels->getAttrOfType<ArrayAttr>(attr::kRequiredFeatures))
      for (Attribute feature : features)
        if (auto name = dyn_cast<StringAttr>(feature))
          desc.requiredFeatures.push_back(name.str());
    binaryIndex[kernels.getSymName().value_or("")] = artifact.binaries.size();
    artifact.binaries.push_back(std::move(desc));
  }
  llvm::StringMap<uint32_t> kernelIndex;

  // Steps, with the dependencies of SSA edges and of buffer reuse.
  DenseMap<Value, uint32_t> producerStep;
  struct Access {
    uint32_t step;
    uint32_t value;
  };
  SmallVector<Access> accesses;
  auto overlaps = [&](uint32_t a, uint32_t b) {
    const orx::ValueDesc &x = artifact.values[a];
    const orx::ValueDesc &y = artifact.values[b];
    return x.space == y.space && x.offset < y.offset + y.bytes &&
           y.offset < x.offset + x.bytes;
  };
  for (Operation &op : schedule.getBody().front()) {
    if (isa<YieldOp>(op))
      continue;
    if (op.hasTrait<OpTrait::ConstantLike>()) {
      if (failed(addDefinedValues(&op, hostSpace)))
        return failure();
      FailureOr<std::vector<uint8_t>> data = getConstantBytes(&op);
      if (failed(data))
        return failure();
      artifact.constants.push_back({valueIds[op.getResult(0)], *data});
      continue;
    }
    // Constants defined outside the schedule.
    for (Value operand : op.getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || valueIds.contains(operand) ||
          !def->hasTrait<OpTrait::ConstantLike>())
        continue;
      if (failed(addDefinedValues(def, hostSpace)))
        return failure();
      FailureOr<std::vector<uint8_t>> data = getConstantBytes(def);
      if (failed(data))
        return failure();
      artifact.constants.push_back({valueIds[operand], *data});
    }

    orx::StepDesc step;
    if (auto launch = dyn_cast<LaunchOp>(op)) {
      std::optional<uint32_t> device =
          deviceIndex(launch.getArch(), launch.getDeviceId());
      if (!device)
        return launch.emitOpError() << "runs on no device of the topology";
      StringRef moduleName = launch.getKernel().getRootReference().getValue();
      auto binary = binaryIndex.find(moduleName);
      if (binary == binaryIndex.end())
        return launch.emitOpError()
               << "kernel module @" << moduleName
               << " has not been compiled to a binary (run "
                  "orchestra-lower-kernels)";
      std::string symbol = (orx::kKernelSymbolPrefix +
                            launch.getKernel().getLeafReference().getValue())
                               .str();
      std::string key = (moduleName + "::" + symbol).str();
      auto [it, inserted] =
          kernelIndex.try_emplace(key, artifact.kernels.size());
      if (inserted) {
        orx::KernelDesc kernel{symbol, binary->second, {}};
        // The branch table of a kernel with probes: each branch's location.
        auto kernelModule = module.lookupSymbol<ModuleOp>(moduleName);
        auto table =
            kernelModule
                ? kernelModule->getAttrOfType<DictionaryAttr>(attr::kBranches)
                : DictionaryAttr();
        if (auto branches =
                table ? table.getAs<ArrayAttr>(
                            launch.getKernel().getLeafReference().getValue())
                      : ArrayAttr())
          for (Attribute location : branches) {
            std::string text;
            llvm::raw_string_ostream os(text);
            if (auto loc = dyn_cast<LocationAttr>(location))
              loc.print(os);
            kernel.branches.push_back(std::move(text));
          }
        artifact.kernels.push_back(std::move(kernel));
      }
      FailureOr<MemorySpaceOp> space = lookupDeviceMemorySpace(
          module, launch.getArch(), launch.getDeviceId());
      if (failed(space))
        return launch.emitOpError() << "runs on a device without memory";
      if (failed(
              addDefinedValues(launch, spaceIndex.lookup(space->getSymName()))))
        return failure();
      step.kind = orx::StepKind::Launch;
      step.device = *device;
      step.name = launch.getName().str();
      step.kernel = it->second;
      for (Value operand : launch.getArgs())
        step.args.push_back(valueIds.at(operand));
      step.numInputs = launch.getArgs().size();
      for (Value result : launch.getResults())
        step.args.push_back(valueIds.at(result));
      // The kernel's dynamic sizes, in the order of its arguments.
      for (Value value :
           llvm::concat<Value>(launch.getArgs(), launch.getResults()))
        if (failed(shapes.appendDynamicSizes(value, step.sizes)))
          return failure();
      if (auto start = launch.getPredictedStart())
        step.predictedStart = start->convertToDouble();
      if (auto finish = launch.getPredictedFinish())
        step.predictedFinish = finish->convertToDouble();
    } else if (auto transfer = dyn_cast<TransferOp>(op)) {
      auto to = spaceIndex.find(transfer.getTo());
      if (to == spaceIndex.end())
        return transfer.emitOpError() << "names an unknown memory space";
      if (failed(addDefinedValues(transfer, to->second)))
        return failure();
      step.kind = orx::StepKind::Copy;
      step.device = artifact.memorySpaces[to->second].device;
      step.name =
          ("copy " + transfer.getFrom() + " -> " + transfer.getTo()).str();
      step.args = {valueIds.at(transfer.getSource()),
                   valueIds.at(transfer.getResult())};
      step.numInputs = 1;
      if (auto start = transfer.getPredictedStart())
        step.predictedStart = start->convertToDouble();
      if (auto finish = transfer.getPredictedFinish())
        step.predictedFinish = finish->convertToDouble();
    } else if (auto commit = dyn_cast<CommitOp>(op)) {
      // A select step on the queue of the device whose memory holds the
      // results (orchestra-plan-buffers names it).
      if (failed(addDefinedValues(commit, hostSpace)))
        return failure();
      if (commit.getNumResults() == 0)
        continue;
      step.kind = orx::StepKind::Select;
      step.device =
          artifact
              .memorySpaces[artifact.values[valueIds.at(commit.getResult(0))]
                                .space]
              .device;
      step.name = "commit";
      if (auto loc = dyn_cast<NameLoc>(commit.getLoc()))
        step.name = ("commit " + loc.getName().getValue()).str();
      step.args.push_back(valueIds.at(commit.getCondition()));
      for (Value value :
           llvm::concat<Value>(commit.getTrueValues(), commit.getFalseValues()))
        step.args.push_back(valueIds.at(value));
      step.numInputs = step.args.size();
      for (Value result : commit.getResults())
        step.args.push_back(valueIds.at(result));
      // A profiled compile counts the speculated branch's outcomes too.
      if (module->hasAttr(attr::kProfileBranches)) {
        llvm::raw_string_ostream os(step.branchLocation);
        commit.getLoc().print(os);
      }
    } else {
      return op.emitOpError() << "cannot be executed by the runtime";
    }

    uint32_t index = artifact.steps.size();
    llvm::SetVector<uint32_t> deps;
    for (Value operand : op.getOperands())
      if (auto it = producerStep.find(operand); it != producerStep.end())
        deps.insert(it->second);
    for (uint32_t written :
         ArrayRef<uint32_t>(step.args).drop_front(step.numInputs))
      for (const Access &access : accesses)
        if (overlaps(written, access.value))
          deps.insert(access.step);
    step.deps.assign(deps.begin(), deps.end());
    llvm::sort(step.deps);
    for (uint32_t value : step.args)
      accesses.push_back({index, value});
    for (Value result : op.getResults())
      producerStep[result] = index;
    artifact.steps.push_back(std::move(step));
  }

  // Outputs.
  for (auto [i, value] : llvm::enumerate(schedule.getYield().getValues())) {
    auto id = valueIds.find(value);
    if (id == valueIds.end()) {
      // A constant yielded directly.
      Operation *def = value.getDefiningOp();
      if (!def || !def->hasTrait<OpTrait::ConstantLike>() ||
          failed(addDefinedValues(def, hostSpace)))
        return schedule.emitOpError()
               << "result #" << i << " has no planned buffer";
      FailureOr<std::vector<uint8_t>> data = getConstantBytes(def);
      if (failed(data))
        return failure();
      artifact.constants.push_back({valueIds[value], *data});
      id = valueIds.find(value);
    }
    if (artifact.values[id->second].space != hostSpace)
      return schedule.emitOpError()
             << "result #" << i << " is not in the host memory space";
    auto name = func.getResultAttrOfType<StringAttr>(i, attr::kName);
    FailureOr<orx::TensorDesc> desc = getTensorDesc(
        value, name ? name.str() : "output_" + std::to_string(i),
        func.getResultAttr(i, attr::kUnsigned) != nullptr, shapes);
    if (failed(desc))
      return failure();
    artifact.outputs.push_back(*desc);
    artifact.outputValues.push_back(id->second);
  }
  return artifact;
}
