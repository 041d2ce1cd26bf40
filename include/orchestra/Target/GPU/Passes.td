//===- Passes.td - Passes shared by the GPU backends -------*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//
//
// The vendor-neutral steps of the GPU lowering pipelines: every GPU backend
// names these passes in its archs' pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_GPU_PASSES_TD
#define ORCHESTRA_TARGET_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPUPadsToLinalg : Pass<"orchestra-gpu-pads-to-linalg",
                              "::mlir::ModuleOp"> {
  let summary = "Turn the tensor.pad ops of GPU kernels into linalg.generic";
  let description = [{
    Stage 5, before the strategy. A `tensor.pad` (a padded convolution's or
    pool's input) is not a structured op, so the GPU strategies have nothing
    to tile it with. This pass rewrites every `tensor.pad` with static
    shapes, static low and high padding, at least one dimension, a source
    with elements and a constant padding value into a `linalg.generic` over
    the padded shape whose body reads
    the source element the output element comes from (`tensor.extract` at
    the output's indices minus the low padding, clamped into the source) and
    selects the padding value where that index falls outside the source. The
    strategy then maps it onto thread blocks and threads like any
    elementwise op. The scheduler gives the GPU only the pads this pass can
    rewrite.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::arith::ArithDialect"];
}

def GPUScalarsToLinalg : Pass<"orchestra-gpu-scalars-to-linalg",
                                 "::mlir::ModuleOp"> {
  let summary = "Compute the scalars of GPU kernels in 0-d structured ops";
  let description = [{
    Stage 5, before the strategy. The importers compute loop counters and
    conditions as scalars: elements of 0-d tensors (`tensor.extract`),
    arith and math ops on them, and `tensor.from_elements` back into a 0-d
    tensor. On a GPU those scalars live in device memory, where the host
    side of a kernel cannot compute with them. This pass rewrites each 0-d
    `tensor.from_elements` of such a chain into one 0-d `linalg.generic`
    whose inputs are the 0-d tensors the chain reads and whose body is the
    chain (constants cloned in), which the strategy maps like any op. A
    loop's condition that is not already the element of a 0-d tensor is
    computed so too and read back (`tensor.extract` of the result: the one
    scalar the host side reads, once per iteration). Scalar ops left
    without uses are erased. The scheduler gives GPUs only the chains this
    pass rewrites (`isGpuMappable`). A loop's initial value that is a
    constant tensor is written into a buffer of its own (`linalg.fill` of a
    splat, else `linalg.copy`), since the host side of a kernel cannot
    address the constants the device modules hold.

    First, a counted loop whose body reads its induction variable (only in
    the ways `isCounterUse` accepts) gets a counter the GPU keeps: a 0-d i64
    tensor carried from the lower bound, advanced by the step by a 0-d
    `linalg.generic`. Integer casts of the variable read the counter; a
    row inserted at the variable (`tensor.insert_slice` with that one
    dynamic offset, of size 1: a scan output) becomes a `linalg.generic`
    over the destination selecting the source's element where the row
    covers it and the destination's elsewhere.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def GPUParallelLoopsFirst : Pass<"orchestra-gpu-parallel-loops-first",
                                    "::mlir::ModuleOp"> {
  let summary = "Put the parallel loops of the structured ops of GPU kernels "
                "first";
  let description = [{
    Stage 5, before the strategy. The GPU strategies tile a structured op
    over thread blocks and threads along its leading parallel loops, and
    each thread runs the rest of its loops. This pass makes every
    structured op on tensors a `linalg.generic` (named ops are generalized)
    whose parallel loops come first: a reduction over a leading dimension
    (ONNX's `ReduceSum` or `ArgMax` with `axis = 0`) has its loops
    interchanged (`linalg::interchangeGenericOp`, which also renumbers
    `linalg.index`), so that the threads take the kept dimensions and each
    walks the reduced one.

    A reduction with fewer than 4096 output elements (the iterations of its
    parallel loops) and N > 1024 iterations of its reduction loops each,
    whose result is indexed by its parallel loops only and whose body
    combines the accumulator with one associative and commutative op that
    has a neutral element (`matchReduction`, `arith::getNeutralElement`), is
    split across threads: P partials per output element (about 32
    iterations per thread, at most 1024 blocks of 256 threads in all), each
    reducing the iterations p, p + P, ... from the neutral element
    (consecutive threads read consecutive elements; the operands are read
    with `tensor.extract` at the original loop indices, and a `tensor<Cxi8>`
    operand that is never read gives the C = ceil(N / P) steps their loop),
    then a reduction of the partials into the original init with the
    combiner, split again while over 1024 (named ops are generalized).

    An op without a parallel loop left (a small reduction to a scalar, one
    that is not a single combiner, or an op on rank-0 tensors) gets a
    leading parallel loop of one iteration: its results get a leading unit
    dimension (inits expanded, results collapsed back) and one thread
    computes them.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def GPUCopiesToLinalg : Pass<"orchestra-gpu-copies-to-linalg",
                                "::mlir::ModuleOp"> {
  let summary = "Turn the host-side buffer copies of GPU kernels into "
                "linalg.copy";
  let description = [{
    Stage 7, after bufferization. Bufferization copies results into the
    kernel's out-parameters (`memref.copy`), e.g. behind a reshape; in a GPU
    kernel those copies are device-to-device and must run on the GPU. This
    pass rewrites every `memref.copy` of a kernel function that is not yet in
    a `gpu.launch` into `linalg.copy`, which the strategy's stage-7 sequence
    then tiles over thread blocks and threads like any other op. A scalar
    (rank-0) copy, which has no loop to tile, copies one-element views
    (`memref.expand_shape` to shape [1]).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect"];
}

def GPUSinkLaunchOperands : Pass<"orchestra-gpu-sink-launch-operands",
                                     "::mlir::ModuleOp"> {
  let summary = "Move the constant buffers and static views a GPU launch "
                "reads into it";
  let description = [{
    Stage 7, before `gpu-kernel-outlining`. Constant tensors inside a task
    bufferize to `memref.get_global` of a constant `memref.global`; a launch
    that reads one would otherwise take the host address of the global as a
    kernel operand. This pass clones each such `memref.get_global` into the
    launches that use it, so that outlining copies the global into the
    device module, where it becomes an initialized global of the cubin.

    Views are sunk too: a `memref.subview` with static offsets, sizes and
    strides outside a launch (a slice a kernel returns, copied into its
    result by a launch) is cloned into the launches that read it, so that
    the kernel takes the viewed buffer (a bare pointer to its base, as the
    GPU module bundle passes buffers) and computes the view's offset itself.
    A view of a view is sunk with its source.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def GPUBranchCounters : Pass<"orchestra-gpu-branch-counters",
                                "::mlir::ModuleOp"> {
  let summary = "Give the branch probes of GPU kernels their counters buffer";
  let description = [{
    Stage 7, before `gpu-kernel-outlining`, in a kernel module compiled with
    `--profile-branches` (design/0019, decision 7). Each task function whose
    launches hold `orchestra.branch_probe`s takes one more argument, after
    its buffers: a `memref<(4 * B)xi64>` (B: the function's branches in the
    module's `orchestra.branches` table) marked
    `orchestra.gpu_branch_counters`, which the probes get as their
    `counters`. Outlining passes it to the kernels that probe; the launch
    table records it as the `ProfileCounters` parameter, for which the
    runtime passes the counters it allocated for the kernel on that device.
    The probe of a loop's condition that the host reads back (a loop on a
    GPU: design/0019) moves into a one-thread `gpu.launch` of its own that
    reads the condition again and counts it. Any other probe outside every
    `gpu.launch`, or in a function the table does not name, is an error.
    Without probes the pass changes nothing.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect"];
}

def GPUKernelArgumentAlignment
    : Pass<"orchestra-gpu-kernel-argument-alignment",
           "::mlir::gpu::GPUModuleOp"> {
  let summary = "Tell LLVM how aligned the buffers a kernel takes are";
  let description = [{
    Stage 7, after `gpu-kernel-outlining`. Every buffer a kernel takes is
    a slot of a memory space's arena, placed at a multiple of 64 bytes
    (`orchestra-plan-buffers`) in an arena whose base the driver's device
    allocation aligns to 256 bytes, or a scratch buffer of its own
    allocation; views that would move the address are not passed (the
    launch table of the backends' emit-binary passes refuses them). This
    pass marks each memref argument of each kernel `llvm.align = 64`, which
    the bare-pointer calling convention carries to the kernel's parameter.
    LLVM then knows that the 16-byte chunks a thread reads and writes in
    global memory are aligned, and emits 16-byte vector loads and stores
    instead of four scalar accesses.
    An argument already marked keeps its mark. The runtime checks the
    promise: a launch whose buffer is not 64-byte aligned is an error.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def GPUWorkgroupAllocations : Pass<"orchestra-gpu-workgroup-allocations",
                                      "::mlir::gpu::GPUModuleOp"> {
  let summary = "Turn the allocations of a kernel into workgroup and private "
                "memory attributions";
  let description = [{
    Stage 7, after `gpu-kernel-outlining`. The strategy places the
    temporaries of a block tile in `#gpu.address_space<workgroup>` and those
    of a thread in `#gpu.address_space<private>`; bufferization allocates them
    with `memref.alloc` inside the kernel. This pass replaces each such
    static allocation in a `gpu.func` by a workgroup (shared memory) or
    private attribution of the function and erases its deallocation, so that
    the GPU lowering (`convert-gpu-to-*`) emits shared-memory globals and
    private arrays instead of device-side `malloc` calls.

    An allocation of dynamic shape without a memory space is a thread's copy
    of a tile it writes but its block does not share (bufferization makes
    one for the accumulator of a result nobody reads, such as ArgMax's
    maximum): every thread that runs it gets its own buffer, so it is
    private memory, and its sizes come from the thread's tile. Where they
    have constant upper bounds (value-bounds analysis; an `affine.max` is
    bounded by its expressions' largest bound), the buffer takes at most
    4 KB and its users are structured ops, loads, stores and
    `memref.dim`, it becomes a private attribution of the bounds,
    reinterpreted to the sizes asked for. Any other allocation in a kernel
    is an error.

    A kernel whose shared-memory tiles take more than `static-limit` bytes
    (the 48 KB a CUDA kernel may declare statically, by default) gets them
    in dynamic shared memory instead: views of `gpu.dynamic_shared_memory`,
    each on a 128-byte line. The bytes are recorded per kernel in the
    module's `orchestra.dynamic_shared_memory` dictionary, from which the
    backend's emit-binary pass sets the dynamic shared memory of the
    kernel's launches (the runtime raises the function's limit when it is
    above the static limit). With `limit` (or the target key `limit-key` of
    the kernel module's `orchestra.target`, which takes precedence), a
    kernel whose tiles take more than that in all is an error that names
    the key.
  }];
  let options = [
    Option<"staticLimit", "static-limit", "int64_t", /*default=*/"49152",
           "most shared memory a kernel declares statically; beyond it, its "
           "tiles live in dynamic shared memory">,
    Option<"limit", "limit", "int64_t", /*default=*/"0",
           "most shared memory one workgroup may take (0: not checked here)">,
    Option<"limitKey", "limit-key", "std::string", /*default=*/"\"\"",
           "the target key that sets `limit` (read from the kernel module's "
           "target description)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def GPULowerAsmKernels : Pass<"orchestra-gpu-lower-asm-kernels",
                               "::mlir::ModuleOp"> {
  let summary = "Replace the bodies of tasks that carry assembly kernels by "
                "a launch of their kernel";
  let description = [{
    The first pass on a kernel module of a GPU arch (the registry's
    `preparePipeline`), with or without the strategy. A kernel function
    with `orchestra.asm_kernel` (a task's `asm_kernel`, the expert escape
    hatch) gets its final host form at once: its tensors become buffers
    (arguments, then one per result, in the kernel ABI's order), and its
    body one `gpu.launch_func` of the assembly kernel with the task's grid,
    block and dynamic shared memory, passing every buffer. The kernel is
    declared in a device module of its own, `@<function>_asm`, which keeps
    the `orchestra.asm_kernel` dictionary: a `gpu.func` with an empty body
    whose signature is what the assembly must implement (one 64-bit pointer
    per buffer). The rest of the pipeline leaves both alone but for the
    declaration's lowering; the arch's emit-binary pass then assembles the
    source instead of compiling the module, and records the launch like any
    other. Errors: a malformed dictionary, an argument or result that is not
    a tensor with a static shape.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

#endif // ORCHESTRA_TARGET_GPU_PASSES_TD
