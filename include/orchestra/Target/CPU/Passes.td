//===- Passes.td - Host CPU backend passes ------------------*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_CPU_PASSES_TD
#define ORCHESTRA_TARGET_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def CPUPackInt8Operands
    : Pass<"orchestra-cpu-pack-int8-operands", "::mlir::ModuleOp"> {
  let summary = "Ask for the filters of 8-bit convolutions and matmuls in "
                "the layout of the dot-product instructions";
  let description = [{
    The x86_64 constant-layout pass (stage 4, run by
    `orchestra-hoist-constant-layouts` before the plan's memory is laid
    out). On a CPU with VNNI (the module's `orchestra.target`, as for
    `orchestra-cpu-tag-tiling`), a kernel argument used only as the filter
    of 8-bit convolutions (`linalg.conv_2d_nhwc_hwcf`, i8 x i8 -> i32) or as
    the B of 8-bit row-major matmuls is read through a `linalg.unpack` of
    its packed form: four input channels (rows of B) innermost,
    `[KH, KW, ceil(C/4), F, 4]` for a filter, `[ceil(K/4), N, 4]` for B,
    zero-padded. The `linalg.pack` that makes it is marked
    `orchestra.constant_layout`: when the plan passes a constant (the
    weights), `orchestra-hoist-constant-layouts` packs it at compile time
    and the kernel takes the packed argument; `vpdpbusd` then reads each
    step's 16 output channels x 4 input channels as 64 contiguous bytes
    (`transform.orchestra.cpu_int8_dot`), with no shuffles, and a tile's
    filter bytes are contiguous rows of whole cache lines. Otherwise the
    request is withdrawn and the kernel is as before.

    ```mlir
    %p = linalg.pack %w padding_value(%c0 : i8) inner_dims_pos = [2]
        inner_tiles = [4] into %e {orchestra.constant_layout}
        : tensor<3x3x6x24xi8> -> tensor<3x3x2x24x4xi8>
    %f = linalg.unpack %p inner_dims_pos = [2] inner_tiles = [4] into %e2
        : tensor<3x3x2x24x4xi8> -> tensor<3x3x6x24xi8>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def CPUPackMatmulBlocks
    : Pass<"orchestra-cpu-pack-matmul-blocks", "::mlir::ModuleOp"> {
  let summary = "Ask for the B of f32 matmuls in the cache blocks the "
                "strategy's register tiles read";
  let description = [{
    The x86_64 constant-layout pass for float matmuls (stage 4, run by
    `orchestra-hoist-constant-layouts` after
    `orchestra-cpu-pack-int8-operands`; design note 0020). A kernel
    argument used only as the B (`K x N`, f32, static) of row-major
    `linalg.matmul`s of at least 16 rows, with K at least 256 and N at least
    128 (and the zero padding of partial blocks at most a quarter of B), is
    read through a `linalg.unpack` of its packed form
    `[ceil(N / 128), ceil(K / 256), 256, 128]`: the strategy's cache blocks of B (128
    columns by 256 rows of K), each contiguous, its rows 512 bytes apart
    instead of the matrix's width (a power of two in most models, which
    maps a block's rows onto few cache sets). The `linalg.pack` that makes
    it is marked `orchestra.constant_layout`: when the plan passes a
    constant (the weights), it is packed at compile time, and
    `orchestra-cpu-tag-tiling` gives the matmul the variant with these
    blocks (`b128x256_r6x64`), whose register tiles then read the packed
    blocks in place (`transform.apply_patterns.orchestra.fold_unpack_slices`).
    Otherwise the request is withdrawn and the kernel is as before.

    ```mlir
    %p = linalg.pack %b outer_dims_perm = [1, 0] inner_dims_pos = [0, 1]
        inner_tiles = [256, 128] into %e {orchestra.constant_layout}
        : tensor<512x1024xf32> -> tensor<8x2x256x128xf32>
    %u = linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [0, 1]
        inner_tiles = [256, 128] into %e2
        : tensor<8x2x256x128xf32> -> tensor<512x1024xf32>
    ```
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
}

def CPUTagTiling : Pass<"orchestra-cpu-tag-tiling", "::mlir::ModuleOp"> {
  let summary = "Tag the fusion roots and convolutions of x86_64 kernels "
                "with the tiling the strategy gives them";
  let description = [{
    Stage 5 for `x86_64`, first of the passes before the strategy script.
    `orchestra-outline-tasks` tags the *fusion root* of each kernel (the op
    its parallel loop is built around) `orchestra.fusion_root` and the
    structured ops it depends on `orchestra.fusion_producer`, for any arch.
    This pass replaces the root's tag by the one that names its tiling in
    `strategies/x86_64_strategy.mlir`:

    - `orchestra.fusion_root_cols`: the step of a loop over time (a
      recurrent layer), tiled by the state's columns across the cores;
    - `orchestra.fusion_root_ndhwc_rows`, `_ndhwc_channels`,
      `_ndhwc_rows_channels`: a root sharing the [1, D, H, W, C] output of a
      channels-last 3-D convolution or pooling, tiled by the rows of every
      depth when there are 14 or more (D x H), else by 32 channels (a dense
      convolution whose channels come in 32s), else by rows and 16 channels;
    - `orchestra.fusion_root_nhwc_rows`, `_nhwc_groups`, `_nhwc_channels`,
      `_nhwc_rows_channels`: the same for a [1, H, W, C] output of a 2-D one
      (14 or more rows; a grouped convolution of 4 or more groups is tiled
      by groups), or a [N, H, W, C] one of a dynamic batch, tiled by one
      image too, so that each tile has the static shapes of a batch of one
      (design/0017);
    - `orchestra.fusion_root_tall` (around a matmul of 1024 or more rows),
      `_wide` (128 or more, or a dynamic number), `_short` (2 to 15 rows,
      or a dynamic first loop of 3-D work such as attention heads; no
      matmul), or
      `orchestra.fusion_root` (kept) for a root with a parallel first loop;
    - `orchestra.fusion_root_d1` (`_d1_conv` with a convolution) when only
      its second loop is, after a unit first one.

    It also tags each channels-last convolution with the width of its
    register tiles, `orchestra.conv_channels_32`, or
    `orchestra.conv_channels_16` when 32-channel tiles leave a remainder
    that is not a power of two (24 of MobileNetV2's 24 channels), which LLVM
    splits into vectors badly. For a grouped convolution the width is that
    of one group's output channels. A 2-D 8-bit convolution (i8 x i8 ->
    i32) gets `orchestra.int8_dot` instead, and so does an 8-bit row-major
    `linalg.matmul`, when the module's CPU (its
    `orchestra.target`'s `cpu` and `features`, else the compiling machine's)
    has the VNNI dot-product instructions: the vector width, 512 (AVX-512
    VNNI) or 256 (AVX-VNNI), for `transform.orchestra.cpu_int8_dot`. A
    matmul whose B is the `linalg.unpack` of the cache blocks
    `orchestra-cpu-pack-matmul-blocks` asks for gets
    `orchestra.tile_variant = "b128x256_r6x64"`, the strategy's variant
    with those blocks, over any a tuning cache named.

    ```mlir
    // Before (a kernel of orchestra-outline-tasks):
    %m = linalg.matmul {orchestra.fusion_root}
        ins(%a, %b : tensor<256x64xf32>, tensor<64x32xf32>) ...
    // After:
    %m = linalg.matmul {orchestra.fusion_root_wide}
        ins(%a, %b : tensor<256x64xf32>, tensor<64x32xf32>) ...
    ```
  }];
}

def CPUSelectTiles : Pass<"orchestra-cpu-select-tiles", "::mlir::ModuleOp"> {
  let summary = "Size the parallel row (or column) tiles of x86_64 kernels "
                "for the device's threads";
  let description = [{
    Stage 5 for `x86_64`, before the strategy script. `orchestra-cpu-tag-tiling`
    tags the fusion root of each kernel by its structure:
    `orchestra.fusion_root` (a parallel first loop), `_short` (2 to 15
    rows, no matmul), `_wide` (around a matmul of at least 128 rows) and
    `_tall` (at least 1024). The strategy tiles such a root into an
    `scf.forall` over rows, which becomes an OpenMP loop whose iterations
    the device's threads share in contiguous chunks. This pass chooses the
    rows of one tile and records them on the root as `orchestra.tile_rows`
    (read by the script with `transform.orchestra.param_from_attr`).

    Each tag has a nominal tile: 128 rows for `_tall` and 64 for `_wide`
    (a block of A that the rows reuse from the cache with each block of B),
    8 for `orchestra.fusion_root` (one register tile of a matmul) and 1 for
    `_short`. With `num_threads` threads (the kernel module's
    `orchestra.target`; 1 when absent), the busiest thread computes
    `ceil(tiles / num_threads)` tiles. The pass takes the nominal tile
    unless a smaller one, down to half of it in steps of 8 rows, gives the
    busiest thread fewer rows: 1040 rows on 2 threads are 9 tiles of 128
    (640 rows for one thread, 400 for the other), but 10 tiles of 104 (520
    each), which took a 1040^3 matmul from 0.59 to 0.84 of oneDNN. The
    8-row tiles of tasks without a contraction or convolution shrink in
    steps of one row (24 rows: 4 tiles of 6, not 3 of 8). A root that
    already has `orchestra.tile_rows` keeps it.

    Every row tile of a matmul reads the whole right-hand side B. An
    `orchestra.fusion_root` around the kernel's only matmul (the root
    computing its M x N result, M below 128) whose B is larger than 512 KiB
    and that has at least 128 columns per thread is tiled by columns
    instead: the pass replaces the tag by `orchestra.fusion_root_cols` and
    records `orchestra.tile_cols`, the threads' even shares of the columns
    in whole 64-column blocks. Each thread then computes all rows of its
    columns and reads its share of B once, instead of all of B once per
    8-row tile (ViT-B/32's 50x768 by 768x3072 matmul: 0.24 -> 1.08 of
    oneDNN on 2 threads); with fewer than 16 rows it is also what keeps
    every core busy.
  }];
}

def CPUFillPadBorders : Pass<"orchestra-cpu-fill-pad-borders",
                               "::mlir::ModuleOp"> {
  let summary = "Fill only the border of a padded tensor";
  let description = [{
    Stage 7 for `x86_64`, right after the strategy, which writes every
    `tensor.pad` as a fill of the padded tensor and an `insert_slice` of the
    source. Filling the whole tensor writes the interior twice, and the
    fill runs on one thread outside the parallel loops: for the 114x114x96
    input of MobileNetV2's first depthwise convolution, 5 MB of stores
    before the task's parallel loop writes the same interior again. This
    pass replaces the whole fill by fills of the border: along each
    dimension, the slabs before and after the source (within the source's
    extent along the dimensions before it, whole along those after it), each
    inserted into the padded tensor before the source is. After
    `eliminate-empty-tensors` all of them are written in place.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def CPUSetNumThreads : Pass<"orchestra-cpu-set-num-threads",
                            "::mlir::ModuleOp"> {
  let summary = "Give every OpenMP parallel region of a kernel module the "
                "device's thread count";
  let description = [{
    Stage 7 for `x86_64`. Kernels run their parallel loops (the `scf.forall`
    of the strategy, converted to OpenMP) on the cores of their device. This
    pass sets `num_threads` on every `omp.parallel` of the kernel module that
    has none to the `num_threads` key of the module's `orchestra.target`
    (from the topology device), so that two CPU devices of one topology
    split the machine's cores instead of each using all of them.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::omp::OpenMPDialect",
  ];
}

def CPUApproximateMath : Pass<"orchestra-cpu-approximate-math",
                              "::mlir::ModuleOp"> {
  let summary = "Vectorized polynomial approximations of exp, log, tanh, erf";
  let description = [{
    Stage 7 for `x86_64`, before the math dialect is lowered to LLVM. LLVM
    lowers `math.exp` and friends on vectors to one C library call per lane,
    which made the exponentials of a softmax cost more than the matmuls
    around it. This pass rewrites `exp`, `expm1`, `log`, `log1p`, `log2`,
    `tanh` and `erf` (f32, and f16/bf16 through f32) as upstream's
    polynomial approximations, which are plain vector arithmetic (FMAs) and
    accurate to a few ulp; the other functions stay library calls.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def CPUExpandStridedCopies : Pass<"orchestra-cpu-expand-strided-copies",
                                  "::mlir::ModuleOp"> {
  let summary = "Turn copies between non-identity memrefs into linalg.copy";
  let description = [{
    Stage 7 for `x86_64`, before loops are lowered. The LLVM lowering of a
    `memref.copy` whose source or target is not in the identity layout (a
    strided slice) calls `memrefCopy` from MLIR's C runner utilities, a
    library kernels must not depend on. This pass rewrites those copies as
    `linalg.copy`, which `convert-linalg-to-loops` turns into plain loops;
    copies between identity layouts stay `memref.copy` (a `memcpy`).

    It also rewrites each `memref.expand_shape` that splits one dimension
    into several dynamic ones (a reshape of `[batch * seq, n]` to `[batch,
    seq, n]`, design/0017), which upstream's `expand-strided-metadata`
    cannot lower, as a `memref.reinterpret_cast` of its contiguous source
    with the row-major strides of the output shape.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect"];
}

def CPUStackScratchBuffers : Pass<"orchestra-cpu-stack-scratch-buffers",
                                  "::mlir::ModuleOp"> {
  let summary = "Put small per-iteration scratch buffers on the stack";
  let description = [{
    Stage 7 for `x86_64`, after `convert-scf-to-openmp` (which gives every
    parallel loop body its own `memref.alloca_scope`). A tile of a parallel
    loop often needs a few small scratch buffers (a transposed filter slice,
    an accumulator tile); as `memref.alloc`s they call the kernel allocator
    once per tile from every thread, and those calls cost more than the
    tile's arithmetic. This pass turns a `memref.alloc` of static shape into
    a `memref.alloca` when it sits directly in an automatic allocation scope
    (a loop body's `memref.alloca_scope`, or the function), is freed by a
    `memref.dealloc` in the same block, and fits the size limits; the
    `memref.dealloc` goes. The stack space is released when the scope ends,
    so it does not grow with the iterations.
  }];
  let options = [
    Option<"maxBufferBytes", "max-buffer-bytes", "int64_t", "32768",
           "Largest buffer put on the stack">,
    Option<"maxScopeBytes", "max-scope-bytes", "int64_t", "131072",
           "Largest total of stack buffers in one scope (worker threads "
           "have small stacks)">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def CPUBoolVectorMemory : Pass<"orchestra-cpu-bool-vector-memory",
                               "::mlir::ModuleOp"> {
  let summary = "Load and store vectors of i1 a byte per element";
  let description = [{
    Stage 7 for `x86_64`, on the LLVM dialect (after
    `reconcile-unrealized-casts`). A buffer of `i1` holds a byte per
    element: that is how the scalar loads and stores of `memref<...xi1>`
    address it (LLVM's `i1` takes a byte in memory), and how the kernel ABI
    passes booleans. But LLVM packs a `<N x i1>` vector into N bits when it
    loads or stores one, so a vectorized op that writes an `i1` buffer and
    a scalar one that reads it (a `tensor.extract` in another op's body,
    say) disagree about where element k is. This pass loads and stores
    every vector of `i1` (`llvm.load`, `llvm.store`, and their masked
    intrinsics) as a vector of `i8` of zeros and ones, with a `trunc` after
    the load and a `zext` before the store, so that every access to an
    `i1` buffer uses a byte per element.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CPULowerBranchProbes
    : Pass<"orchestra-cpu-lower-branch-probes", "::mlir::ModuleOp"> {
  let summary = "Lower branch probes to atomic increments of the kernel's "
                "counters";
  let description = [{
    Stage 7 for `x86_64`, after the conversion to the LLVM dialect. Each
    `orchestra.branch_probe` of branch `i` in kernel `k` becomes a relaxed
    `atomicrmw add` of 1 on counter `4 i` (condition true) or `4 i + 1`
    (false) of the kernel's counters: four unsigned 64-bit counters per
    branch (the last two count warps on GPUs; design/0019). The counters'
    address is in the internal global `__orx_branch_counters_<k>`, which
    `orchestra-cpu-kernel-abi` sets from the pointer the runtime passes after
    the kernel's buffers. A probe outside a kernel (a function without
    `orchestra.abi`) is an error.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CPUKernelABI : Pass<"orchestra-cpu-kernel-abi", "::mlir::ModuleOp"> {
  let summary = "Wrap every kernel in the runtime's calling convention";
  let description = [{
    Stage 7 for `x86_64`, after the conversion to the LLVM dialect. The
    runtime calls a CPU kernel as
    `void orx_kernel_<name>(void **buffers, const int64_t *sizes)` with one
    pointer per operand, then per result (dense row major), and the sizes
    of their dynamic dimensions in the same order (design/0017; static
    kernels ignore `sizes`). For every function with an `orchestra.abi` (its
    tensor operand and result types, recorded by `orchestra-outline-tasks`),
    this pass adds that wrapper, which builds the memref descriptors of the
    lowered function (constant sizes and strides where the shape is static,
    loaded and multiplied where it is not), and makes the lowered function
    internal so that it is inlined.

    Scratch buffers (the `memref.alloc`s left inside kernels, lowered to
    `malloc`/`free`) go through the runtime's allocator: the pass adds the
    exported global `orx_kernel_allocator` (two function pointers, null by
    default) and routes every `malloc`/`free` call through it, falling back
    to the C library while it is null. The runtime sets it to an allocator
    that keeps freed blocks for reuse, so that a kernel run does not map and
    fault in fresh pages for every scratch buffer.

    A kernel with branch probes (`orchestra-cpu-lower-branch-probes`) takes
    one more pointer after its buffers, its branch counters, which the
    wrapper stores into the kernel's `__orx_branch_counters_<name>`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CPUEmitBinary : Pass<"orchestra-cpu-emit-binary", "::mlir::ModuleOp"> {
  let summary = "Compile a kernel module to a shared object for the host CPU";
  let description = [{
    Stage 8 for `x86_64`. Translates the kernel module (LLVM and OpenMP
    dialects) to LLVM IR, optimises it, generates an object file for the
    CPU and features of the module's `orchestra.target` (`cpu`, `features`
    keys; default: the compiling machine's, as `-march=native` would; a
    `cpu` alone means that CPU's own features, as `-march=<cpu>` would), and
    links it into an ELF shared object with `ld.lld` (against the OpenMP
    runtime and libm). The module's body is replaced by attributes:
    `orchestra.binary` (the shared object), `orchestra.binary_format`,
    `orchestra.kernels` (the exported kernels) and
    `orchestra.required_features` (the ISA extensions the code uses, which
    the runtime checks before loading it).

    With several cores (and MLIR multithreading enabled), a module of more
    than a few functions is split into one part per core: functions that
    reference each other (a kernel, its wrapper, its OpenMP bodies) stay
    together, so no inlining is lost; groups go to the least loaded part,
    largest first; constants of local linkage are copied into every part.
    The parts are optimised and compiled on their own threads, and the
    linker joins the object files. The split is deterministic: the binary
    is the same from run to run. ViT-B/32's kernels (160 tasks) took 9 s in
    one piece on the development machine.
  }];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"\"",
           "CPU to generate code for (overrides the target's 'cpu' key)">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "Target features, e.g. '+avx2,+fma' (overrides 'features')">,
    Option<"optLevel", "opt-level", "unsigned", /*default=*/"3",
           "LLVM optimisation level (0-3)">,
    Option<"linker", "linker", "std::string", /*default=*/"\"\"",
           "Path of ld.lld (default: the one found at configure time)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // ORCHESTRA_TARGET_CPU_PASSES_TD
