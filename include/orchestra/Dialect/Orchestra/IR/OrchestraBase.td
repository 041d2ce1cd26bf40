//===- OrchestraBase.td - Orchestra dialect definition ------*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRABASE_TD
#define ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRABASE_TD

include "mlir/IR/OpBase.td"

def Orchestra_Dialect : Dialect {
  let name = "orchestra";
  let cppNamespace = "::mlir::orchestra";
  let summary = "Scheduling, placement and data movement as first-class IR";
  let description = [{
    The `orchestra` dialect records *where* and *when* each part of a program
    runs on a heterogeneous machine and makes every data movement explicit.

    A scheduled program is an `orchestra.schedule`: a single block whose ops
    form a DAG through SSA use-def edges. Its nodes are

    * `orchestra.task` — an atomic unit of computation placed on one device,
      described by a `target` dictionary (`arch`, `device_id` and the arch's
      own keys, checked against the target registry);
    * `orchestra.launch` — a task after outlining: a call of a kernel
      function in a per-arch kernel module, on the task's device;
    * `orchestra.transfer` — a move of a value between two memory spaces
      declared with `orchestra.memory_space`;
    * `orchestra.commit` — the selection of one of two value lists by an `i1`
      condition, used to commit the result of speculatively executed work.

    The dialect is the contract between the scheduler (which produces it),
    the high-level optimisations (which rewrite it) and the structured
    lowering (which turns it into a host plan and per-target kernels).
  }];
  let hasConstantMaterializer = 0;
  let useDefaultAttributePrinterParser = 1;
  // Checks `orchestra.topology` is an #orchestra.topology on a module.
  let hasOperationAttrVerify = 1;
  // The names of its discardable attributes (`orchestra.arch` on a kernel
  // module, `orchestra.kernels` on a compiled one, ...) are in
  // orchestra/Dialect/Orchestra/IR/AttrNames.h.
}

class Orchestra_Op<string mnemonic, list<Trait> traits = []>
    : Op<Orchestra_Dialect, mnemonic, traits>;

#endif // ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRABASE_TD
