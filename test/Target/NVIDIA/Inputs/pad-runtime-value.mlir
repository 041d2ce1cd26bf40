func.func @main(%v: tensor<f32>, %x: tensor<4x4xf32>) -> tensor<6x6xf32> {
  %s = tensor.extract %v[] : tensor<f32>
  %p = tensor.pad %x low[1, 1] high[1, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %s : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  return %p : tensor<6x6xf32>
}
