// RUN: orchestra-opt %s --orchestra-schedule="topology=%S/Inputs/cpu-gpu-tpu.json" | FileCheck %s --check-prefix=ROUTE

// Routing: the GPU and the TPU have no direct link; the value goes from the
// GPU to the TPU through the host, costed as both hops. The GPU takes the
// gather-like generic the TPU cannot, the TPU (ten times faster here) then the
// matmuls.

// ROUTE-LABEL: func.func @route
// ROUTE: %[[G:.*]] = orchestra.task "t0_generic" {{.*}}arch = "nvidia_hopper"
// ROUTE: orchestra.transfer %[[G]] from @gpu0_hbm to @tpu0_hbm {predicted_finish = {{.*}}, predicted_start = {{.*}}}
// ROUTE: orchestra.task "t1_matmul" {{.*}}arch = "google_tpu_v5e"
func.func @route(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.erf %x : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul ins(%g, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m2 = linalg.matmul ins(%m, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m2 : tensor<64x64xf32>
}
