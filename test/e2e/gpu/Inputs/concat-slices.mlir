// Concatenations and slices of values computed on the GPU (see
// concat-slices-emulated.test): a concatenation along each axis, a slice
// read by a kernel, a strided slice returned as it is, and a slice
// inserted into a value that other tasks still read (the task must not
// write into its operand's buffer).
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%a: tensor<4x6xf32>, %b: tensor<4x3xf32>) -> (tensor<4x9xf32>, tensor<2x6xf32>, tensor<8x6xf32>, tensor<2x3xf32>, tensor<4x6xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<4x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x6xf32>
  %ins = tensor.insert_slice %b into %r[0, 3] [4, 3] [1, 1] : tensor<4x3xf32> into tensor<4x6xf32>
  %c1 = tensor.concat dim(1) %r, %b : (tensor<4x6xf32>, tensor<4x3xf32>) -> tensor<4x9xf32>
  %s = tensor.extract_slice %r[1, 0] [2, 6] [1, 1] : tensor<4x6xf32> to tensor<2x6xf32>
  %e2 = tensor.empty() : tensor<2x6xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%s : tensor<2x6xf32>) outs(%e2 : tensor<2x6xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %two : f32
    linalg.yield %m : f32
  } -> tensor<2x6xf32>
  %c0 = tensor.concat dim(0) %a, %r : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %strided = tensor.extract_slice %a[0, 1] [2, 3] [2, 2] : tensor<4x6xf32> to tensor<2x3xf32>
  return %c1, %d, %c0, %strided, %ins : tensor<4x9xf32>, tensor<2x6xf32>, tensor<8x6xf32>, tensor<2x3xf32>, tensor<4x6xf32>
}
