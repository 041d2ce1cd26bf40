// f16 operands accumulated in f32 with sizes that are no multiple of a tile (200 x 136 x 72).
func.func @main(%a: tensor<200x72xf16>, %b: tensor<72x136xf16>, %bias: tensor<136xf32>) -> tensor<200x136xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x136xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<200x136xf32>) -> tensor<200x136xf32>
  %m = linalg.matmul ins(%a, %b : tensor<200x72xf16>, tensor<72x136xf16>) outs(%f : tensor<200x136xf32>) -> tensor<200x136xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<200x136xf32>, tensor<136xf32>) outs(%e : tensor<200x136xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  } -> tensor<200x136xf32>
  return %r : tensor<200x136xf32>
}
