//===- OrchestraAttrs.td - Orchestra dialect attributes -----*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRAATTRS_TD
#define ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRAATTRS_TD

include "orchestra/Dialect/Orchestra/IR/OrchestraBase.td"
include "mlir/IR/AttrTypeBase.td"

class Orchestra_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Orchestra_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

def Orchestra_DeviceAttr : Orchestra_Attr<"Device", "device"> {
  let summary = "One device of the topology a program was scheduled for";
  let description = [{
    A device of the machine: its unique `name` in the topology, its `arch`
    (an arch of the target registry of this build), the `device_id` that the
    `target` of the tasks placed on it carries (unique per arch), and the
    parallel execution units its queue uses (`compute_units`: CPU threads,
    SMs).

    ```mlir
    #orchestra.device<"cpu0", arch = "x86_64", device_id = 0, compute_units = 2>
    ```
  }];
  let parameters = (ins "StringAttr":$name, "StringAttr":$arch,
                        "int64_t":$device_id,
                        DefaultValuedParameter<"int64_t", "1">:$compute_units);
  let assemblyFormat = [{
    `<` $name `,` struct($arch, $device_id, $compute_units) `>`
  }];
  let genVerifyDecl = 1;
}

def Orchestra_TopologyAttr : Orchestra_Attr<"Topology", "topology"> {
  let summary = "The machine a program was scheduled for";
  let description = [{
    What `orchestra-schedule` records on the module (as `orchestra.topology`)
    of the topology it placed the program on: the topology's name and its
    devices, in the topology's order. The first device runs the host plan.
    The memory spaces of the devices are the module's
    `orchestra.memory_space` ops.

    The passes after scheduling (`orchestra-plan-buffers`), the artifact
    builder and the schedule chart read the devices through this attribute;
    the verifier checks the names and `(arch, device_id)` pairs are unique
    and every arch is known to this build.

    ```mlir
    module attributes {orchestra.topology = #orchestra.topology<"host",
        devices = [#orchestra.device<"cpu0", arch = "x86_64", device_id = 0>]>}
    ```
  }];
  let parameters = (ins "StringAttr":$name,
                        ArrayRefParameter<"DeviceAttr">:$devices);
  let assemblyFormat = [{
    `<` $name `,` `devices` `=` `[` $devices `]` `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The device of `arch` with `deviceId`, or null.
    DeviceAttr lookupDevice(StringRef arch, int64_t deviceId) const;
    /// The device that runs the host plan: the topology's first.
    DeviceAttr getHostDevice() const { return getDevices().front(); }

    /// The topology recorded on `module`, or null when it has none (it has
    /// not been scheduled).
    static TopologyAttr lookup(ModuleOp module);
    /// The topology recorded on `module`; emits an error that says `what`
    /// needs a scheduled program when it has none.
    static FailureOr<TopologyAttr> require(ModuleOp module, StringRef what);
  }];
}

#endif // ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRAATTRS_TD
