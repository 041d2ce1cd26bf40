// Warpgroup MMA in 128x256 blocks (the Hopper target key wgmma_tile =
// "128x256"): f16 operands accumulated in f32, + bias + relu; 2x2 blocks,
// 4 K steps of 64 over 3 TMA stages.
func.func @main(%a: tensor<256x256xf16>, %b: tensor<256x512xf16>, %bias: tensor<512xf32>) -> tensor<256x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x256xf16>, tensor<256x512xf16>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<256x512xf32>, tensor<512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  } -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}
