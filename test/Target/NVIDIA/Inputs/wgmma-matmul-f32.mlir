// A wgmma matmul that is its own kernel root: the accumulators are stored
// straight into the f32 output (no accumulator tile in shared memory).
func.func @main(%a: tensor<256x128xf16>, %b: tensor<128x384xf16>) -> tensor<256x384xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x384xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<256x384xf32>) -> tensor<256x384xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x128xf16>, tensor<128x384xf16>) outs(%f : tensor<256x384xf32>) -> tensor<256x384xf32>
  return %m : tensor<256x384xf32>
}
