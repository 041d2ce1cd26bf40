// Reductions to a scalar (see programs-emulated.test): a sum of squares
// over three axes and a maximum over two, large enough to be split across
// threads (orchestra-gpu-parallel-loops-first), a small sum that one
// thread computes, and a sum of 100000 elements split twice (3328 partials,
// then 256).
func.func @main(%x: tensor<3x100x20xf32>, %w: tensor<60x100xf32>, %y: tensor<1000xf32>, %big: tensor<100000xf32>) -> (tensor<f32>, tensor<1x1xf32>, tensor<f32>, tensor<f32>) {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%x : tensor<3x100x20xf32>) outs(%f : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %e2 = tensor.empty() : tensor<1x1xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1x1xf32>) -> tensor<1x1xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (0, 0)>], iterator_types = ["reduction", "reduction"]}
      ins(%w : tensor<60x100xf32>) outs(%f2 : tensor<1x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x1xf32>
  %t = linalg.reduce ins(%y : tensor<1000xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  %b = linalg.reduce ins(%big : tensor<100000xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  return %s, %m, %t, %b : tensor<f32>, tensor<1x1xf32>, tensor<f32>, tensor<f32>
}
