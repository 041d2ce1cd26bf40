//===- Passes.td - AMD GPU backend passes ------------------*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_AMD_PASSES_TD
#define ORCHESTRA_TARGET_AMD_PASSES_TD

include "mlir/Pass/PassBase.td"

def AMDSelectRecipes : Pass<"orchestra-amd-select-recipes",
                            "::mlir::ModuleOp"> {
  let summary = "Choose the strategy recipe of each kernel of an AMD GPU "
                "kernel module";
  let description = [{
    Stage 5 for `amd_cdna3`, before the strategy script
    (`strategies/amd_instinct_cdna3_strategy.mlir`), which cannot do
    arithmetic on shapes: this pass decides what it needs to know and
    records it as attributes the script matches:

    * `orchestra.gpu_recipe = "mfma"` on a kernel's fusion root when its
      `linalg.matmul` (plain maps, static shapes) can run on the matrix
      cores: f32, f16 or bf16 operands accumulated in f32, or i8 in i32; M
      and N multiples of the 64x64 workgroup tile; K a multiple of the K
      step (64 bytes of a row of A: 16 f32, 32 f16/bf16, 64 i8); an
      accumulator that starts as a `linalg.fill`; a root that is the matmul
      or a rank-2 elementwise epilogue of it. The root records the tiles
      the script reads (`orchestra.gpu_tile_m`/`_n` 64, the waves'
      `orchestra.gpu_warp_m`/`_n` 32, the K step `orchestra.gpu_k_tile`,
      and `orchestra.gpu_copy_elems`, the elements of the 16 bytes each
      thread copies into LDS per K step); the matmul gets
      `orchestra.gpu_mma`. The target key `mfma = false` turns the recipe
      off (the plain FMA path);
    * `orchestra.gpu_recipe = "simt"` on every other fusion root, with the
      SIMT tiles of `strategies/gpu_common.mlir`
      (lib/Target/GPU/Recipes.cpp): block and thread tiles of each op, 256
      threads (four 64-lane waves) per workgroup.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def AMDVectorToMFMA : Pass<"orchestra-amd-vector-to-mfma",
                           "::mlir::ModuleOp"> {
  let summary = "Distribute the wave-level contractions of the MFMA recipe "
                "onto the lanes of a wave as amdgpu.mfma";
  let description = [{
    Stage 7 of `amd_cdna3`, after the strategy's `map_to_gpu` sequence.
    Upstream MLIR has no rewrite from `vector.contract` to `amdgpu.mfma`;
    this is the project's. Every `vector.contract` whose result is a tile of
    32·a x 32·b (a wave's share of a workgroup's tile in the MFMA recipe) is
    a row-major matmul whose A and B are read from memory (the LDS tiles of
    the K step) and whose accumulator is read from and written back to one
    place. It becomes, per lane of the 64-lane wave, loads of the lane's
    operand elements and a chain of 32x32 `amdgpu.mfma` over K, in the
    register layouts of AMD's CDNA3 matrix-instruction tables:

    | operands | accumulator | instruction | K | elements per lane (A, B) |
    |---|---|---|---|---|
    | f32 | f32 | `v_mfma_f32_32x32x2_f32` | 2 | 1 |
    | f16 | f32 | `v_mfma_f32_32x32x8_f16` | 8 | 4 |
    | bf16 | f32 | `v_mfma_f32_32x32x8_bf16` | 8 | 4 |
    | i8 | i32 | `v_mfma_i32_32x32x16_i8` | 16 | 8 |

    Lane `l` holds A[l % 32][(l / 32) P + i] and B[(l / 32) P + i][l % 32]
    (i < P), and accumulator register r of D[8 (r / 4) + 4 (l / 32) + r % 4]
    [l % 32] (r < 16). When the accumulator is read and written in the body
    of an `scf.for` at a place defined outside it (the K loop), its
    registers are loaded once before the loop, carried through it, and
    stored once after it. A workgroup barrier follows the stores, so that
    the threads that read the accumulators next (an epilogue's, from LDS)
    see every wave's. Any other wave-sized contraction is an error: an
    unsupported element type (f64, the OCP fp8 types: gfx942 multiplies the
    FNUZ ones), a contraction that is not a row-major matmul, operands that
    are not whole in-bounds reads of memory, or one outside a `gpu.launch`
    of one-dimensional blocks of whole waves.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "the chip named in diagnostics">,
  ];
  let dependentDialects = [
    "::mlir::amdgpu::AMDGPUDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def AMDLowerBranchProbes : Pass<"orchestra-amd-lower-branch-probes",
                                 "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower the branch probes of AMD kernels to wave votes";
  let description = [{
    Stage 8, in each `gpu.module` of a kernel module compiled with
    `--profile-branches` (design/0019, decision 7), before the conversion to
    ROCDL. Each `orchestra.branch_probe` (with the counters buffer
    `orchestra-gpu-branch-counters` gave it) becomes a vote of the 64-lane
    wave: the active lanes (`rocdl.ballot` of true: the exec mask) and the
    ballot of the condition (`rocdl.ballot`); the lowest active lane then
    adds the then lanes, the else lanes, one wave, and one divergent wave
    when the lanes disagree to the branch's four counters with atomic adds.
    Without probes nothing changes.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::ROCDL::ROCDLDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def AMDEmitBinary : Pass<"orchestra-amd-emit-binary", "::mlir::ModuleOp"> {
  let summary = "Compile the device modules of an AMD GPU kernel module to "
                "HSACO code objects and record their launches";
  let description = [{
    Stage 8 of `amd_cdna3`, after `convert-gpu-to-rocdl`. Each `gpu.module`
    gets a `#rocdl.target` for the device's `chip` (the target key, else the
    `chip` option) and is compiled by LLVM's AMDGPU backend and linked by
    `ld.lld` into a code object (HSACO), through upstream's
    `gpu::TargetAttrInterface`; kernels that call math functions link the
    ROCm device libraries (`ocml.bc`, `ockl.bc`). Upstream looks for both
    in a ROCm installation (`<rocm>/llvm/bin/ld.lld`,
    `<rocm>/amdgcn/bitcode`): without the `rocm-path` option, this pass
    assembles one in a temporary folder from an `ld.lld` (the `ld-lld`
    option, else `$ORCHESTRA_LD_LLD`, else the one of the LLVM OrchestraOS
    was built with, else beside the running tool or on PATH) and the device
    libraries (`$ORCHESTRA_ROCM_DEVICE_LIBS`, else the first of
    `$ROCM_PATH/amdgcn/bitcode`, Debian's `rocm-device-libs` and
    `/opt/rocm` that holds `ocml.bc`); missing either is an error that says
    what to install.

    The module becomes a GPU module bundle (`orchestra_rt/GpuBundle.h`): one
    `hsaco` image per device module with each kernel's resource usage from
    the code object's metadata (VGPRs, AGPRs, SGPRs, spills, LDS and
    scratch bytes), and the launches of each task kernel (the launch table
    of lib/Target/GPU/LaunchTable.cpp). A kernel whose LDS exceeds the
    target's `lds_size` (default 65536 bytes) is an error; one that spills
    registers to scratch memory gets a warning. The target key
    `wavefront_size` must be 64 (CDNA3 runs 64-lane waves only). With
    `--dump-device-code`, each module's code object (`.hsaco`), its
    assembly (`.s`) and the module as the AMDGPU backend receives it
    (`.rocdl.mlir`, which `orchestra-amdgpu-emulate` runs on the CPU) are
    written there.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"gfx942\"",
           "GFX version to compile for when the target does not say">,
    Option<"optLevel", "opt-level", "unsigned", /*default=*/"3",
           "LLVM optimization level of the device code (0-3)">,
    Option<"rocmPath", "rocm-path", "std::string", /*default=*/"\"\"",
           "a ROCm installation whose llvm/bin/ld.lld and amdgcn/bitcode "
           "to use (default: assembled from LLVM and the device libraries)">,
    Option<"ldLld", "ld-lld", "std::string", /*default=*/"\"\"",
           "the ld.lld to link code objects with">,
  ];
  let dependentDialects = [
    "::mlir::ROCDL::ROCDLDialect",
    "::mlir::gpu::GPUDialect",
  ];
}

#endif // ORCHESTRA_TARGET_AMD_PASSES_TD
