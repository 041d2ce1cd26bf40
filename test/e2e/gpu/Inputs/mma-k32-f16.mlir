// matmul + bias + relu on the tensor cores with one 32-deep K step: no
// software pipeline (orchestra.gpu_k_stages = 1).
func.func @main(%a: tensor<256x32xf16>, %b: tensor<32x512xf16>, %bias: tensor<512xf16>) -> tensor<256x512xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<256x512xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<256x512xf16>) -> tensor<256x512xf16>
  %m = linalg.matmul ins(%a, %b : tensor<256x32xf16>, tensor<32x512xf16>) outs(%f : tensor<256x512xf16>) -> tensor<256x512xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<256x512xf16>, tensor<512xf16>) outs(%e : tensor<256x512xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %s = arith.addf %x, %y : f16
    %z = arith.maximumf %s, %zero : f16
    linalg.yield %z : f16
  } -> tensor<256x512xf16>
  return %r : tensor<256x512xf16>
}
