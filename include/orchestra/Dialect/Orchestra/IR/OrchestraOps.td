//===- OrchestraOps.td - Orchestra dialect operations -------*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRAOPS_TD
#define ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRAOPS_TD

include "orchestra/Dialect/Orchestra/IR/OrchestraAttrs.td"
include "orchestra/Dialect/Orchestra/IR/OrchestraBase.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// MemorySpaceOp
//===----------------------------------------------------------------------===//

def Orchestra_MemorySpaceOp : Orchestra_Op<"memory_space", [Symbol]> {
  let summary = "Declares a memory space of one device";
  let description = [{
    Declares a named memory space that `orchestra.transfer` can name as its
    source or destination. A memory space belongs to one device, identified
    by the same `arch` and `device_id` a task's `target` uses, and has a
    `kind` that the target registry lists for that arch (for example `dram`
    for `x86_64`, `hbm` and `shared` for `nvidia_hopper`, `hbm` and `lds` for
    `amd_cdna3`).

    Kinds have a scope: *device* spaces (DRAM, HBM) hold values between tasks
    and are what the host plan allocates; *kernel* spaces (shared memory,
    LDS, tensor memory) exist only while a kernel runs, so only transfers
    inside a task body may name them.

    Memory spaces are normally generated from the topology; they live in the
    symbol table that encloses the schedules naming them (the module). The
    optional `capacity` is the space's size in bytes (the topology's
    `capacity`); `orchestra-plan-buffers` refuses a plan whose peak use of a
    device space exceeds it.

    Example:

    ```mlir
    orchestra.memory_space @host_dram kind = "dram" arch = "x86_64" device_id = 0
    orchestra.memory_space @gpu0_hbm kind = "hbm" arch = "nvidia_hopper" device_id = 0
        capacity = 85899345920
    ```
  }];

  let arguments = (ins SymbolNameAttr:$sym_name,
                       StrAttr:$kind,
                       StrAttr:$arch,
                       I64Attr:$device_id,
                       OptionalAttr<I64Attr>:$capacity);

  let assemblyFormat = [{
    $sym_name `kind` `=` $kind `arch` `=` $arch `device_id` `=` $device_id
    (`capacity` `=` $capacity^)? attr-dict
  }];

  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// ScheduleOp
//===----------------------------------------------------------------------===//

def Orchestra_ScheduleOp : Orchestra_Op<"schedule", [
    RecursiveMemoryEffects, SingleBlock]> {
  let summary = "A DAG of tasks, transfers and commits";
  let description = [{
    Holds a scheduled program. The body is one block whose ops form a DAG by
    SSA use-def edges, so the block order is one valid topological order; the
    runtime may run any ops whose operands are ready concurrently. The
    schedule's results are the operands of its `orchestra.yield` terminator.

    Only these ops may appear directly in the body:

    * `orchestra.task`, `orchestra.transfer`, `orchestra.commit`;
    * constants (ops with the `ConstantLike` trait): they are pure glue, for
      example the condition of a commit known at compile time, and cost no
      device time;
    * the `orchestra.yield` terminator.

    Every other op belongs inside a task. Task names must be unique within a
    schedule so that traces, profiles and diagnostics can refer to them.

    A schedule with no task and no transfer does no work and is folded into
    its parent by canonicalization.

    Example:

    ```mlir
    %r = orchestra.schedule -> (tensor<4xf32>) {
      %0 = orchestra.transfer %x from @host_dram to @gpu0_hbm : tensor<4xf32>
      %1 = orchestra.task "relu" args(%a = %0 : tensor<4xf32>) -> (tensor<4xf32>)
          target = {arch = "nvidia_hopper", device_id = 0} {
        ...
        orchestra.yield %y : tensor<4xf32>
      }
      %2 = orchestra.transfer %1 from @gpu0_hbm to @host_dram : tensor<4xf32>
      orchestra.yield %2 : tensor<4xf32>
    }
    ```
  }];

  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);

  let assemblyFormat = [{
    (`->` `(` type($results)^ `)`)? attr-dict-with-keyword $body
  }];

  let extraClassDeclaration = [{
    /// Returns the terminator of the body.
    YieldOp getYield();
  }];

  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// TaskOp
//===----------------------------------------------------------------------===//

def Orchestra_TaskOp : Orchestra_Op<"task", [
    IsolatedFromAbove, RecursiveMemoryEffects, SingleBlock,
    HasParent<"ScheduleOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "An atomic unit of computation placed on one device";
  let description = [{
    A task runs its body on one device. It is isolated from above: its
    operands become the arguments of its body block, and its results are the
    operands of the body's `orchestra.yield`.

    Properties:

    * `name` — a stable name, unique within the schedule, used by traces,
      profiles and diagnostics.
    * `target` — a dictionary with the mandatory keys `arch` (a string the
      target registry knows, e.g. `"x86_64"`, `"nvidia_hopper"`,
      `"amd_cdna3"`, `"google_tpu_v5e"`, `"aws_trainium2"`) and `device_id`
      (a non-negative integer), plus keys specific to the arch. The verifier
      checks every key against the arch's schema in the target registry: an
      unknown arch, a missing or mistyped mandatory key and an unknown or
      mistyped arch-specific key are each errors.
    * `nki_source` (optional) — the Python source of a Neuron Kernel
      Interface kernel that replaces the body when the task is lowered by
      `orchestra-lower-nki-tasks`; only archs whose registry entry accepts
      NKI kernels allow it.
    * `asm_kernel` (optional) — a GPU kernel in the arch's assembly language
      (PTX for NVIDIA archs, GCN for AMD ones) that replaces the body, the
      expert escape hatch: `{source = "...", entry = "name", grid = [x, y,
      z], block = [x, y, z], shared_bytes = n}` (`shared_bytes` optional,
      `grid` and `block` one to three sizes). The kernel takes one 64-bit
      pointer per tensor the task reads and writes (its arguments, then its
      results); the body stays as its reference. The backend checks the
      source with the arch's assembler (`orchestra-gpu-lower-asm-kernels`,
      then the arch's emit-binary pass).
    * `predicted_start` / `predicted_finish` (optional, together) — the
      scheduler's prediction of the task's start and finish, in seconds from
      the start of the schedule.

    Canonicalization moves a reshape (`tensor.expand_shape`,
    `tensor.collapse_shape`) that a task applies to a value it computes just
    before yielding it into the tasks that read the result: the task yields
    the value itself, and each reader reshapes its argument. A reshape is a
    view of its operand's buffer; at the end of a kernel it would be a copy
    into the result's buffer (and keep the kernel from writing a padded
    result in place), at the start of one it costs nothing.

    Example:

    ```mlir
    %0 = orchestra.task "gemm0" args(%a = %x : tensor<256x256xf32>)
        -> (tensor<256x256xf32>)
        target = {arch = "amd_cdna3", device_id = 0, mfma = true, lds_size = 65536} {
      ...
      orchestra.yield %r : tensor<256x256xf32>
    }
    ```
  }];

  let arguments = (ins Variadic<AnyType>:$args,
                       StrAttr:$name,
                       DictionaryAttr:$target,
                       OptionalAttr<StrAttr>:$nki_source,
                       OptionalAttr<DictionaryAttr>:$asm_kernel,
                       OptionalAttr<F64Attr>:$predicted_start,
                       OptionalAttr<F64Attr>:$predicted_finish);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);

  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;

  let skipDefaultBuilders = 1;
  let builders = [
    /// Creates a task with an entry block whose arguments mirror `args`; the
    /// caller fills the body and its terminator.
    OpBuilder<(ins "::mlir::TypeRange":$resultTypes, "::llvm::StringRef":$name,
                   "::mlir::DictionaryAttr":$target,
                   "::mlir::ValueRange":$args)>
  ];

  let extraClassDeclaration = [{
    /// Returns the terminator of the body.
    YieldOp getYield();
    /// Returns the `arch` string of the target (verified to exist).
    ::llvm::StringRef getArch();
    /// Returns the `device_id` of the target (verified to exist).
    int64_t getDeviceId();
  }];
}

//===----------------------------------------------------------------------===//
// LaunchOp
//===----------------------------------------------------------------------===//

def Orchestra_LaunchOp : Orchestra_Op<"launch", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Runs an outlined task kernel on a device";
  let description = [{
    What an `orchestra.task` becomes once structured lowering has outlined
    its body into a kernel: the operands are passed to the kernel `kernel`,
    a nested symbol `@<kernel module>::@<function>` naming a function of a
    kernel module (a `builtin.module` nested in the enclosing module, one per
    target arch), and the results are the kernel's results. The task's name,
    `target` and scheduler predictions are kept so that the host plan, the
    traces and diagnostics still refer to the task.

    While the kernel is still a `func.func` on tensors, the operand and
    result types must match its signature (tensors of `i1` are passed to
    kernels as tensors of `i8`: one byte per element). Once the kernel module has been
    compiled to a binary (its `orchestra.kernels` attribute lists the
    symbols it exports), the symbol must be listed there.

    Example:

    ```mlir
    %1 = orchestra.launch "matmul0" @kernels_x86_64::@matmul0(%0, %w)
        target = {arch = "x86_64", device_id = 0}
        : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    ```
  }];

  let arguments = (ins Variadic<AnyType>:$args,
                       StrAttr:$name,
                       SymbolRefAttr:$kernel,
                       DictionaryAttr:$target,
                       OptionalAttr<F64Attr>:$predicted_start,
                       OptionalAttr<F64Attr>:$predicted_finish);
  let results = (outs Variadic<AnyType>:$results);

  let assemblyFormat = [{
    $name $kernel `(` $args `)` `target` `=` $target attr-dict `:`
    functional-type($args, $results)
  }];

  let hasVerifier = 1;

  let extraClassDeclaration = [{
    /// Returns the `arch` string of the target (verified to exist).
    ::llvm::StringRef getArch();
    /// Returns the `device_id` of the target (verified to exist).
    int64_t getDeviceId();
  }];
}

//===----------------------------------------------------------------------===//
// TransferOp
//===----------------------------------------------------------------------===//

def Orchestra_TransferOp : Orchestra_Op<"transfer", [
    DeclareOpInterfaceMethods<SymbolUserOpInterface>,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Moves a value between two memory spaces";
  let description = [{
    Makes a data movement explicit: the result holds the value of `source`,
    placed in the memory space `to`; `source` lives in the memory space
    `from`. Both symbols must name `orchestra.memory_space` declarations.

    On tensors the op has value semantics and no memory effects, so
    duplicates merge and a transfer whose result is unused disappears. On
    memrefs it reads the source buffer and allocates and writes the result,
    whose type may differ from the source's only in its memory space.

    `predicted_start` / `predicted_finish` (optional) are the scheduler's
    prediction of the copy, in seconds from the start of the schedule.

    Canonicalization folds a transfer whose `from` and `to` are the same
    space, turns a transfer of a transfer into one transfer from the first
    space to the last, and merges identical transfers of the same tensor.

    Example:

    ```mlir
    %1 = orchestra.transfer %0 from @host_dram to @gpu0_hbm : tensor<1024xf32>
    %3 = orchestra.transfer %2 from @host_dram to @gpu0_hbm
        : memref<16xf32> -> memref<16xf32, 1>
    ```
  }];

  let arguments = (ins AnyTypeOf<[AnyRankedTensor, AnyMemRef]>:$source,
                       FlatSymbolRefAttr:$from,
                       FlatSymbolRefAttr:$to,
                       OptionalAttr<F64Attr>:$predicted_start,
                       OptionalAttr<F64Attr>:$predicted_finish);
  let results = (outs AnyTypeOf<[AnyRankedTensor, AnyMemRef]>:$result);

  let assemblyFormat = [{
    $source `from` $from `to` $to attr-dict `:`
    custom<TransferTypes>(type($source), type($result))
  }];

  let hasVerifier = 1;
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// CommitOp
//===----------------------------------------------------------------------===//

def Orchestra_CommitOp : Orchestra_Op<"commit", [Pure]> {
  let summary = "Selects one of two value lists by a condition";
  let description = [{
    Returns `true_values` when `condition` is true and `false_values`
    otherwise. The operands after the condition hold the true list followed
    by the false list; `num_true` is the length of the true list. Both lists
    have the types of the results, in order.

    `orchestra.commit` closes a speculation: `divergence-to-speculation`
    turns a side-effect-free branch into two tasks that run in parallel and a
    commit that keeps the result of the path actually taken.

    The condition is an `i1` or, between the tasks of a schedule (where
    only tensors cross), a 0-d `tensor<i1>`, whose type then follows it.
    After `orchestra-outline-tasks` a commit of a schedule becomes a select
    step of the plan: the runtime reads the condition and copies the chosen
    list into the results' buffers (docs/Artifact.md).

    Canonicalization folds a commit whose condition is a constant, or whose
    two lists are identical, to one list.

    Example:

    ```mlir
    %r:2 = orchestra.commit %cond true(%a, %b) false(%c, %d)
        : tensor<4xf32>, tensor<8xf32>
    %s = orchestra.commit %flag : tensor<i1> true(%a) false(%c)
        : tensor<4xf32>
    ```
  }];

  let arguments = (ins AnyTypeOf<[I1, 0DTensorOf<[I1]>]>:$condition,
                       Variadic<AnyType>:$values,
                       I64Attr:$num_true);
  let results = (outs Variadic<AnyType>:$results);

  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasFolder = 1;

  let builders = [
    OpBuilder<(ins "::mlir::Value":$condition,
                   "::mlir::ValueRange":$trueValues,
                   "::mlir::ValueRange":$falseValues)>
  ];

  let extraClassDeclaration = [{
    /// The values returned when the condition is true.
    ::mlir::OperandRange getTrueValues();
    /// The values returned when the condition is false.
    ::mlir::OperandRange getFalseValues();
  }];
}

//===----------------------------------------------------------------------===//
// BranchProbeOp
//===----------------------------------------------------------------------===//

def Orchestra_ProfileCounters
    : Resource<"::mlir::orchestra::ProfileCountersResource">;

def Orchestra_BranchProbeOp : Orchestra_Op<"branch_probe", [
    MemoryEffects<[MemWrite<Orchestra_ProfileCounters>]>]> {
  let summary = "Counts which way a branch of a kernel goes";
  let description = [{
    Counts one evaluation of the condition of branch `branch_id` of the
    enclosing kernel: the then path (or a loop's next iteration) when
    `condition` is true, the else path (or the loop's exit) when it is
    false. `orchestra-branch-profiler` puts one in front of each `scf.if`
    and `scf.condition` of a kernel when the compile profiles branches
    (`orchestra-compile --profile-branches`, design/0019); the kernel's
    backend lowers it to an atomic increment of the kernel's counters,
    which the runtime provides and reads (`orchestra-run --profile-out`).

    The probe writes the profile counters, a resource of their own: it is
    never moved across another probe, hoisted or erased, and it does not
    keep other memory operations in place.

    On GPUs the counters are a kernel argument: before kernel outlining,
    `orchestra-gpu-branch-counters` gives the probe the task's counters
    buffer, `counters` (4 `i64` per branch: then and else lanes, warps, and
    warps whose lanes disagreed), and the backend lowers it to a warp vote
    and atomic adds.

    Example:

    ```mlir
    orchestra.branch_probe 0, %cond
    %r = scf.if %cond -> f32 { ... } else { ... }
    orchestra.branch_probe 1, %lane_cond to %counters : memref<8xi64>
    ```
  }];

  let arguments = (ins ConfinedAttr<I32Attr, [IntNonNegative]>:$branch_id,
                       I1:$condition,
                       Optional<MemRefRankOf<[I64], [1]>>:$counters);
  let assemblyFormat = [{
    $branch_id `,` $condition (`to` $counters^ `:` type($counters))? attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

def Orchestra_YieldOp : Orchestra_Op<"yield", [
    Pure, ReturnLike, Terminator, HasParent<"ScheduleOp, TaskOp">]> {
  let summary = "Terminates a schedule or task body";
  let description = [{
    Returns values from the body of an `orchestra.schedule` or an
    `orchestra.task`; their types must equal the parent's result types.

    Example:

    ```mlir
    orchestra.yield %a, %b : tensor<4xf32>, i1
    ```
  }];

  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to do */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // ORCHESTRA_DIALECT_ORCHESTRA_IR_ORCHESTRAOPS_TD
