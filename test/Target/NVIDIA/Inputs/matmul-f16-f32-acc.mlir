// f16 operands, f32 accumulator and result: tensor cores with f32 accumulation.
func.func @main(%a: tensor<512x1024xf16>, %b: tensor<1024x512xf16>) -> tensor<512x512xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x512xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %m = linalg.matmul ins(%a, %b : tensor<512x1024xf16>, tensor<1024x512xf16>) outs(%f : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %m : tensor<512x512xf32>
}
