// Reductions with few output elements and many iterations each (see
// programs-emulated.test): orchestra-gpu-parallel-loops-first splits
// each output's iterations across threads. Row sums of a 2x5000 matrix, the
// column maxima of a 3000x3 one (its loops interchanged first), and the
// dot products of a 4x3000 matrix with a 3000-vector (two operands, one
// broadcast).
func.func @main(%x: tensor<2x5000xf32>, %y: tensor<3000x3xf32>, %a: tensor<4x3000xf32>, %v: tensor<3000xf32>) -> (tensor<2xf32>, tensor<3xf32>, tensor<4xf32>) {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<2xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<2xf32>) -> tensor<2xf32>
  %rows = linalg.reduce ins(%x : tensor<2x5000xf32>) outs(%f2 : tensor<2xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %e3 = tensor.empty() : tensor<3xf32>
  %f3 = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<3xf32>) -> tensor<3xf32>
  %cols = linalg.reduce ins(%y : tensor<3000x3xf32>) outs(%f3 : tensor<3xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %e4 = tensor.empty() : tensor<4xf32>
  %f4 = linalg.fill ins(%z : f32) outs(%e4 : tensor<4xf32>) -> tensor<4xf32>
  %dots = linalg.matvec ins(%a, %v : tensor<4x3000xf32>, tensor<3000xf32>) outs(%f4 : tensor<4xf32>) -> tensor<4xf32>
  return %rows, %cols, %dots : tensor<2xf32>, tensor<3xf32>, tensor<4xf32>
}
