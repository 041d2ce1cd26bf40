//===- Passes.td - NVIDIA GPU backend passes ----------------*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_NVIDIA_PASSES_TD
#define ORCHESTRA_TARGET_NVIDIA_PASSES_TD

include "mlir/Pass/PassBase.td"

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

def NVIDIALowerBranchProbes : Pass<"orchestra-nvidia-lower-branch-probes",
                                    "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower the branch probes of NVIDIA kernels to warp votes";
  let description = [{
    Stage 8, in each `gpu.module` of a kernel module compiled with
    `--profile-branches` (design/0019, decision 7), before the conversion to
    NVVM. Each `orchestra.branch_probe` (with the counters buffer
    `orchestra-gpu-branch-counters` gave it) becomes a vote of the warp:
    the active lanes (`activemask.b32`, inline PTX: NVVM has no op for it)
    and the ballot of the condition among them (`nvvm.vote.sync ballot`);
    the lowest active lane then adds the then lanes, the else lanes, one
    warp, and one divergent warp when the lanes disagree to the branch's
    four counters with atomic adds. Without probes nothing changes.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
  ];
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
