func.func @main(%a: tensor<1x512xf32>, %b: tensor<512x1000xf32>, %c: tensor<64x1024xf32>, %d: tensor<1024x10xf32>) -> (tensor<1x1000xf32>, tensor<64x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1000xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %m = linalg.matmul ins(%a, %b : tensor<1x512xf32>, tensor<512x1000xf32>) outs(%f : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %e2 = tensor.empty() : tensor<64x10xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x10xf32>) -> tensor<64x10xf32>
  %m2 = linalg.matmul ins(%c, %d : tensor<64x1024xf32>, tensor<1024x10xf32>) outs(%f2 : tensor<64x10xf32>) -> tensor<64x10xf32>
  return %m, %m2 : tensor<1x1000xf32>, tensor<64x10xf32>
}
