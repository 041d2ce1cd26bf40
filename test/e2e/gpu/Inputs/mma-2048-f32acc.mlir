// 2048x256 @ 256x2048, f16 operands accumulated in f32, + bias + relu:
// 128x128 blocks (256 of them), tiles in dynamic shared memory.
func.func @main(%a: tensor<2048x256xf16>, %b: tensor<256x2048xf16>, %bias: tensor<2048xf32>) -> tensor<2048x2048xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2048x2048xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %m = linalg.matmul ins(%a, %b : tensor<2048x256xf16>, tensor<256x2048xf16>) outs(%f : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<2048x2048xf32>, tensor<2048xf32>) outs(%e : tensor<2048x2048xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  } -> tensor<2048x2048xf32>
  return %r : tensor<2048x2048xf32>
}
