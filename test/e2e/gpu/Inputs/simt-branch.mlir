// A per-element branch inside a payload (an scf.if in a linalg.generic's
// body): on a GPU, a branch of each thread (SIMT). Emulated by
// gpu/programs-emulated.test and amd/programs-emulated.test.
#id = affine_map<(i, j) -> (i, j)>
func.func @main(%x: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %e = tensor.empty() : tensor<64x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x32xf32>) outs(%e : tensor<64x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %v, %zero : f32
    %y = scf.if %pos -> f32 {
      %ex = math.exp %v : f32
      scf.yield %ex : f32
    } else {
      %sq = arith.mulf %v, %v : f32
      scf.yield %sq : f32
    }
    linalg.yield %y : f32
  } -> tensor<64x32xf32>
  return %r : tensor<64x32xf32>
}
