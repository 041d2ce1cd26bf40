// A linalg.reduce whose `dimensions` is followed by a comment, which MLIR's
// lexer skips, then `=` and no list (limits.test).
func.func @main(%v: tensor<5xf64>) -> tensor<f64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<f64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %s = linalg.reduce ins(%v : tensor<5xf64>) outs(%f : tensor<f64>) dimensions // a comment
  = [2x8xf32>
  return %s : tensor<f64>
}
