// StableHLO has no erf: a StableHLO-only topology cannot run this.
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.erf %v : f32
    linalg.yield %y : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}
