// bf16 operands accumulated in f32 on the tensor cores, two K steps, with a
// bias + relu epilogue that rounds the result to bf16 (a framework's bf16
// GEMM).
func.func @main(%a: tensor<256x64xbf16>, %b: tensor<64x512xbf16>, %bias: tensor<512xf32>) -> tensor<256x512xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x512xf32>) -> tensor<256x512xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x64xbf16>, tensor<64x512xbf16>) outs(%f : tensor<256x512xf32>) -> tensor<256x512xf32>
  %o = tensor.empty() : tensor<256x512xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<256x512xf32>, tensor<512xf32>) outs(%o : tensor<256x512xbf16>) {
  ^bb0(%x: f32, %y: f32, %out: bf16):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %zero : f32
    %t = arith.truncf %z : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256x512xbf16>
  return %r : tensor<256x512xbf16>
}
