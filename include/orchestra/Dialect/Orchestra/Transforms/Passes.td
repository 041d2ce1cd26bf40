//===- Passes.td - Orchestra dialect passes -----------------*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_PASSES_TD
#define ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DivergenceToSpeculation : Pass<"divergence-to-speculation"> {
  let summary = "Run both sides of a side-effect-free branch as parallel "
                "tasks and commit the taken one";
  let description = [{
    Pipeline stage 3 (high-level optimisation). A task whose computation is
    an `scf.if` must wait for its condition before it can start. When both
    sides of the branch are safe to execute whatever the condition is, this
    pass splits the task into two tasks, one per side, which no longer depend
    on the condition and can run in parallel (on the same device or, once
    re-placed, on two), and an `orchestra.commit` that selects the results of
    the side the condition picks.

    The match is written in PDLL (`DivergenceToSpeculation.pdll`); the checks
    that need to look into regions and the rewrite are C++.

    In a compile the scheduler decides (design/0019): `orchestra-schedule`
    marks a branch task `orchestra.speculate = {then = <target>, else =
    <target>, else_start = <s>, else_finish = <s>}` when scheduling the program once more with both sides free
    of the condition predicts a makespan at least 5% shorter, and this pass
    rewrites only marked tasks, giving each side its target (a side on
    another device than the task's reads its operands through
    `orchestra.transfer`s from the task's memory space). With `all`, it
    rewrites every task it can, each side on the task's target.

    A task is rewritten when

    * its body is an `scf.if` with results whose condition is a task
      argument (an `i1`, or a 0-d `tensor<i1>` read by `tensor.extract`, as
      the scheduler passes conditions between tasks), followed by an
      `orchestra.yield` of results of that `scf.if`;
    * any other op of the body is pure (free of memory effects and
      speculatable); such ops are copied into both new tasks;
    * every op of both sides is free of memory effects
      (`MemoryEffectOpInterface`) and speculatable
      (`ConditionallySpeculatable`): running the side that is not taken must
      not write memory, trap or have undefined behaviour (a division by a
      value the condition checks for zero is *not* speculated, nor is a
      tensor access whose indices are not provably in bounds);
    * it has no `nki_source` (its body is not what runs).

    Like every greedy pattern pass, it also erases ops that are trivially
    dead (for example a task whose results are unused).

    The new tasks are named `<name>.then` and `<name>.else` (made unique
    within the schedule), keep the discardable attributes of the original
    task (but `orchestra.speculate`) and take only the operands their side
    uses. A marked task's sides carry the predictions of the speculated
    schedule (the then side the task's, the else side the mark's
    `else_start`/`else_finish`); with `all`, an unmarked task's sides have
    none (the task's no longer hold).

    Input:

    ```mlir
    %r = orchestra.task "pick" args(%c = %cond : i1, %a = %x : tensor<4xf32>)
        -> (tensor<4xf32>) target = {arch = "x86_64", device_id = 0} {
      %v = scf.if %c -> (tensor<4xf32>) {
        %e = math.exp %a : tensor<4xf32>
        scf.yield %e : tensor<4xf32>
      } else {
        %n = arith.negf %a : tensor<4xf32>
        scf.yield %n : tensor<4xf32>
      }
      orchestra.yield %v : tensor<4xf32>
    }
    ```

    Output:

    ```mlir
    %t = orchestra.task "pick.then" args(%a = %x : tensor<4xf32>)
        -> tensor<4xf32> target = {arch = "x86_64", device_id = 0} {
      %e = math.exp %a : tensor<4xf32>
      orchestra.yield %e : tensor<4xf32>
    }
    %f = orchestra.task "pick.else" args(%a = %x : tensor<4xf32>)
        -> tensor<4xf32> target = {arch = "x86_64", device_id = 0} {
      %n = arith.negf %a : tensor<4xf32>
      orchestra.yield %n : tensor<4xf32>
    }
    %r = orchestra.commit %cond true(%t) false(%f) : tensor<4xf32>
    ```
  }];
  let options = [
    Option<"all", "all", "bool", /*default=*/"false",
           "Rewrite every task branch that can be split, not only those the "
           "scheduler marked `orchestra.speculate`">,
  ];
  let dependentDialects = [
    "::mlir::orchestra::OrchestraDialect",
    "::mlir::pdl::PDLDialect",
    "::mlir::pdl_interp::PDLInterpDialect",
  ];
}

def ConvertConvolutionsToNHWC
    : Pass<"orchestra-convert-convolutions-to-nhwc", "::mlir::func::FuncOp"> {
  let summary = "Run NCHW and NCDHW convolutions in the channels-last layout";
  let description = [{
    Pipeline stage 1. Rewrites `linalg.conv_2d_nchw_fchw` as
    `linalg.conv_2d_nhwc_hwcf`, `linalg.depthwise_conv_2d_nchw_chw` as
    `linalg.depthwise_conv_2d_nhwc_hwc` and the NCHW max and sum poolings as
    their NHWC forms, with `linalg.transpose`s of the input and output
    tensors around them and of the filter. 3-D ones likewise:
    `linalg.conv_3d_ncdhw_fcdhw` becomes `linalg.conv_3d_ndhwc_dhwcf`
    (filter [F, C, KD, KH, KW] -> [KD, KH, KW, C, F]),
    `linalg.depthwise_conv_3d_ncdhw_cdhw` becomes
    `linalg.depthwise_conv_3d_ndhwc_dhwc`, and the importer's 3-D max and
    sum poolings (a `linalg.generic` over (n, c, od, oh, ow, kd, kh, kw)
    reading the input at (n, c, od * s + kd * d, ...) and an unread window,
    its body one `arith.maximumf` or `arith.addf`; upstream has no NCDHW
    pooling op) become `linalg.pooling_ndhwc_max` and `_sum`. Channels are
    then the contiguous innermost dimension of the input, the filter and the
    output, so the vectorized 1-D form of the convolution loads and stores
    whole vectors of channels instead of gathering them. Constant filters
    are transposed at compile time by
    `orchestra-pretranspose-constant-operands`, which runs next.

    The layout then flows from one convolution to the next, so that the
    transposes between them cancel:
    - an elementwise `linalg.generic` (all loops parallel, its initial value
      unread) whose full-rank inputs are all transposes by the same
      permutation runs in the layout of their sources, and one transpose
      follows it instead (broadcast inputs such as a per-channel bias are
      read through permuted maps);
    - a constant `tensor.pad` of a transpose pads the source instead;
    - a transpose of an elementwise op whose inputs are all broadcasts (the
      bias that initialises a convolution) is that op in the transposed
      layout;
    - transposes of transposes compose, and the identity disappears.
    When an op moves to the other layout its loops are permuted, and the
    `linalg.index` ops of its payload follow their loops (a Resize, a
    reflecting pad or a flip computes the elements it reads from them).

    Once the layout has settled, a channels-last convolution whose windows
    do not overlap (strides equal to a kernel larger than 1x1, no
    dilation: a vision transformer's patch embedding) becomes a
    `linalg.matmul` of its patches [N*OH*OW, KH*KW*C] by the filter seen
    as [KH*KW*C, F]: one transpose of the input gathers each patch, and
    the matmul takes the register-tiled matmul route.
    These patterns do not depend on the rank, so the layout of 3-D
    convolutions flows the same way through 5-D tensors. In a CNN only the
    transposes of the network's input and before its first
    non-convolutional consumer (a flatten, a matmul) are left.

    Grouped convolutions (`linalg.conv_2d_ngchw_gfchw`, which the importer
    writes on [N, G, C/G, H, W] views of NCHW tensors) become a
    channels-last `linalg.generic` over (n, oh, ow, g, f, kh, kw, c) on
    [N, H, W, G, C/G] views of the NHWC tensors (their channels split, a
    free reshape), with the filter [G, KH, KW, C/G, M/G] (each group's
    filter contiguous) and the output [N, OH, OW, G, M/G]; upstream has no
    named op of this layout (see `GroupedConvolution.h` in
    `include/orchestra/Dialect/Orchestra/Utils/`). The transposes around it
    cancel like those of the dense convolutions. Once the layout has
    settled, the bias that initialises it and the elementwise ops that read
    its result run in its 5-D shape (upstream's reshape folding by
    expansion, limited to the reshapes next to grouped convolutions), so
    that they fuse into its parallel tiles:

    ```mlir
    %x5 = tensor.expand_shape %x_nhwc [[0], [1], [2], [3, 4]] ...
        : tensor<1x30x30x128xf32> into tensor<1x30x30x32x4xf32>
    %g = linalg.generic {indexing_maps = [
           (n, oh, ow, g, f, kh, kw, c) -> (n, oh + kh, ow + kw, g, c),
           (n, oh, ow, g, f, kh, kw, c) -> (g, kh, kw, c, f),
           (n, oh, ow, g, f, kh, kw, c) -> (n, oh, ow, g, f)], ...}
        ins(%x5, %w : tensor<1x30x30x32x4xf32>, tensor<32x3x3x4x4xf32>)
        outs(%bias5 : tensor<1x28x28x32x4xf32>)
    %relu5 = linalg.generic ... ins(%g : tensor<1x28x28x32x4xf32>) ...
    %y = tensor.collapse_shape %relu5 [[0], [1], [2], [3, 4]]
        : tensor<1x28x28x32x4xf32> into tensor<1x28x28x128xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def FuseElementwiseGenerics
    : Pass<"orchestra-fuse-elementwise-generics", "::mlir::func::FuncOp"> {
  let summary = "Fuse elementwise linalg.generic producers into their "
                "consumers, without moving reshapes";
  let description = [{
    Stage 5 of the StableHLO archs (applied by their strategy,
    strategies/stablehlo_common.mlir, through `transform.apply_registered_pass`).
    Upstream's elementwise fusion patterns
    (`linalg::populateElementwiseOpsFusionPatterns`): an all-parallel
    `linalg.generic` whose result only one generic op reads is fused into
    that op, so that a chain of elementwise ops becomes one op over one
    domain. Unlike upstream `linalg-fuse-elementwise-ops`, reshapes are not
    propagated through structured ops (in MLIR 22 that propagation rewrites
    a named `linalg.batch_matmul` next to a `tensor.collapse_shape` into an
    invalid op), and nothing is fused into a contraction, which stays one
    `dot_general`.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FoldEmptyLoops
    : Pass<"orchestra-fold-empty-loops", "::mlir::func::FuncOp"> {
  let summary = "Replace the structured ops that run no iteration by their "
                "inits";
  let description = [{
    Pipeline stage 1. A structured op on tensors one of whose loops has no
    iteration (an operand with a dimension of size 0: a reduction over an
    empty axis, an elementwise op on an empty tensor) never runs its body:
    each of its results is its init. This pass replaces the op by its inits,
    so that no kernel is generated for it (the tiling transforms of the
    strategies cannot tile a loop of zero iterations). Likewise, a
    `tensor.concat` leaves out its operands without elements (an empty
    tensor replaces one with none left), and a `tensor.insert_slice` of a
    source without elements is its destination.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def FoldMatmulReshapes
    : Pass<"orchestra-fold-matmul-reshapes", "::mlir::func::FuncOp"> {
  let summary = "Run a matmul's elementwise consumers in the matmul's shape";
  let description = [{
    Pipeline stage 1. A matmul of a higher-rank tensor (ONNX `MatMul` of a
    (sequence, batch, features) activation by a weight matrix) imports as a
    `tensor.collapse_shape` to 2-D, a `linalg.matmul` and a
    `tensor.expand_shape` back, followed by the bias and activation in the
    original rank. The reshape then separates the matmul from its epilogue:
    the task's fusion root (the activation) cannot fuse the matmul into its
    parallel tiles, and the matmul runs on one core. This pass moves the
    `tensor.expand_shape` below the elementwise consumers, collapsing their
    loops instead (upstream's fold-reshape-by-collapsing patterns, limited to
    reshapes of the results of structured ops other than convolutions), and
    folds the reshapes that meet their inverse. The matmul, bias and
    activation then form one 2-D group, which the strategy tiles like any
    matmul with an epilogue.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def PretransposeConstantOperands
    : Pass<"orchestra-pretranspose-constant-operands", "::mlir::func::FuncOp"> {
  let summary = "Store constant matmul operands in the layout the kernel reads";
  let description = [{
    Pipeline stage 1. A `linalg.matmul` whose right-hand operand is a
    constant read transposed (indexing map `(m, n, k) -> (n, k)`, as ONNX
    `Gemm` with `transB = 1` imports) becomes a plain matmul of the
    transposed constant, computed once at compile time. The kernel then
    loads rows of B contiguously instead of gathering them, which is what
    its register tiles vectorize over. Likewise, a `linalg.transpose` of a
    constant becomes the transposed constant, also when it reads the
    constant through reshapes and static unit-stride slices (a grouped
    convolution's filter seen per group, a recurrent layer's weights cut
    into one block per gate). Constants of any int or float
    type, inline or as resources, are transposed; others are left alone.

    Example:

    ```mlir
    %r = linalg.matmul indexing_maps = [
             affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>,
             affine_map<(m, n, k) -> (m, n)>]
         ins(%x, %w : tensor<64x784xf32>, tensor<1024x784xf32>) ...
    // becomes, with %wt the constant transposed to tensor<784x1024xf32>:
    %r = linalg.matmul ins(%x, %wt : tensor<64x784xf32>, tensor<784x1024xf32>) ...
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
  ];
}

def BindDims : Pass<"orchestra-bind-dims", "::mlir::ModuleOp"> {
  let summary = "Name and bound the dynamic dimensions of the entry function";
  let description = [{
    Pipeline stage 1 (design/0017): a program compiled once for a range of
    sizes names each dynamic dimension (`?`) of its entry function's
    arguments and bounds it. Names come from the arguments'
    `orchestra.dim_names` (the ONNX importer writes the model's symbolic
    dimensions there), else `argI.J` (argument I, dimension J); equal names
    are equal sizes. Ranges come from the `dims` option (`NAME=MIN..MAX`,
    `NAME=MIN..MAX@OPT` with OPT the size to cost for, or `NAME=SIZE`), else
    from an `orchestra.dims` already on the function, else
    1..64 with a remark that names the dimension and the option. The
    function gets `orchestra.dims = {NAME = array<i64: MIN, MAX, OPT>}`.
    Every other dynamic size of the program is then an expression in these
    dims (design/0017); the plan holds each buffer at its upper bound.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Entry function (default: 'main', else the only public function)">,
    ListOption<"dims", "dims", "std::string",
               "Ranges of the named dims: NAME=MIN..MAX[@OPT] or NAME=SIZE">,
  ];
}

def Schedule : Pass<"orchestra-schedule", "::mlir::ModuleOp"> {
  let summary = "Group the entry function into tasks and schedule them on "
                "the topology's devices as an orchestra.schedule";
  let description = [{
    Pipeline stage 2 (scheduling). The entry function (`entry`, else `main`,
    else the only public function) must work on ranked, static-shaped tensors
    with value semantics. An entry function that already holds an
    `orchestra.schedule` (one written by hand, e.g. for tasks with assembly
    or NKI kernels) is kept as written: the pass declares the topology's
    memory spaces and records it (step 1), checks that every task targets
    a device of the topology and completes its target with the device's
    keys (the task's own win), and schedules nothing (design note 0015).
    Otherwise the pass

    1. declares one `orchestra.memory_space` per memory space of the
       topology, records the topology on the module (`orchestra.topology`)
       and marks the entry function (`orchestra.entry`);
    2. groups the ops into *fusion groups*: an anchor (a structured op with
       a reduction loop: matmul, convolution, pooling, a reduction) takes its
       elementwise producers whose result it alone uses and its elementwise
       consumers that alone use its result; shape and data-movement ops
       (reshape, slice, pad, concat, transpose) count as elementwise; a
       group never holds two anchors and never creates a cycle; constants
       and `tensor.empty` are copied into every group that uses them;
    3. costs every group on every device with the cost model (a roofline of
       FLOPs over the device's peak for the group's element type and bytes
       over its memory bandwidth, plus launch overhead; infinite where the
       arch's support mask rejects an op, the group's working set exceeds
       the device's memory, or this build cannot compile for the device's
       arch (no lowering pipeline yet, e.g. `amd_cdna3`: such a device takes
       no tasks, with a remark, unless `plan-all-archs` is set) and every
       edge with the topology's links (routed through intermediate memory
       spaces where there is no direct link);
    4. schedules the task graph with `algorithm`: `heft`, `peft`, `ils`
       (default: iterated local search from the better of HEFT and PEFT) or
       `exact` (branch and bound; graphs of at most 24 tasks). Entry
       arguments and results live in the default memory space of the
       topology's first device; weights are resident on every device that
       reads them. Where the distinct weights a schedule reads on a device
       plus the largest other working set there exceed the device's memory,
       the tasks that start last there are kept off it and the graph is
       scheduled again (with a remark);
    5. replaces the body by an `orchestra.schedule` with one `orchestra.task`
       per group, in order of predicted start (named `t<N>_<anchor>`, with the
       device's `target` and the predicted start and finish in seconds), and
       an `orchestra.transfer` (with its predicted start and finish) wherever
       a value crosses memory spaces. The schedule op records the algorithm
       and the predicted makespan.
  }];
  let options = [
    Option<"topology", "topology", "std::string", /*default=*/"\"host\"",
           "Topology: 'host' (probed) or the path of a topology JSON file">,
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "Entry function (default: 'main', else the only public function)">,
    Option<"algorithm", "algorithm", "std::string", /*default=*/"\"ils\"",
           "Scheduling algorithm: heft, peft, ils (default) or exact">,
    Option<"planAllArchs", "plan-all-archs", "bool", /*default=*/"false",
           "Also place tasks on devices whose arch this build cannot compile "
           "yet (to explore a topology; such a schedule cannot be lowered)">,
    Option<"speculate", "speculate", "bool", /*default=*/"true",
           "Mark the branches whose speculation shortens the schedule for "
           "divergence-to-speculation (design/0019)">,
    Option<"replaySpeculation", "replay-speculation", "bool",
           /*default=*/"false",
           "Speculate exactly the branches a profiled plan speculated "
           "(orchestra.speculated_when_profiled), whatever the gain: the "
           "feedback service's prediction of a running plan">,
  ];
  let dependentDialects = [
    "::mlir::orchestra::OrchestraDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def LowerToStableHLO
    : Pass<"orchestra-lower-to-stablehlo", "::mlir::ModuleOp"> {
  let summary = "Write each kernel of a StableHLO arch's kernel module as a "
                "StableHLO module";
  let description = [{
    Stage 7 for the archs that hand StableHLO to a vendor compiler
    (`google_tpu_v5e`, `aws_trainium2`). On a kernel module, every kernel
    function (linalg, tensor, arith and math on static tensors) is written as
    a StableHLO module whose entry is `main` and recorded on the function as
    `orchestra.stablehlo` (a string). MLIR 22 has no StableHLO dialect, so the
    module is text in MLIR's generic form, which the bridge
    (`orchestra-stablehlo-bridge`) parses with the real StableHLO parser and
    serializes as a portable artifact. The ops converted, and the support
    mask of these archs (which is the same code run on one op), are listed
    in docs/Passes/StableHLO.md; anything else is an error at the op.
    With `dump-dir`, each kernel's module is also written to
    `<dump-dir>/<kernel>.mlir`.
  }];
  let options = [
    Option<"dumpDir", "dump-dir", "std::string", /*default=*/"\"\"",
           "Folder where each kernel's StableHLO module is also written">,
  ];
}

def StableHLOEmitBinary
    : Pass<"orchestra-stablehlo-emit-binary", "::mlir::ModuleOp"> {
  let summary = "Package a StableHLO kernel module as a PJRT program bundle";
  let description = [{
    Stage 8 for the StableHLO archs, after `orchestra-lower-to-stablehlo`. On
    a kernel module, the StableHLO text of every kernel goes through the
    bridge (`orchestra-stablehlo-bridge`, run once per module as a
    subprocess: the real StableHLO parser checks each and writes a portable
    artifact for the target StableHLO version); the artifacts, with each
    kernel's argument and result tensors, become the module's binary, a PJRT
    program bundle (docs/Artifact.md) that the runtime's `pjrt` driver
    compiles with the PJRT plugin the device's `pjrt_plugin` target key
    names. The target version is the device's `stablehlo_version` key, else
    the pass option; `"plugin"` asks the plugin at compile time
    (`orchestra-pjrt-compile --stablehlo-version`, found like the bridge:
    `pjrt-compile` option, `$ORCHESTRA_PJRT_COMPILE`, beside the tool,
    PATH). With `orchestra-compile --dump-device-code DIR`, each kernel's
    text and artifact are also written there.

    A backend pass that runs before this one may leave on a kernel what its
    vendor's compiler made of it ahead of time (`orchestra.aot_format`,
    `orchestra.aot_binary`) and on the module what a host of the arch needs
    (`orchestra.host_requirements`): both go into the bundle.

    The bridge is found from the `bridge` option, else
    `$ORCHESTRA_STABLEHLO_BRIDGE`, else beside the running tool, else on
    PATH; a missing or failing bridge is an error that says so.
  }];
  let options = [
    Option<"bridge", "bridge", "std::string", /*default=*/"\"\"",
           "The orchestra-stablehlo-bridge to run">,
    Option<"pjrtCompileOption", "pjrt-compile", "std::string",
           /*default=*/"\"\"",
           "The orchestra-pjrt-compile that asks a plugin its StableHLO "
           "version">,
    Option<"stablehloVersion", "stablehlo-version", "std::string",
           /*default=*/"\"1.0.0\"",
           "StableHLO version of the portable artifacts when the device "
           "names none">,
  ];
}

def DeduplicateKernels
    : Pass<"orchestra-deduplicate-kernels", "::mlir::ModuleOp"> {
  let summary = "Launch one kernel for every task of the same body";
  let description = [{
    Pipeline stage 4, after `orchestra-outline-tasks`. Within each kernel
    module, kernels that are the same function of their operands (the same
    signature, attributes and body; weights are operands) become one: every
    `orchestra.launch` of a repeat launches the first, and the repeats are
    erased. The layers of a transformer or the blocks of a ResNet stage are
    then compiled once (ViT-B/32's twelve layers: one set of kernels), which
    divides stages 5 to 8 by the number of repeats. Launches keep their task
    names, so the plan, traces and diagnostics still name every task.
  }];
}

def HoistConstantLayouts
    : Pass<"orchestra-hoist-constant-layouts", "::mlir::ModuleOp"> {
  let summary = "Lay out the plan's constant kernel operands as the "
                "kernels read them, at compile time";
  let description = [{
    Pipeline stage 4, after `orchestra-deduplicate-kernels` and before
    `orchestra-plan-buffers`. Runs, on every kernel module, its arch's
    constant-layout passes (`TargetInfo::constantLayoutPipeline`; the CPU's
    packs the filters of 8-bit convolutions and matmuls for its dot-product
    instructions). Such a pass asks for a layout by reading a kernel
    argument only through a `linalg.pack` marked `orchestra.constant_layout`
    (the argument's only use). When every launch of the kernel passes a
    constant (`arith.constant` of dense elements) for that argument, the
    pack is evaluated on each constant here, the launches pass the packed
    constants, and the kernel takes the packed type (its `orchestra.abi`
    too): the weights are laid out once, when the model is compiled, not on
    every run. Otherwise the mark asks for nothing: a `linalg.unpack` of the
    pack is folded away (the kernel reads the argument as before) and the
    mark is dropped. `orchestra-compile` runs it when the strategies apply
    (not with `--strategy=none`): the layouts serve them.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def OutlineTasks : Pass<"orchestra-outline-tasks", "::mlir::ModuleOp"> {
  let summary = "Outline every task into a kernel function of a per-device "
                "kernel module and replace it with orchestra.launch";
  let description = [{
    Pipeline stage 4 (structured lowering), first half. The body of every
    `orchestra.task` becomes a public `func.func` named after the task (its
    characters other than letters, digits and `_` replaced by `_`, since the
    name becomes a symbol of every kind of binary, PTX entries included:
    task `pick.then` is kernel `pick_then`) in a
    nested `builtin.module @kernels_<arch>_<device_id>` that carries the
    arch (`orchestra.arch`) and the task's target (`orchestra.target`); the
    task becomes an `orchestra.launch` of that function with the same name,
    target and predictions. Each kernel function records its tensor ABI
    (`orchestra.abi`: operand types, then result types), which the target's
    lowering turns into its calling convention. Tensors of `i1` cross the
    kernel boundary as `i8` (one byte per element), converted inside the
    kernel, so that vector code that packs `i1` never changes the layout
    the plan and the runtime see. Tensor arguments are marked
    `bufferization.writable = false`: the plan's buffer of an operand may be
    read after the task (by other tasks, or as a result), so a kernel that
    updates an operand (a slice inserted into it, an op whose init it is)
    writes a copy.

    For the strategy scripts of stage 5, the op that produces the first
    result of a kernel (the *fusion root*; through a trailing pad or
    reshape, or the step of a loop over time) is tagged
    `orchestra.fusion_root` when it has a loop to tile in parallel (its
    first loop, or its second after a unit first one), and every other
    structured op it depends on is tagged `orchestra.fusion_producer`,
    except the producer of a convolution's input: every tile of the
    convolution reads all of its input, so that producer runs once rather
    than once per tile. How the root is tiled is the target's choice: a
    backend's pre-strategy passes may replace the tag by one naming its
    tiling (`orchestra-cpu-tag-tiling` for `x86_64`).
  }];
  let dependentDialects = [
    "::mlir::orchestra::OrchestraDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ApplyBranchProfile : Pass<"orchestra-apply-branch-profile",
                               "::mlir::ModuleOp"> {
  let summary = "Weigh the program's branches by a branch profile";
  let description = [{
    Stage 2's input from the feedback loop (design/0019). Reads a branch
    profile (`orchestra-run --profile-out`: DivergenceProfile records) and
    the artifact it was measured with (compiled with `--profile-branches`),
    maps each record's kernel and branch id through the artifact's branch
    table to the branch's source location, and sets
    `orchestra.branch_weights = array<i64: true, false>` on every `scf.if`
    and `scf.while` of the program at that location (the counts of the
    records that map there, summed over devices and kernels). The scheduler's
    cost model then weighs an `scf.if`'s sides by how often each was taken
    instead of one half each, and counts an `scf.while`'s body once per
    measured trip (next iterations over exits) instead of once.

    `orchestra-compile --profile-use PROFILE --profile-artifact ARTIFACT`
    runs it before scheduling. A profile or artifact that cannot be read, a
    record of a kernel the artifact does not have, or a branch id past the
    kernel's table is an error; records whose location matches no branch of
    the program (another version of the source) are reported in one warning
    and left out.
  }];
  let options = [
    Option<"profilePath", "profile", "std::string", /*default=*/"\"\"",
           "The branch profile (DivergenceProfile records)">,
    Option<"artifactPath", "artifact", "std::string", /*default=*/"\"\"",
           "The artifact the profile was measured with">,
  ];
}

def ApplyTuningCache : Pass<"orchestra-apply-tuning-cache",
                             "::mlir::ModuleOp"> {
  let summary = "Name the tuned strategy variant on the kernel ops a tuning "
                "cache has an entry for";
  let description = [{
    Between outlining (stage 4) and the strategy scripts (stage 5). For
    every `linalg.matmul` with static shapes inside a kernel module
    (`orchestra.arch`), looks up the cache entry of its arch, its module's
    thread count (`num_threads` of `orchestra.target`, 0 when not set), its
    element type and its loop ranges (M, N, K), and sets
    `orchestra.tile_variant = "<variant>"` on it; the arch's strategy script
    applies `@matmul_variant_<variant>` to such ops. Entries naming the
    variant `default` leave the op to the script's default path. The cache
    is the JSON file orchestra-tune writes (docs/Tuning.md); a missing or
    malformed file is an error. The number of ops given a variant is
    recorded on the top-level module (`orchestra.tuned_ops`, which
    orchestra-compile's summary prints); with `verbose`, every such op is
    reported as a remark.
  }];
  let options = [
    Option<"cachePath", "cache", "std::string", /*default=*/"\"\"",
           "The tuning cache file (JSON, written by orchestra-tune)">,
    Option<"verbose", "verbose", "bool", /*default=*/"false",
           "Emit a remark on every op given a variant">,
  ];

  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def PlanBuffers : Pass<"orchestra-plan-buffers", "::mlir::ModuleOp"> {
  let summary = "Assign every value of the schedule a buffer in its memory "
                "space, reusing memory by liveness";
  let description = [{
    Pipeline stage 4 (structured lowering), second half: the host plan's
    memory. Every value of each schedule (entry arguments, launch results,
    transfer results, constants) lives in one memory space: arguments in the
    space of the topology's first device, launch results in the default
    space of their device, transfer results in their `to` space. In schedule
    order, a value is live from its definition to its last use (results of
    the schedule and constants: to the end); values whose lifetimes do not
    overlap share memory (first-fit on 64-byte aligned offsets).

    An `orchestra.commit` (a select step of the plan) reads its values
    wherever they live; its results live where their first reader reads
    them (recorded as `orchestra.space` on the commit), and a result takes
    the slot of its true value when that value is in the same space and
    only the commit reads it (the select then copies on false only).

    An entry function (`orchestra.entry`) whose schedule was folded away
    because it did no work gets an empty schedule again: its plan only
    copies inputs or constants to the outputs.

    Results are recorded as attributes: `orchestra.offsets` (one offset per
    result) on every defining op, `orchestra.arg_offsets` on the function,
    `orchestra.space` on constants (which live where their readers read
    them: a constant read in several memory spaces gets a copy, a clone of
    its op, in each), and on the function
    `orchestra.plan = {<space> = {peak = .., total = ..}}`
    (`peak`: the arena size after reuse; `total`: bytes without reuse).
    A plan whose peak in a memory space exceeds that space's `capacity`
    (from the topology) is refused with an error that says how much of it
    is resident weights and where the largest buffer is defined.
    Ordering between reused buffers (a writer must wait for the earlier
    readers of the same bytes) is derived from these offsets when the
    artifact is written.
  }];
}

def LowerKernels : Pass<"orchestra-lower-kernels", "::mlir::ModuleOp"> {
  let summary = "Run each kernel module's target pipeline: strategy, "
                "bufferization, lowering and executable generation";
  let description = [{
    Pipeline stages 5 to 8, dispatched on `arch` through the target
    registry: for every nested kernel module, runs the arch's strategy (the
    upstream `transform-interpreter` on the named sequence of the arch's
    script in `strategies/`, which `transform-preload-library` must have
    loaded) unless `apply-strategy=false`, then the arch's lowering pipeline,
    which ends in a compiled binary attached to the module. The nested
    pipelines are printed with `--mlir-print-ir-after-all` like any other.
  }];
  let options = [
    Option<"applyStrategy", "apply-strategy", "bool", /*default=*/"true",
           "Apply the arch's transform strategy (false: plain loop lowering)">,
    Option<"deviceCodeDir", "device-code-dir", "std::string",
           /*default=*/"\"\"",
           "Directory the GPU backends also write their device code (PTX, "
           "cubins) to; empty: none">,
    Option<"profileBranches", "profile-branches", "bool", /*default=*/"false",
           "Run orchestra-branch-profiler after each kernel module's "
           "strategy, for the archs whose backend lowers branch probes">,
  ];
}

def BranchProfiler : Pass<"orchestra-branch-profiler", "::mlir::ModuleOp"> {
  let summary = "Count the paths each branch of a kernel takes";
  let description = [{
    Instruments the kernels of a kernel module (functions with
    `orchestra.abi`) for the feedback loop of design/0019: numbers the
    conditions of each kernel's `scf.if` and `scf.while` ops in pre-order
    (the kernel's `branch_id`s, from 0) and puts an `orchestra.branch_probe`
    of the condition in front of each `scf.if` and of each loop's
    `scf.condition`. The locations of each kernel's branches are recorded
    on the module as `orchestra.branches = {<kernel> = [<loc>, ...]}`,
    which becomes the artifact's branch table.

    `orchestra-lower-kernels{profile-branches}` (`orchestra-compile
    --profile-branches`) runs it after the strategy, so that it counts the
    branches that remain in the code, for each arch whose backend lowers
    the probes; without the option nothing is added.
  }];
  let dependentDialects = ["::mlir::orchestra::OrchestraDialect"];
}

#endif // ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_PASSES_TD
