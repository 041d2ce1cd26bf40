func.func @main(%x: tensor<1x9x9x64xf32>, %w: tensor<3x3x64x128xf32>) -> tensor<1x7x7x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x128xf32>) -> tensor<1x7x7x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf ins(%x, %w : tensor<1x9x9x64xf32>, tensor<3x3x64x128xf32>) outs(%f : tensor<1x7x7x128xf32>) -> tensor<1x7x7x128xf32>
  return %c : tensor<1x7x7x128xf32>
}
