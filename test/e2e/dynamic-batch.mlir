// A CNN compiled once for a dynamic batch (design/0017): an NCHW
// convolution, ReLU, a spatial sum and a matmul, run at three batch sizes
// against numpy; a batch outside the range is refused before the run.
// RUN: rm -rf %t && mkdir -p %t
// RUN: orchestra-compile %s --dim batch=1..16@8 -o %t/cnn.orcx --quiet
// RUN: orchestra-compile %s --dim batch=1..16@8 --strategy=none -o %t/plain.orcx --quiet
// RUN: %python %S/Inputs/e2e.py gen %t/b1 x:f32:1x3x12x12 w:f32:8x3x3x3 w2:f32:8x10
// RUN: orchestra-run %t/cnn.orcx --input %t/b1/x.npy --input %t/b1/w.npy --input %t/b1/w2.npy --output-dir %t/o1 --quiet
// RUN: %python %S/Inputs/e2e.py check dynamic_cnn %t/b1 %t/o1
// RUN: %python %S/Inputs/e2e.py gen %t/b5 x:f32:5x3x12x12 w:f32:8x3x3x3 w2:f32:8x10
// RUN: orchestra-run %t/cnn.orcx --input %t/b5/x.npy --input %t/b5/w.npy --input %t/b5/w2.npy --output-dir %t/o5 --quiet
// RUN: %python %S/Inputs/e2e.py check dynamic_cnn %t/b5 %t/o5
// RUN: orchestra-run %t/plain.orcx --input %t/b5/x.npy --input %t/b5/w.npy --input %t/b5/w2.npy --output-dir %t/p5 --quiet
// RUN: %python %S/Inputs/e2e.py check dynamic_cnn %t/b5 %t/p5
// RUN: %python %S/Inputs/e2e.py gen %t/b16 x:f32:16x3x12x12 w:f32:8x3x3x3 w2:f32:8x10
// RUN: orchestra-run %t/cnn.orcx --input %t/b16/x.npy --input %t/b16/w.npy --input %t/b16/w2.npy --output-dir %t/o16 --quiet
// RUN: %python %S/Inputs/e2e.py check dynamic_cnn %t/b16 %t/o16
// RUN: %python %S/Inputs/e2e.py gen %t/b17 x:f32:17x3x12x12 w:f32:8x3x3x3 w2:f32:8x10
// RUN: not orchestra-run %t/cnn.orcx --input %t/b17/x.npy --input %t/b17/w.npy --input %t/b17/w2.npy 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: orchestra-run %t/cnn.orcx --describe | FileCheck %s --check-prefix=DESCRIBE

// RANGE: orchestra-run: error: input 0 'input_0' (f32[?x3x12x12]): dimension 0 ('batch') is 17, outside the range 1..16 it was compiled for (compile with --dim batch=MIN..MAX for another)
// DESCRIBE: dims: batch = 1..16
// DESCRIBE: input_0: f32[batchx3x12x12]

func.func @main(%x: tensor<?x3x12x12xf32> {orchestra.dim_names = ["batch", "", "", ""]},
                %w: tensor<8x3x3x3xf32>, %w2: tensor<8x10xf32>) -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3x12x12xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x8x10x10xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8x10x10xf32>) -> tensor<?x8x10x10xf32>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x3x12x12xf32>, tensor<8x3x3x3xf32>) outs(%f : tensor<?x8x10x10xf32>) -> tensor<?x8x10x10xf32>
  %e2 = tensor.empty(%n) : tensor<?x8x10x10xf32>
  %relu = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv : tensor<?x8x10x10xf32>) outs(%e2 : tensor<?x8x10x10xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x8x10x10xf32>
  %e3 = tensor.empty(%n) : tensor<?x8xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b)>],
                         iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%relu : tensor<?x8x10x10xf32>) outs(%f3 : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  %e4 = tensor.empty(%n) : tensor<?x10xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<?x10xf32>) -> tensor<?x10xf32>
  %fc = linalg.matmul ins(%sum, %w2 : tensor<?x8xf32>, tensor<8x10xf32>) outs(%f4 : tensor<?x10xf32>) -> tensor<?x10xf32>
  return %fc : tensor<?x10xf32>
}
