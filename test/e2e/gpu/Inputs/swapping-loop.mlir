// A counted loop that swaps its two carried values each iteration (refused
// on GPUs: gpu/loops-emulated.test).
func.func @main(%a: tensor<64xf32>, %b: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %k = %c0 to %c3 step %c1 iter_args(%x = %a, %y = %b) -> (tensor<64xf32>, tensor<64xf32>) {
    %e = tensor.empty() : tensor<64xf32>
    %s = linalg.add ins(%x, %y : tensor<64xf32>, tensor<64xf32>) outs(%e : tensor<64xf32>) -> tensor<64xf32>
    scf.yield %y, %s : tensor<64xf32>, tensor<64xf32>
  }
  return %r#0, %r#1 : tensor<64xf32>, tensor<64xf32>
}
