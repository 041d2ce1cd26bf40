//===- Passes.td - NVIDIA GPU backend passes ----------------*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_NVIDIA_PASSES_TD
#define ORCHESTRA_TARGET_NVIDIA_PASSES_TD

include "mlir/Pass/PassBase.td"

def NVIDIAPadsToLinalg : Pass<"orchestra-nvidia-pads-to-linalg",
                              "::mlir::ModuleOp"> {
  let summary = "Turn the tensor.pad ops of GPU kernels into linalg.generic";
  let description = [{
    Stage 5, before the strategy. A `tensor.pad` (a padded convolution's or
    pool's input) is not a structured op, so the NVIDIA strategy has nothing
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

def NVIDIAParallelLoopsFirst : Pass<"orchestra-nvidia-parallel-loops-first",
                                    "::mlir::ModuleOp"> {
  let summary = "Put the parallel loops of the structured ops of GPU kernels "
                "first";
  let description = [{
    Stage 5, before the strategy. The NVIDIA strategy tiles a structured op
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

def NVIDIASelectRecipes : Pass<"orchestra-nvidia-select-recipes",
                               "::mlir::ModuleOp"> {
  let summary = "Choose the strategy recipe of each kernel of a GPU kernel "
                "module";
  let description = [{
    Stage 5 for `nvidia_hopper` and `nvidia_blackwell`, before the strategy
    script. The script cannot do arithmetic on shapes, so this pass decides
    what it needs to know and records it as attributes the script matches:

    * `orchestra.gpu_recipe = "mma"` on a kernel's fusion root when the
      kernel computes a `linalg.matmul` the tensor cores can take: f16
      operands with an f16 or f32 accumulator, or bf16 operands with an f32
      accumulator, M and N multiples of the
      block tile (`mma-block-m`, `mma-block-n`), K a multiple of the K step
      the strategy stages in shared memory (`mma-block-k`), and a
      root that is the matmul or a rank-2 elementwise epilogue of the same
      M x N; the matmul gets `orchestra.gpu_mma`, and the root
      `orchestra.gpu_k_stages`, the stages of the K loop's software
      pipeline: `mma-stages`, or the number of K steps when there are
      fewer, and the tiles the script reads: the block tile
      (`orchestra.gpu_tile_m`/`_n`: `mma-block-m` x `mma-block-n`, or
      128 x 128 with the defaults when that divides the matmul, still gives
      each of the target's `num_sms` a block and fits in its
      `shared_memory_bytes`), the tile of each of the 2 x 4 warps
      (`orchestra.gpu_warp_m`/`_n`) and the rows of each thread's 16-byte
      chunks of the A and B tiles of a K step
      (`orchestra.gpu_copy_rows_a`/`_b`);
    * `orchestra.gpu_recipe = "wgmma"` (Hopper, unless the target key
      `wgmma = false` or `sm = "sm_90"` says otherwise) or `"tcgen05"`
      (Blackwell with `tcgen05 = true`) instead, for such a matmul of f16 or bf16 operands with an f32
      accumulator that starts as a zero fill, M a multiple of 128, N of
      the block tile's columns (128, or 256 with `wgmma_tile` /
      `tcgen05_tile = "128x256"` where N allows; without `wgmma_tile`,
      256 where N allows and there are at least `num_sms` such blocks) and
      K of 64 with at least
      two K steps: the root gets `orchestra.gpu_k_stages` (`mma-stages`,
      fewer when the loop is shorter or the shared memory holds fewer
      stages), the block tile and `orchestra.gpu_tma = 1`;
    * `orchestra.gpu_recipe = "simt"` on every other fusion root (the SIMT
      path: every op in block and thread tiles of its own). Its f32
      `linalg.matmul`s whose 32x64 block tiles divide M and N (so that the
      4x2 thread tiles are static) get `orchestra.gpu_simt_k_loop` and
      `orchestra.gpu_simt_k_tile`, the step (8, 4 or 2, dividing K) of
      each thread's K loop, whose 4x2 accumulators stay in registers.

    The fusion root is the op `orchestra-outline-tasks` tagged
    (`orchestra.fusion_root*`). The defaults of the options are the tiles of
    `strategies/nvidia_gpu_common.mlir`; a script with other tiles needs
    the same values here.
  }];
  let options = [
    Option<"mmaBlockM", "mma-block-m", "int64_t", /*default=*/"64",
           "rows of the strategy's tensor-core block tile">,
    Option<"mmaBlockN", "mma-block-n", "int64_t", /*default=*/"64",
           "columns of the strategy's tensor-core block tile">,
    Option<"mmaLargeBlocks", "mma-large-blocks", "bool", /*default=*/"true",
           "use block tiles twice as large in M and N where they divide the "
           "matmul, still give every SM a block, and fit in shared memory">,
    Option<"mmaStages", "mma-stages", "int64_t", /*default=*/"3",
           "most stages of the software pipeline of a tensor-core K loop "
           "(fewer when the loop has fewer steps)">,
    Option<"mmaBlockK", "mma-block-k", "int64_t", /*default=*/"32",
           "K step of the strategy's tensor-core K loop (the depth of the "
           "operand tiles it stages in shared memory)">,
  ];
}

def NVIDIAVectorToMMA : Pass<"orchestra-nvidia-vector-to-mma",
                             "::mlir::ModuleOp"> {
  let summary = "Turn the tensor-core contractions of each GPU launch into "
                "nvgpu.mma.sync";
  let description = [{
    Stage 7, after the strategy's foralls became `gpu.launch`es. Runs the
    upstream vector-to-nvgpu conversion (`populatePrepareVectorToMMAPatterns`
    and `convertVectorToNVVMCompatibleMMASync`, what
    `convert-vector-to-gpu{use-nvgpu}` runs on a whole function) on each
    `gpu.launch` that holds a `vector.contract`, and only there: the upstream
    pass also claims scalar arithmetic of launches without tensor-core work
    (the SIMT path) and fails on it.

    bf16 contractions: the upstream conversion has no bf16 fragments, so
    their operand reads are converted as f16 reads of a view of the same
    memory (ldmatrix moves 16-bit elements whatever they are), then the
    `nvgpu.ldmatrix` ops read the bf16 memory again and the
    `nvgpu.mma.sync` ops take bf16 operands, for
    `orchestra-nvidia-bf16-mma-to-nvvm`. A launch that mixes bf16 and other
    contractions, or reads a bf16 operand other than by an unmasked
    `vector.transfer_read`, is an error.
  }];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::nvgpu::NVGPUDialect",
  ];
}

def NVIDIABF16MMAToNVVM : Pass<"orchestra-nvidia-bf16-mma-to-nvvm"> {
  let summary = "Lower the bf16 nvgpu.mma.sync ops to nvvm.mma.sync";
  let description = [{
    Stage 8, in each `gpu.module` before `convert-nvgpu-to-nvvm`, which
    cannot lower `nvgpu.mma.sync` with bf16 operands in LLVM 22 ("failed to
    deduce operand PTX types"). Rewrites each m16n8k16 `nvgpu.mma.sync` with
    bf16 A and B and an f32 accumulator (what
    `orchestra-nvidia-vector-to-mma` makes of bf16 contractions) into an
    `nvvm.mma.sync` of bf16 multiplicands: A as four and B as two 32-bit
    registers of two bf16 each, C and D as four f32. Any other bf16
    `nvgpu.mma.sync` is an error.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def NVIDIACopiesToLinalg : Pass<"orchestra-nvidia-copies-to-linalg",
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

def NVIDIASinkLaunchOperands : Pass<"orchestra-nvidia-sink-launch-operands",
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

def NVIDIATensorMapArguments : Pass<"orchestra-nvidia-tensor-map-arguments",
                                    "::mlir::ModuleOp"> {
  let summary = "Pass the TMA descriptors of kernels as pointers";
  let description = [{
    Stage 7, after `gpu-kernel-outlining`. A kernel whose operand tiles the
    Tensor Memory Accelerator copies takes `!nvgpu.tensormap.descriptor`
    arguments, which the upstream GPU-to-NVVM conversion cannot type. This
    pass makes each such argument an `!llvm.ptr` (the device address of the
    128-byte tensor map, which the runtime copies into device memory before
    the launch), cast back to the descriptor type in the kernel for its
    NVGPU ops, and casts the launches' descriptor operands the same way.
    `orchestra-nvidia-emit-binary` looks through the cast to the
    `nvgpu.tma.create.descriptor` that made the descriptor.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def NVIDIAKernelArgumentAlignment
    : Pass<"orchestra-nvidia-kernel-argument-alignment",
           "::mlir::gpu::GPUModuleOp"> {
  let summary = "Tell LLVM how aligned the buffers a kernel takes are";
  let description = [{
    Stage 7, after `gpu-kernel-outlining`. Every buffer a kernel takes is
    a slot of a memory space's arena, placed at a multiple of 64 bytes
    (`orchestra-plan-buffers`) in an arena whose base `cuMemAlloc` aligns to
    256 bytes, or a scratch buffer of its own `cuMemAlloc`; views that
    would move the address are not passed (`orchestra-nvidia-emit-binary`
    refuses them). This pass marks each memref argument of each kernel
    `llvm.align = 64`, which the bare-pointer calling convention carries to
    the kernel's `.param .ptr .align 64`. LLVM then knows that the 16-byte
    chunks a thread reads and writes in global memory are aligned, and
    emits `ld.global.v4`/`st.global.v4` instead of four scalar accesses.
    An argument already marked keeps its mark. The runtime checks the
    promise: a launch whose buffer is not 64-byte aligned is an error.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def NVIDIAWorkgroupAllocations : Pass<"orchestra-nvidia-workgroup-allocations",
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
    the NVVM lowering emits shared-memory globals and local arrays instead of
    device-side `malloc` calls.

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

    A kernel whose shared-memory tiles take more than the 48 KB a CUDA
    kernel may declare statically gets them in dynamic shared memory
    instead: views of `gpu.dynamic_shared_memory`, each on a 128-byte line.
    The bytes are recorded per kernel in the module's
    `orchestra.dynamic_shared_memory` dictionary, from which
    `orchestra-nvidia-emit-binary` sets the dynamic shared memory of the
    kernel's launches (the runtime raises the function's limit when it is
    above 48 KB).
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def NVIDIAEmitBinary : Pass<"orchestra-nvidia-emit-binary",
                            "::mlir::ModuleOp"> {
  let summary = "Compile the device modules of a GPU kernel module to PTX "
                "and cubins and record their launches";
  let description = [{
    Stage 8 for `nvidia_hopper` and `nvidia_blackwell`. Input: a kernel
    module whose host functions (one per task kernel, bare memref operands)
    contain only `gpu.launch_func`s of device modules already lowered to
    NVVM, constants, static allocations (scratch buffers in device memory)
    and reshaping views. The pass

    1. attaches an NVVM target (the chip is the module's `sm` target key or
       `chip`; PTX features `features`) to every `gpu.module` and serializes
       it with the upstream NVVM target to PTX and, through `ptxas` from the
       CUDA toolkit (`cuda-path`, default `$CUDA_HOME` or `/usr/local/cuda`),
       to a cubin; without `ptxas` the module keeps PTX only (the driver
       compiles it at load time) and a warning says so;
    2. records every host function as a GPU kernel of the bundle: its
       launches in order, with grid and block sizes, dynamic shared memory
       and what each kernel parameter is (a buffer of the task, a scratch
       buffer, an immediate);
    3. stores the GPU module bundle (runtime/include/orchestra_rt/GpuBundle.h)
       as the module's `orchestra.binary` (format `gpu-module-bundle`) and
       empties the module.

    If the module has an `orchestra.device_code_dir` string attribute (set by
    `orchestra-lower-kernels{device-code-dir=...}`), every device module's PTX
    and cubin are also written there as `<kernel module>.<device module>.ptx`
    / `.cubin`.

    Anything else left in a host function (an op the strategy did not map to
    the GPU) is reported with its location.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90a\"",
           "SM version when the module's target has no `sm` key">,
    Option<"features", "features", "std::string", /*default=*/"\"+ptx80\"",
           "PTX ISA features of the NVVM target">,
    Option<"optLevel", "opt-level", "unsigned", /*default=*/"3",
           "LLVM optimization level of the device code (0-3)">,
    Option<"cudaPath", "cuda-path", "std::string", /*default=*/"\"\"",
           "CUDA toolkit holding bin/ptxas (default: $CUDA_HOME, else "
           "/usr/local/cuda)">,
  ];
  let dependentDialects = [
    "::mlir::gpu::GPUDialect",
    "::mlir::NVVM::NVVMDialect",
  ];
}

#endif // ORCHESTRA_TARGET_NVIDIA_PASSES_TD
