// 512x256 @ 256x1024, f16 operands accumulated in f32, + bias + relu:
// with warpgroup MMA, 128x128 blocks (a grid of 8x4) whose tiles live in
// dynamic shared memory: gpu_bundle.py's whole-plan case "bigwg". (With
// mma.sync, blocks this large are chosen for mma-2048-f32acc.mlir only.)
func.func @main(%a: tensor<512x256xf16>, %b: tensor<256x1024xf16>, %bias: tensor<1024xf32>) -> tensor<512x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<512x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %m = linalg.matmul ins(%a, %b : tensor<512x256xf16>, tensor<256x1024xf16>) outs(%f : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<512x1024xf32>, tensor<1024xf32>) outs(%e : tensor<512x1024xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %z = arith.maximumf %s, %zero : f32
    linalg.yield %z : f32
  } -> tensor<512x1024xf32>
  return %r : tensor<512x1024xf32>
}
