func.func @main(%a: tensor<64x784xf32>, %b: tensor<784x1024xf32>) -> tensor<64x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x784xf32>, tensor<784x1024xf32>) outs(%f : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %m : tensor<64x1024xf32>
}
