// RUN: orchestra-opt %s --split-input-file --orchestra-nvidia-select-recipes | FileCheck %s
// RUN: not orchestra-opt %s --split-input-file --orchestra-nvidia-select-recipes=mma-block-m=24 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: mma-block-m and mma-block-n must be positive multiples of 32, mma-block-k of 16

// An f16 matmul whose sizes divide the 64x64 block tiles, with an elementwise
// epilogue: the tensor-core recipe. The accumulator gets its own empty
// tensor (the epilogue's result had shared it).
// CHECK-LABEL: func.func @mma_epilogue
// CHECK-DAG:     %[[E0:.+]] = tensor.empty() : tensor<128x64xf16>
// CHECK-DAG:     %[[E1:.+]] = tensor.empty() : tensor<128x64xf16>
// CHECK:         linalg.fill {{.*}} outs(%[[E0]]
// CHECK:         linalg.matmul {orchestra.fusion_producer, orchestra.gpu_mma}
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%[[E1]]
// CHECK-SAME:      orchestra.gpu_copy_rows_a = 1 : i64, orchestra.gpu_copy_rows_b = 1 : i64
// CHECK-SAME:      orchestra.gpu_k_stages = 1 : i64
// CHECK-SAME:      orchestra.gpu_recipe = "mma"
// CHECK-SAME:      orchestra.gpu_tile_m = 64 : i64, orchestra.gpu_tile_n = 64 : i64
// CHECK-SAME:      orchestra.gpu_warp_m = 32 : i64, orchestra.gpu_warp_n = 16 : i64
func.func @mma_epilogue(%a: tensor<128x32xf16>, %b: tensor<32x64xf16>) -> tensor<128x64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<128x64xf16>
  %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f16) outs(%e : tensor<128x64xf16>) -> tensor<128x64xf16>
  %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<128x32xf16>, tensor<32x64xf16>) outs(%f : tensor<128x64xf16>) -> tensor<128x64xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<128x64xf16>) outs(%e : tensor<128x64xf16>) attrs = {orchestra.fusion_root} {
  ^bb0(%x: f16, %o: f16):
    %y = arith.maximumf %x, %zero : f16
    linalg.yield %y : f16
  } -> tensor<128x64xf16>
  return %r : tensor<128x64xf16>
}

// -----

// f16 operands with an f32 accumulator, the matmul as the root.
// CHECK-LABEL: func.func @mma_f32_accumulator
// CHECK:         linalg.matmul
// CHECK-SAME:      orchestra.gpu_mma
// CHECK-SAME:      orchestra.gpu_recipe = "mma"
func.func @mma_f32_accumulator(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<64x32xf16>, tensor<32x64xf16>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// bf16 operands accumulate in f32 on the tensor cores, here with a
// truncation back to bf16 as the epilogue (what frameworks call a bf16
// GEMM).
// CHECK-LABEL: func.func @mma_bf16
// CHECK:         linalg.matmul {orchestra.fusion_producer, orchestra.gpu_mma}
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.gpu_recipe = "mma"
func.func @mma_bf16(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>) -> tensor<64x64xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<64x32xbf16>, tensor<32x64xbf16>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %o = tensor.empty() : tensor<64x64xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<64x64xf32>) outs(%o : tensor<64x64xbf16>) attrs = {orchestra.fusion_root} {
  ^bb0(%x: f32, %y: bf16):
    %t = arith.truncf %x : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<64x64xbf16>
  return %r : tensor<64x64xbf16>
}

// -----

// A bf16 accumulator is not taken: mma.sync accumulates bf16 products in f32
// only, and accumulating in f32 would round differently from the matmul's
// bf16 accumulation. Nor are mixed f16 x bf16 operands.
// CHECK-LABEL: func.func @simt_bf16_accumulator
// CHECK:         linalg.matmul
// CHECK-NOT:       orchestra.gpu_mma
// CHECK-SAME:      orchestra.gpu_recipe = "simt"
// CHECK-LABEL: func.func @simt_mixed_operands
// CHECK:         linalg.matmul
// CHECK-NOT:       orchestra.gpu_mma
// CHECK-SAME:      orchestra.gpu_recipe = "simt"
func.func @simt_bf16_accumulator(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>) -> tensor<64x64xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<64x64xbf16>
  %f = linalg.fill {orchestra.fusion_producer} ins(%zero : bf16) outs(%e : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<64x32xbf16>, tensor<32x64xbf16>) outs(%f : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %m : tensor<64x64xbf16>
}
func.func @simt_mixed_operands(%a: tensor<64x32xf16>, %b: tensor<32x64xbf16>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<64x32xf16>, tensor<32x64xbf16>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// f32 matmuls take the SIMT recipe (no tf32 rounding behind the user's
// back), and so do f16 matmuls whose sizes do not divide the block tile.
// CHECK-LABEL: func.func @simt_f32
// CHECK:         linalg.matmul
// CHECK-NOT:       orchestra.gpu_mma
// CHECK-SAME:      orchestra.gpu_recipe = "simt"
func.func @simt_f32(%a: tensor<64x16xf32>, %b: tensor<16x64xf32>) -> tensor<64x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<64x16xf32>, tensor<16x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %m : tensor<64x64xf32>
}

// -----

// CHECK-LABEL: func.func @simt_odd_sizes
// CHECK:         linalg.matmul
// CHECK-NOT:       orchestra.gpu_mma
// CHECK-SAME:      orchestra.gpu_recipe = "simt"
func.func @simt_odd_sizes(%a: tensor<100x16xf16>, %b: tensor<16x64xf16>) -> tensor<100x64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<100x64xf16>
  %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f16) outs(%e : tensor<100x64xf16>) -> tensor<100x64xf16>
  %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<100x16xf16>, tensor<16x64xf16>) outs(%f : tensor<100x64xf16>) -> tensor<100x64xf16>
  return %m : tensor<100x64xf16>
}

// -----

// K not a multiple of the 32-deep K step the strategy stages in shared
// memory.
// CHECK-LABEL: func.func @simt_k_step
// CHECK:         linalg.matmul
// CHECK-NOT:       orchestra.gpu_mma
// CHECK-SAME:      orchestra.gpu_recipe = "simt"
func.func @simt_k_step(%a: tensor<64x48xf16>, %b: tensor<48x64xf16>) -> tensor<64x64xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<64x64xf16>
  %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f16) outs(%e : tensor<64x64xf16>) -> tensor<64x64xf16>
  %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<64x48xf16>, tensor<48x64xf16>) outs(%f : tensor<64x64xf16>) -> tensor<64x64xf16>
  return %m : tensor<64x64xf16>
}

// -----

// A row reduction.
// CHECK-LABEL: func.func @simt_reduction
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.gpu_recipe = "simt"
func.func @simt_reduction(%x: tensor<32x128xf32>) -> tensor<32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<32xf32>) -> tensor<32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<32x128xf32>) outs(%f : tensor<32xf32>) attrs = {orchestra.fusion_root} {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// -----

// 128x128 blocks where they divide the matmul and there are still as many
// of them as SMs (4 here, from the target description), with 64x32 warp
// tiles and two rows of 16-byte chunks per thread and operand tile.
// CHECK-LABEL: func.func @large_blocks
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.gpu_copy_rows_a = 2 : i64, orchestra.gpu_copy_rows_b = 2 : i64
// CHECK-SAME:      orchestra.gpu_k_stages = 3 : i64
// CHECK-SAME:      orchestra.gpu_tile_m = 128 : i64, orchestra.gpu_tile_n = 128 : i64
// CHECK-SAME:      orchestra.gpu_warp_m = 64 : i64, orchestra.gpu_warp_n = 32 : i64
module attributes {orchestra.target = {arch = "nvidia_hopper", num_sms = 4 : i64, wgmma = false}} {
  func.func @large_blocks(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f32, %o: f32):
      %y = arith.maximumf %x, %zero : f32
      linalg.yield %y : f32
    } -> tensor<256x256xf32>
    return %r : tensor<256x256xf32>
  }
}

// -----

// The same matmul on a device with 132 SMs (the default) without a target
// description (so without wgmma): four 128x128 blocks would leave most of
// them idle, so 64x64 blocks. And with too
// little shared memory for the larger blocks (3 stages of 16 KB operand
// tiles and a 64 KB f32 accumulator tile), also 64x64.
// CHECK-LABEL: func.func @small_blocks_many_sms
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.gpu_tile_m = 64 : i64, orchestra.gpu_tile_n = 64 : i64
module {
  func.func @small_blocks_many_sms(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f32, %o: f32):
      %y = arith.maximumf %x, %zero : f32
      linalg.yield %y : f32
    } -> tensor<256x256xf32>
    return %r : tensor<256x256xf32>
  }
}

// -----

// CHECK-LABEL: func.func @small_blocks_little_shared
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.gpu_tile_m = 64 : i64, orchestra.gpu_tile_n = 64 : i64
module attributes {orchestra.target = {arch = "nvidia_hopper", num_sms = 4 : i64, shared_memory_bytes = 100000 : i64, wgmma = false}} {
  func.func @small_blocks_little_shared(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f32, %o: f32):
      %y = arith.maximumf %x, %zero : f32
      linalg.yield %y : f32
    } -> tensor<256x256xf32>
    return %r : tensor<256x256xf32>
  }
}

// -----

// Blackwell stages the operand tiles with TMA (a K loop of two or more
// steps); Hopper only when its target says `tma = true`.
// CHECK-LABEL: func.func @tma_on_blackwell
// CHECK:         linalg.matmul
// CHECK-SAME:      orchestra.gpu_tma = 1 : i64
module attributes {orchestra.target = {arch = "nvidia_blackwell", num_sms = 148 : i64}} {
  func.func @tma_on_blackwell(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x64xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %m : tensor<64x64xf32>
  }
}

// -----

// CHECK-LABEL: func.func @tma_on_hopper_when_asked
// CHECK:         linalg.matmul
// CHECK-SAME:      orchestra.gpu_tma = 1 : i64
module attributes {orchestra.target = {arch = "nvidia_hopper", tma = true, wgmma = false}} {
  func.func @tma_on_hopper_when_asked(%a: tensor<64x64xf16>, %b: tensor<64x64xf16>) -> tensor<64x64xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x64xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<64x64xf16>, tensor<64x64xf16>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %m : tensor<64x64xf32>
  }
}

// -----

// One K step: nothing to pipeline, cp.async even on Blackwell.
// CHECK-LABEL: func.func @one_step_on_blackwell
// CHECK:         linalg.matmul
// CHECK-SAME:      orchestra.gpu_tma = 0 : i64
module attributes {orchestra.target = {arch = "nvidia_blackwell"}} {
  func.func @one_step_on_blackwell(%a: tensor<64x32xf16>, %b: tensor<32x64xf16>) -> tensor<64x64xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x64xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
    %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<64x32xf16>, tensor<32x64xf16>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %m : tensor<64x64xf32>
  }
}

// -----

// Hopper with wgmma = true: an f16 matmul accumulated in f32 whose sizes
// divide the wgmma tiles takes warpgroup MMA: 128x128 blocks, K steps of
// 64 staged by TMA, the matmul marked as starting from zero.
// CHECK-LABEL: func.func @wgmma
// CHECK:         linalg.matmul {orchestra.fusion_producer, orchestra.gpu_mma, orchestra.gpu_zero_init}
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.gpu_k_stages = 3 : i64
// CHECK-SAME:      orchestra.gpu_recipe = "wgmma"
// CHECK-SAME:      orchestra.gpu_tile_m = 128 : i64, orchestra.gpu_tile_n = 128 : i64
// CHECK-SAME:      orchestra.gpu_tma = 1 : i64
module attributes {orchestra.target = {arch = "nvidia_hopper", wgmma = true}} {
  func.func @wgmma(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f32, %o: f32):
      %y = arith.maximumf %x, %zero : f32
      linalg.yield %y : f32
    } -> tensor<256x256xf32>
    return %r : tensor<256x256xf32>
  }
}

// -----

// The same with 90000 bytes of shared memory: 2 stages of 32 KB fit, 3 do
// not (the 64 KB accumulator tile shares their bytes, so it takes no more
// room); with 60000 not even 2 fit, and the matmul takes mma.sync instead. An f16 accumulator (wgmma here accumulates in f32
// only), a fill of one, and a K of one step also take mma.sync.
// CHECK-LABEL: func.func @wgmma_two_stages
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.gpu_k_stages = 2 : i64
// CHECK-SAME:      orchestra.gpu_recipe = "wgmma"
module attributes {orchestra.target = {arch = "nvidia_hopper", wgmma = true, shared_memory_bytes = 90000 : i64}} {
  func.func @wgmma_two_stages(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f32, %o: f32):
      %y = arith.maximumf %x, %zero : f32
      linalg.yield %y : f32
    } -> tensor<256x256xf32>
    return %r : tensor<256x256xf32>
  }
}

// -----

// CHECK-LABEL: func.func @wgmma_no_room
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.gpu_recipe = "mma"
// CHECK-LABEL: func.func @wgmma_f16_accumulator
// CHECK:         linalg.matmul
// CHECK-SAME:      orchestra.gpu_recipe = "mma"
// CHECK-LABEL: func.func @wgmma_fill_one
// CHECK:         linalg.matmul
// CHECK-SAME:      orchestra.gpu_recipe = "mma"
// CHECK-LABEL: func.func @wgmma_one_k_step
// CHECK:         linalg.matmul
// CHECK-SAME:      orchestra.gpu_recipe = "mma"
module attributes {orchestra.target = {arch = "nvidia_hopper", wgmma = true, shared_memory_bytes = 60000 : i64}} {
  func.func @wgmma_no_room(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f32, %o: f32):
      %y = arith.maximumf %x, %zero : f32
      linalg.yield %y : f32
    } -> tensor<256x256xf32>
    return %r : tensor<256x256xf32>
  }
  func.func @wgmma_f16_accumulator(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf16> {
    %zero = arith.constant 0.0 : f16
    %e = tensor.empty() : tensor<256x256xf16>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f16) outs(%e : tensor<256x256xf16>) -> tensor<256x256xf16>
    %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf16>) -> tensor<256x256xf16>
    return %m : tensor<256x256xf16>
  }
  func.func @wgmma_fill_one(%a: tensor<256x256xf16>, %b: tensor<256x256xf16>) -> tensor<256x256xf32> {
    %one = arith.constant 1.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%one : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<256x256xf16>, tensor<256x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
    return %m : tensor<256x256xf32>
  }
  func.func @wgmma_one_k_step(%a: tensor<256x64xf16>, %b: tensor<64x256xf16>) -> tensor<256x256xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x256xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
    %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<256x64xf16>, tensor<64x256xf16>) outs(%f : tensor<256x256xf32>) -> tensor<256x256xf32>
    return %m : tensor<256x256xf32>
  }
}

// -----

// wgmma_tile = "128x256": 128x256 blocks where N is a multiple of 256 (3
// stages of 48 KB; the 128 KB accumulator tile shares their bytes), else
// 128x128 blocks.
// CHECK-LABEL: func.func @wgmma_tile_256
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.gpu_k_stages = 3 : i64
// CHECK-SAME:      orchestra.gpu_recipe = "wgmma"
// CHECK-SAME:      orchestra.gpu_tile_m = 128 : i64, orchestra.gpu_tile_n = 256 : i64
// CHECK-LABEL: func.func @wgmma_tile_256_n384
// CHECK:         linalg.matmul
// CHECK-SAME:      orchestra.gpu_recipe = "wgmma"
// CHECK-SAME:      orchestra.gpu_tile_m = 128 : i64, orchestra.gpu_tile_n = 128 : i64
module attributes {orchestra.target = {arch = "nvidia_hopper", wgmma = true, wgmma_tile = "128x256"}} {
  func.func @wgmma_tile_256(%a: tensor<256x256xf16>, %b: tensor<256x512xf16>) -> tensor<256x512xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x512xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<256x256xf16>, tensor<256x512xf16>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f32, %o: f32):
      %y = arith.maximumf %x, %zero : f32
      linalg.yield %y : f32
    } -> tensor<256x512xf32>
    return %r : tensor<256x512xf32>
  }
  func.func @wgmma_tile_256_n384(%a: tensor<256x256xf16>, %b: tensor<256x384xf16>) -> tensor<256x384xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x384xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
    %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<256x256xf16>, tensor<256x384xf16>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
    return %m : tensor<256x384xf32>
  }
}

// -----

// Blackwell with tcgen05 = true: the same tiles as wgmma, recipe "tcgen05"
// (tcgen05_tile picks 128x256 where N allows it). Without the key, or with
// tcgen05 = false, Blackwell keeps mma.sync (wgmma is not a Blackwell key
// and does not count there).
// CHECK-LABEL: func.func @tcgen05
// CHECK:         linalg.matmul {orchestra.fusion_producer, orchestra.gpu_mma, orchestra.gpu_zero_init}
// CHECK:         linalg.generic
// CHECK-SAME:      orchestra.gpu_k_stages = 3 : i64
// CHECK-SAME:      orchestra.gpu_recipe = "tcgen05"
// CHECK-SAME:      orchestra.gpu_tile_m = 128 : i64, orchestra.gpu_tile_n = 256 : i64
// CHECK-SAME:      orchestra.gpu_tma = 1 : i64
module attributes {orchestra.target = {arch = "nvidia_blackwell", tcgen05 = true, tcgen05_tile = "128x256"}} {
  func.func @tcgen05(%a: tensor<256x256xf16>, %b: tensor<256x512xf16>) -> tensor<256x512xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x512xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
    %m = linalg.matmul {orchestra.fusion_producer} ins(%a, %b : tensor<256x256xf16>, tensor<256x512xf16>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) attrs = {orchestra.fusion_root} {
    ^bb0(%x: f32, %o: f32):
      %y = arith.maximumf %x, %zero : f32
      linalg.yield %y : f32
    } -> tensor<256x512xf32>
    return %r : tensor<256x512xf32>
  }
}

// -----

// CHECK-LABEL: func.func @blackwell_default
// CHECK:         linalg.matmul
// CHECK-SAME:      orchestra.gpu_recipe = "mma"
module attributes {orchestra.target = {arch = "nvidia_blackwell", wgmma = true}} {
  func.func @blackwell_default(%a: tensor<256x256xf16>, %b: tensor<256x384xf16>) -> tensor<256x384xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x384xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
    %m = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<256x256xf16>, tensor<256x384xf16>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
    return %m : tensor<256x384xf32>
  }
}

// -----

// On Hopper (sm_90a, the default sm), warpgroup MMA is the default: in
// 128x256 blocks where there are as many of them as SMs (4 here) ...
// CHECK-LABEL: func.func @default_wgmma_256
// CHECK:         linalg.matmul
// CHECK-SAME:      orchestra.gpu_recipe = "wgmma", orchestra.gpu_tile_m = 128 : i64, orchestra.gpu_tile_n = 256 : i64
module attributes {orchestra.target = {arch = "nvidia_hopper", num_sms = 4 : i64}} {
  func.func @default_wgmma_256(%a: tensor<256x256xf16>, %b: tensor<256x512xf16>) -> tensor<256x512xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x512xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
    %m = linalg.matmul {orchestra.fusion_producer, orchestra.fusion_root} ins(%a, %b : tensor<256x256xf16>, tensor<256x512xf16>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
    return %m : tensor<256x512xf32>
  }
}

// -----

// ... and 128x128 blocks where 128x256 ones would leave SMs idle (4 blocks,
// 132 SMs) ...
// CHECK-LABEL: func.func @default_wgmma_128
// CHECK:         linalg.matmul
// CHECK-SAME:      orchestra.gpu_recipe = "wgmma", orchestra.gpu_tile_m = 128 : i64, orchestra.gpu_tile_n = 128 : i64
module attributes {orchestra.target = {arch = "nvidia_hopper", sm = "sm_90a"}} {
  func.func @default_wgmma_128(%a: tensor<256x256xf16>, %b: tensor<256x512xf16>) -> tensor<256x512xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x512xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
    %m = linalg.matmul {orchestra.fusion_producer, orchestra.fusion_root} ins(%a, %b : tensor<256x256xf16>, tensor<256x512xf16>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
    return %m : tensor<256x512xf32>
  }
}

// -----

// ... but mma.sync on sm_90, which has no warpgroup MMA.
// CHECK-LABEL: func.func @default_sm90_mma
// CHECK:         linalg.matmul
// CHECK-SAME:      orchestra.gpu_recipe = "mma"
module attributes {orchestra.target = {arch = "nvidia_hopper", sm = "sm_90"}} {
  func.func @default_sm90_mma(%a: tensor<256x256xf16>, %b: tensor<256x512xf16>) -> tensor<256x512xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<256x512xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
    %m = linalg.matmul {orchestra.fusion_producer, orchestra.fusion_root} ins(%a, %b : tensor<256x256xf16>, tensor<256x512xf16>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
    return %m : tensor<256x512xf32>
  }
}
