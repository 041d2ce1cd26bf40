// Kernels whose B orchestra-hoist-constant-layouts packed in the cache
// blocks of orchestra-cpu-pack-matmul-blocks (the argument is
// `[N/128, K/256, 256, 128]`, read through a linalg.unpack): the strategy's
// register tiles read each block in place
// (transform.apply_patterns.orchestra.fold_unpack_slices), so no unpack,
// transpose or copy of B is left, for parallel tiles by rows and by columns
// (the threads' shares of 1024 columns, 512 each, whole blocks). A B whose
// blocks a tile cannot read whole (columns tiled by 64) still computes,
// through the unpack lowered to a transpose.
// RUN: orchestra-opt %s --split-input-file --orchestra-cpu-tag-tiling --orchestra-cpu-select-tiles --transform-preload-library=transform-library-paths=%orchestra_src_root/strategies/x86_64_strategy.mlir --transform-interpreter=entry-point=__orchestra_x86_64_strategy --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @rows
// CHECK-NOT:     linalg.unpack
// CHECK-NOT:     linalg.transpose
// CHECK:         scf.forall
// CHECK:         vector.transfer_read %arg1[{{.*}}]{{.*}} : tensor<2x2x256x128xf32>, vector<1x64xf32>
// CHECK-NOT:     linalg.unpack
// CHECK-NOT:     linalg.transpose
module @rows attributes {orchestra.target = {arch = "x86_64", num_threads = 2 : i64}} {
  func.func @rows(%a: tensor<128x512xf32>, %p: tensor<2x2x256x128xf32>) -> tensor<128x256xf32> {
    %zero = arith.constant 0.0 : f32
    %ub = tensor.empty() : tensor<512x256xf32>
    %b = linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [256, 128] into %ub : tensor<2x2x256x128xf32> -> tensor<512x256xf32>
    %e = tensor.empty() : tensor<128x256xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
    %c = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<128x512xf32>, tensor<512x256xf32>) outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
    return %c : tensor<128x256xf32>
  }
}

// -----

// CHECK-LABEL: func.func @columns
// CHECK-NOT:     linalg.unpack
// CHECK-NOT:     linalg.transpose
// CHECK:         scf.forall
// CHECK:         vector.transfer_read %arg1[{{.*}}]{{.*}} : tensor<8x1x256x128xf32>, vector<1x64xf32>
// CHECK-NOT:     linalg.transpose
module @columns attributes {orchestra.target = {arch = "x86_64", num_threads = 2 : i64}} {
  func.func @columns(%a: tensor<24x256xf32>, %p: tensor<8x1x256x128xf32>) -> tensor<24x1024xf32> {
    %zero = arith.constant 0.0 : f32
    %ub = tensor.empty() : tensor<256x1024xf32>
    %b = linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [256, 128] into %ub : tensor<8x1x256x128xf32> -> tensor<256x1024xf32>
    %e = tensor.empty() : tensor<24x1024xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<24x1024xf32>) -> tensor<24x1024xf32>
    %c = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<24x256xf32>, tensor<256x1024xf32>) outs(%f : tensor<24x1024xf32>) -> tensor<24x1024xf32>
    return %c : tensor<24x1024xf32>
  }
}

// -----

// Partial blocks at the end of K (128 of 384) and N (104 of 1000): their
// slices of the packed tiles, without the padding.
// CHECK-LABEL: func.func @partial
// CHECK-NOT:     linalg.transpose
// CHECK:         tensor.extract_slice %arg1[{{.*}}] [1, 1, %{{.*}}, %{{.*}}] [1, 1, 1, 1] : tensor<8x2x256x128xf32> to tensor<?x?xf32>
// CHECK-NOT:     linalg.transpose
module @partial attributes {orchestra.target = {arch = "x86_64", num_threads = 2 : i64}} {
  func.func @partial(%a: tensor<128x384xf32>, %p: tensor<8x2x256x128xf32>) -> tensor<128x1000xf32> {
    %zero = arith.constant 0.0 : f32
    %ub = tensor.empty() : tensor<384x1000xf32>
    %b = linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [256, 128] into %ub : tensor<8x2x256x128xf32> -> tensor<384x1000xf32>
    %e = tensor.empty() : tensor<128x1000xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<128x1000xf32>) -> tensor<128x1000xf32>
    %c = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<128x384xf32>, tensor<384x1000xf32>) outs(%f : tensor<128x1000xf32>) -> tensor<128x1000xf32>
    return %c : tensor<128x1000xf32>
  }
}

// -----

// Blocks of 64 columns (another layout than the variant's): the unpack
// stays, lowered to a transpose (a vectorized copy of B), and the matmul
// reads its result.
// CHECK-LABEL: func.func @other_blocks
// CHECK:         vector.transfer_read %arg1{{.*}} : tensor<4x2x256x64xf32>, vector<1x1x1x8xf32>
// CHECK-NOT:     tensor<4x2x256x64xf32>, vector<1x64xf32>
module @other_blocks attributes {orchestra.target = {arch = "x86_64", num_threads = 2 : i64}} {
  func.func @other_blocks(%a: tensor<128x512xf32>, %p: tensor<4x2x256x64xf32>) -> tensor<128x256xf32> {
    %zero = arith.constant 0.0 : f32
    %ub = tensor.empty() : tensor<512x256xf32>
    %b = linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [256, 64] into %ub : tensor<4x2x256x64xf32> -> tensor<512x256xf32>
    %e = tensor.empty() : tensor<128x256xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
    %c = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<128x512xf32>, tensor<512x256xf32>) outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
    return %c : tensor<128x256xf32>
  }
}
