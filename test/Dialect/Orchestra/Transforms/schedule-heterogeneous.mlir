// RUN: orchestra-opt %s --split-input-file --orchestra-schedule="topology=%S/Inputs/cpu-tpu.json" --verify-diagnostics | FileCheck %s

// The support mask: the TPU (1000x faster here) takes the matmul, but not
// the generic computing erf, which StableHLO has no op for (the support
// mask is what orchestra-lower-to-stablehlo converts); that one stays on the CPU, with transfers both ways.

// CHECK-LABEL: func.func @support
// CHECK:         orchestra.task "t0_matmul" {{.*}} target = {arch = "google_tpu_v5e", device_id = 0}
// CHECK:         orchestra.transfer {{.*}} from @tpu0_hbm to @cpu0_dram
// CHECK:         orchestra.task "t1_generic" {{.*}} target = {arch = "x86_64", device_id = 0, num_threads = 1}
func.func @support(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = math.erf %x : f32
    linalg.yield %r : f32
  } -> tensor<8x8xf32>
  return %g : tensor<8x8xf32>
}

// -----

// Memory capacity: a matmul whose working set (3 x 64 KiB) exceeds the TPU's
// 4 KiB runs on the CPU although the TPU would be faster.

// CHECK-LABEL: func.func @capacity
// CHECK:         orchestra.task "t0_matmul" {{.*}} target = {arch = "x86_64", device_id = 0, num_threads = 1}
// CHECK-NOT:     orchestra.transfer
func.func @capacity(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>) -> tensor<128x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x128xf32>) -> tensor<128x128xf32>
  %m = linalg.matmul ins(%a, %b : tensor<128x128xf32>, tensor<128x128xf32>) outs(%f : tensor<128x128xf32>) -> tensor<128x128xf32>
  return %m : tensor<128x128xf32>
}

// -----

// An op no device can run: f64 has no throughput entry on either device, and
// the working set exceeds the TPU's memory. The notes say why per device.

func.func @nowhere(%a: tensor<256x256xf64>, %b: tensor<256x256xf64>) -> tensor<256x256xf64> {
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<256x256xf64>
  %f = linalg.fill ins(%zero : f64) outs(%e : tensor<256x256xf64>) -> tensor<256x256xf64>
  // expected-error @+3 {{no device of topology 'cpu-tpu' can run this op's task}}
  // expected-note @+2 {{device 'cpu0' (x86_64): has no peak throughput for element type f64}}
  // expected-note @+1 {{device 'tpu0' (google_tpu_v5e): has no peak throughput for element type f64}}
  %m = linalg.matmul ins(%a, %b : tensor<256x256xf64>, tensor<256x256xf64>) outs(%f : tensor<256x256xf64>) -> tensor<256x256xf64>
  return %m : tensor<256x256xf64>
}


