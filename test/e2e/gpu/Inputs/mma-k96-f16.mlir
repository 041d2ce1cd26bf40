// three K steps: a 3-stage pipeline whose loop has no steady-state
// iteration (prologue and peeled epilogue only).
func.func @main(%a: tensor<128x96xf16>, %b: tensor<96x256xf16>, %bias: tensor<256xf16>) -> tensor<128x256xf16> {
  %zero = arith.constant 0.0 : f16
  %e = tensor.empty() : tensor<128x256xf16>
  %f = linalg.fill ins(%zero : f16) outs(%e : tensor<128x256xf16>) -> tensor<128x256xf16>
  %m = linalg.matmul ins(%a, %b : tensor<128x96xf16>, tensor<96x256xf16>) outs(%f : tensor<128x256xf16>) -> tensor<128x256xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<128x256xf16>, tensor<256xf16>) outs(%e : tensor<128x256xf16>) {
  ^bb0(%x: f16, %y: f16, %o: f16):
    %s = arith.addf %x, %y : f16
    %z = arith.maximumf %s, %zero : f16
    linalg.yield %z : f16
  } -> tensor<128x256xf16>
  return %r : tensor<128x256xf16>
}
