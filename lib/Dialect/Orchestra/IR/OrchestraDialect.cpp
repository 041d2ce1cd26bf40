//===- OrchestraDialect.cpp - Orchestra dialect ---------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Dialect/Orchestra/IR/OrchestraDialect.h"
#include "orchestra/Dialect/Orchestra/IR/AttrNames.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraAttrs.h"
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.h"
#include "orchestra/Target/TargetRegistry.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::orchestra;

#include "orchestra/Dialect/Orchestra/IR/OrchestraOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "orchestra/Dialect/Orchestra/IR/OrchestraAttrs.cpp.inc"

void OrchestraDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "orchestra/Dialect/Orchestra/IR/OrchestraOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "orchestra/Dialect/Orchestra/IR/OrchestraAttrs.cpp.inc"
      >();
}

LogicalResult OrchestraDialect::verifyOperationAttribute(Operation *op,
                                                         NamedAttribute attr) {
  if (attr.getName() == attr::kTopology) {
    if (!isa<ModuleOp>(op))
      return op->emitError()
             << "'" << attr::kTopology << "' belongs on a module";
    if (!isa<TopologyAttr>(attr.getValue()))
      return op->emitError()
             << "'" << attr::kTopology
             << "' must be an #orchestra.topology, not " << attr.getValue();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// DeviceAttr
//===----------------------------------------------------------------------===//

LogicalResult DeviceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringAttr name, StringAttr arch,
                                 int64_t deviceId, int64_t computeUnits) {
  if (name.getValue().empty())
    return emitError() << "a device needs a name";
  if (!getTargetRegistry().lookup(arch.getValue()))
    return emitError() << "device '" << name.getValue() << "' has arch '"
                       << arch.getValue()
                       << "', which this build does not know";
  if (deviceId < 0)
    return emitError() << "device '" << name.getValue()
                       << "' has a negative device_id";
  if (computeUnits < 1)
    return emitError() << "device '" << name.getValue()
                       << "' needs at least one compute unit";
  return success();
}

//===----------------------------------------------------------------------===//
// TopologyAttr
//===----------------------------------------------------------------------===//

LogicalResult TopologyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   StringAttr name,
                                   ArrayRef<DeviceAttr> devices) {
  if (devices.empty())
    return emitError() << "topology '" << name.getValue() << "' has no device";
  llvm::StringSet<> names;
  llvm::DenseSet<std::pair<StringRef, int64_t>> ids;
  for (DeviceAttr device : devices) {
    if (!names.insert(device.getName().getValue()).second)
      return emitError() << "topology '" << name.getValue()
                         << "' has two devices named '"
                         << device.getName().getValue() << "'";
    if (!ids.insert({device.getArch().getValue(), device.getDeviceId()}).second)
      return emitError() << "topology '" << name.getValue() << "' has two "
                         << device.getArch().getValue()
                         << " devices with device_id " << device.getDeviceId();
  }
  return success();
}

DeviceAttr TopologyAttr::lookupDevice(StringRef arch, int64_t deviceId) const {
  for (DeviceAttr device : getDevices())
    if (device.getArch().getValue() == arch && device.getDeviceId() == deviceId)
      return device;
  return nullptr;
}

TopologyAttr TopologyAttr::lookup(ModuleOp module) {
  return module->getAttrOfType<TopologyAttr>(attr::kTopology);
}

FailureOr<TopologyAttr> TopologyAttr::require(ModuleOp module, StringRef what) {
  if (TopologyAttr topology = lookup(module))
    return topology;
  return module.emitError()
         << "the module has no '" << attr::kTopology << "': " << what
         << " needs a scheduled program (run "
            "orchestra-schedule first)";
}
