//===- CPUTarget.cpp - Host CPU target entries ----------------------------===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#include "orchestra/Target/TargetRegistry.h"
#include "orchestra/Target/Targets.h"

using namespace mlir::orchestra;

/// Registers the host CPU archs.
void mlir::orchestra::registerCPUTargets(TargetRegistry &registry) {
  TargetInfo x86;
  x86.arch = "x86_64";
  x86.description = "x86-64 host CPU";
  x86.keys = {
      {"num_threads",
       TargetKeyType::Integer,
       /*required=*/false,
       "worker threads the device's queue runs kernels on (default: the "
       "device's cores)",
       /*minValue=*/1,
       {}},
      {"cpu",
       TargetKeyType::String,
       /*required=*/false,
       "LLVM CPU name to generate code for, e.g. \"skylake-avx512\" "
       "(default: the compiling machine's CPU)",
       std::nullopt,
       {}},
      {"features",
       TargetKeyType::String,
       /*required=*/false,
       "LLVM target features, e.g. \"+avx512f,+fma\", added to the CPU's "
       "(default: the CPU's own when `cpu` is given, else those of the "
       "compiling machine)",
       std::nullopt,
       {}},
  };
  x86.memorySpaces = {
      {"dram", MemoryScope::Device, "host main memory"},
  };
  x86.defaultMemorySpace = "dram";
  x86.strategyScript = "x86_64_strategy.mlir";
  x86.strategyEntryPoint = "__orchestra_x86_64_strategy";
  // Stage 4: the filters of the VNNI path's 8-bit contractions with four
  // input channels innermost, and the B of float matmuls in the strategy's
  // cache blocks, packed at compile time when they are constants
  // (orchestra-hoist-constant-layouts).
  x86.constantLayoutPipeline =
      "orchestra-cpu-pack-int8-operands,orchestra-cpu-pack-matmul-blocks";
  // Stage 5: the tiling of each kernel's fusion root and convolutions, and
  // the rows of its parallel tiles for the device's threads (read by the
  // strategy script).
  x86.preStrategyPipeline =
      "orchestra-cpu-tag-tiling,orchestra-cpu-select-tiles";
  // Stages 6-8: bufferize with results as out-parameters, lower loops,
  // parallel loops to OpenMP, vectors and everything else to LLVM, wrap the
  // kernels in the runtime's ABI and link a shared object.
  x86.loweringPipeline =
      // A tensor.empty that a padded result is computed into becomes a
      // slice of the padded tensor (the strategy's step 7), so the kernel
      // writes it in place.
      "orchestra-cpu-fill-pad-borders,canonicalize,eliminate-empty-tensors,"
      // A recurrent layer's step whose parallel tiles all read the whole
      // previous state writes the new state into a new buffer: the loop
      // yields an allocation.
      "one-shot-bufferize{allow-return-allocs-from-loops "
      "bufferize-function-boundaries "
      "function-boundary-type-conversion=identity-layout-map},"
      "buffer-results-to-out-params{hoist-static-allocs "
      "modify-public-functions},"
      "cse,canonicalize,buffer-deallocation-pipeline,"
      "convert-bufferization-to-memref,orchestra-cpu-expand-strided-copies,"
      "convert-linalg-to-loops,"
      "scf-forall-to-parallel,convert-scf-to-openmp,"
      // Small scratch buffers of each parallel iteration go on the stack of
      // its memref.alloca_scope instead of through the allocator.
      "orchestra-cpu-stack-scratch-buffers,"
      "orchestra-cpu-set-num-threads,lower-affine,"
      "func.func(lower-vector-multi-reduction,convert-vector-to-scf{full-"
      "unroll=true}),"
      // Math ops without an LLVM intrinsic (erf, atan, ...) become libm
      // calls, one per vector lane: before the vector lowering, which
      // lowers the lane extracts and inserts.
      "orchestra-cpu-approximate-math,"
      "convert-math-to-llvm,convert-math-to-libm,"
      "convert-vector-to-llvm,"
      "expand-strided-metadata,lower-affine,finalize-memref-to-llvm,"
      "convert-scf-to-cf,"
      "arith-expand,convert-arith-to-llvm,convert-openmp-to-llvm,"
      "convert-func-to-llvm,convert-cf-to-llvm,convert-ub-to-llvm,"
      "reconcile-unrealized-casts,orchestra-cpu-bool-vector-memory,"
      "orchestra-cpu-lower-branch-probes,orchestra-cpu-kernel-abi,"
      "orchestra-cpu-emit-binary";
  x86.executableFormat = ExecutableFormat::NativeObject;
  x86.runtimeDriver = "cpu";
  // Kernels read dynamic sizes from the ABI's `sizes` (design/0017).
  x86.supportsDynamicShapes = true;
  x86.lowersBranchProbes = true;
  llvm::cantFail(registry.registerTarget(std::move(x86)));
}
