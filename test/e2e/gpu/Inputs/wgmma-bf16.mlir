// Warpgroup MMA (Hopper with wgmma = true): bf16 operands accumulated in f32,
// 8 K steps of 64 over 3 TMA stages (a steady state), with a bias + relu
// epilogue that rounds the result to bf16.
func.func @main(%a: tensor<256x512xbf16>, %b: tensor<512x384xbf16>, %bias: tensor<384xf32>) -> tensor<256x384xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x512xbf16>, tensor<512x384xbf16>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
  %o = tensor.empty() : tensor<256x384xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<256x384xf32>, tensor<384xf32>) outs(%o : tensor<256x384xbf16>) {
  ^bb0(%x: f32, %y: f32, %out: bf16):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %zero : f32
    %t = arith.truncf %z : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256x384xbf16>
  return %r : tensor<256x384xbf16>
}
