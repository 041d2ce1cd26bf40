func.func @main(%x: tensor<4x8xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.reduce ins(%x : tensor<4x8xf32>) outs(%y : tensor<4xf32>) dimensions = 1
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %r : tensor<4xf32>
}
