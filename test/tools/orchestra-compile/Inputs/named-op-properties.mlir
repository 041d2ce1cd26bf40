// linalg.fill<1> in a comment is not parsed, nor is "linalg.fill<1>" in a string.
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> attributes {note = "// linalg.fill<2>"} {
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill<1> ins(%zero : f32) outs(%x : tensor<4xf32>) -> tensor<4xf32>
  return %f : tensor<4xf32>
}
