// The B of an f32 matmul in the strategy's cache blocks (design note 0020):
// orchestra-cpu-pack-matmul-blocks asks for `[N/128, K/256, 256, 128]`
// (a `linalg.pack` marked `orchestra.constant_layout`, which
// orchestra-hoist-constant-layouts makes at compile time for a constant),
// and orchestra-cpu-tag-tiling gives a matmul reading those blocks the
// variant with the same blocks (pack-matmul-blocks-strategy.mlir: the
// strategy's register tiles then read the packed blocks in place).
// RUN: orchestra-opt %s --split-input-file --orchestra-cpu-pack-matmul-blocks | FileCheck %s --check-prefix=PACK
// RUN: orchestra-opt %s --split-input-file --orchestra-cpu-pack-matmul-blocks --orchestra-cpu-tag-tiling | FileCheck %s --check-prefix=TAG

// PACK-LABEL: func.func @rows
// PACK:         %[[P:.*]] = linalg.pack %arg1 outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [256, 128] into %{{.*}} {orchestra.constant_layout} : tensor<512x256xf32> -> tensor<2x2x256x128xf32>
// PACK:         %[[U:.*]] = linalg.unpack %[[P]] outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [256, 128] into %{{.*}} : tensor<2x2x256x128xf32> -> tensor<512x256xf32>
// PACK:         linalg.matmul {{.*}}ins(%arg0, %[[U]] :
// TAG-LABEL: func.func @rows
// TAG:         linalg.matmul {orchestra.fusion_root_wide, orchestra.tile_variant = "b128x256_r6x64"}
module @rows attributes {orchestra.target = {arch = "x86_64", num_threads = 2 : i64}} {
  func.func @rows(%a: tensor<128x512xf32>, %b: tensor<512x256xf32>) -> tensor<128x256xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<128x256xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
    %c = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<128x512xf32>, tensor<512x256xf32>) outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
    return %c : tensor<128x256xf32>
  }
}

// -----

// Few rows: packed too (the strategy tiles it by columns).
// TAG-LABEL: func.func @columns
// TAG:         linalg.matmul {orchestra.fusion_root, orchestra.tile_variant = "b128x256_r6x64"}
module @columns attributes {orchestra.target = {arch = "x86_64", num_threads = 2 : i64}} {
  func.func @columns(%a: tensor<24x256xf32>, %b: tensor<256x1024xf32>) -> tensor<24x1024xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<24x1024xf32>
    %f = linalg.fill {orchestra.fusion_producer} ins(%zero : f32) outs(%e : tensor<24x1024xf32>) -> tensor<24x1024xf32>
    %c = linalg.matmul {orchestra.fusion_root} ins(%a, %b : tensor<24x256xf32>, tensor<256x1024xf32>) outs(%f : tensor<24x1024xf32>) -> tensor<24x1024xf32>
    return %c : tensor<24x1024xf32>
  }
}

// -----

// Partial blocks at the end of K and N, zero-padded (768 x 1024 for
// 640 x 1000: 23% more).
// PACK-LABEL: func.func @padded
// PACK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// PACK:         linalg.pack %arg1 padding_value(%[[ZERO]] : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [256, 128] into %{{.*}} {orchestra.constant_layout} : tensor<640x1000xf32> -> tensor<8x3x256x128xf32>
module @padded attributes {orchestra.target = {arch = "x86_64", num_threads = 2 : i64}} {
  func.func @padded(%a: tensor<64x640xf32>, %b: tensor<640x1000xf32>) -> tensor<64x1000xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<64x1000xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x1000xf32>) -> tensor<64x1000xf32>
    %c = linalg.matmul ins(%a, %b : tensor<64x640xf32>, tensor<640x1000xf32>) outs(%f : tensor<64x1000xf32>) -> tensor<64x1000xf32>
    return %c : tensor<64x1000xf32>
  }
}

// -----

// Not packed: partial blocks whose zero padding would add more than a
// quarter to B (K = 300, N = 200), fewer than 16 rows, a B that is also
// read by something else, another element type.
// PACK-LABEL: func.func @not_packed
// PACK-NOT:     linalg.pack
// TAG-LABEL: func.func @not_packed
// TAG-NOT:     orchestra.tile_variant
module @not_packed attributes {orchestra.target = {arch = "x86_64", num_threads = 2 : i64}} {
  func.func @not_packed(%a: tensor<128x300xf32>, %b: tensor<300x256xf32>,
                        %a2: tensor<128x256xf32>, %b2: tensor<256x200xf32>,
                        %a3: tensor<8x256xf32>, %b3: tensor<256x256xf32>,
                        %b4: tensor<256x256xf32>,
                        %a5: tensor<128x256xf16>, %b5: tensor<256x256xf16>)
      -> (tensor<128x256xf32>, tensor<128x200xf32>, tensor<8x256xf32>,
          tensor<128x256xf32>, tensor<256x256xf32>, tensor<128x256xf16>) {
    %zero = arith.constant 0.0 : f32
    %zero16 = arith.constant 0.0 : f16
    %e = tensor.empty() : tensor<128x256xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
    %c = linalg.matmul ins(%a, %b : tensor<128x300xf32>, tensor<300x256xf32>) outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
    %e2 = tensor.empty() : tensor<128x200xf32>
    %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<128x200xf32>) -> tensor<128x200xf32>
    %c2 = linalg.matmul ins(%a2, %b2 : tensor<128x256xf32>, tensor<256x200xf32>) outs(%f2 : tensor<128x200xf32>) -> tensor<128x200xf32>
    %e3 = tensor.empty() : tensor<8x256xf32>
    %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<8x256xf32>) -> tensor<8x256xf32>
    %c3 = linalg.matmul ins(%a3, %b3 : tensor<8x256xf32>, tensor<256x256xf32>) outs(%f3 : tensor<8x256xf32>) -> tensor<8x256xf32>
    %c4 = linalg.matmul ins(%a2, %b4 : tensor<128x256xf32>, tensor<256x256xf32>) outs(%f : tensor<128x256xf32>) -> tensor<128x256xf32>
    %e5 = tensor.empty() : tensor<256x256xf32>
    %t = linalg.transpose ins(%b4 : tensor<256x256xf32>) outs(%e5 : tensor<256x256xf32>) permutation = [1, 0]
    %e6 = tensor.empty() : tensor<128x256xf16>
    %f6 = linalg.fill ins(%zero16 : f16) outs(%e6 : tensor<128x256xf16>) -> tensor<128x256xf16>
    %c6 = linalg.matmul ins(%a5, %b5 : tensor<128x256xf16>, tensor<256x256xf16>) outs(%f6 : tensor<128x256xf16>) -> tensor<128x256xf16>
    return %c, %c2, %c3, %c4, %t, %c6 : tensor<128x256xf32>, tensor<128x200xf32>, tensor<8x256xf32>, tensor<128x256xf32>, tensor<256x256xf32>, tensor<128x256xf16>
  }
}
