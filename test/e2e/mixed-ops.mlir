// On two-cpu: conv2d with a batch of 1 (parallel over rows), matmul with
// sizes that do not divide the tiles, an i64 matmul, linalg.broadcast, a
// generic using linalg.index, a strided slice, and a value returned twice.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in img:f32:1x9x9x4 w:f32:3x3x4x5 a:f32:33x17 b:f32:17x9 ia:i64:5x6 ib:i64:6x3 r:f32:13
// RUN: orchestra-compile %s --topology %orchestra_src_root/topologies/two-cpu.json -o %t/opt.orcx --quiet
// RUN: orchestra-run %t/opt.orcx --input %t/in/img.npy --input %t/in/w.npy --input %t/in/a.npy --input %t/in/b.npy --input %t/in/ia.npy --input %t/in/ib.npy --input %t/in/r.npy --output-dir %t/opt --quiet
// RUN: %python %S/Inputs/e2e.py check mixed_ops %t/in %t/opt
// RUN: orchestra-compile %s --topology %orchestra_src_root/topologies/two-cpu.json --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/img.npy --input %t/in/w.npy --input %t/in/a.npy --input %t/in/b.npy --input %t/in/ia.npy --input %t/in/ib.npy --input %t/in/r.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

#id = affine_map<(i, j) -> (i, j)>
func.func @main(%img: tensor<1x9x9x4xf32>, %w: tensor<3x3x4x5xf32>, %a: tensor<33x17xf32>, %b: tensor<17x9xf32>, %ia: tensor<5x6xi64>, %ib: tensor<6x3xi64>, %r: tensor<13xf32>) -> (tensor<1x7x7x5xf32>, tensor<33x9xf32>, tensor<5x3xi64>, tensor<13x7xf32>, tensor<4x5xf32>, tensor<33x9xf32>, tensor<13xf32>) {
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<1x7x7x5xf32>
  %cf = linalg.fill ins(%z : f32) outs(%ce : tensor<1x7x7x5xf32>) -> tensor<1x7x7x5xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%img, %w : tensor<1x9x9x4xf32>, tensor<3x3x4x5xf32>) outs(%cf : tensor<1x7x7x5xf32>) -> tensor<1x7x7x5xf32>
  %me = tensor.empty() : tensor<33x9xf32>
  %mf = linalg.fill ins(%z : f32) outs(%me : tensor<33x9xf32>) -> tensor<33x9xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<33x17xf32>, tensor<17x9xf32>) outs(%mf : tensor<33x9xf32>) -> tensor<33x9xf32>
  %z64 = arith.constant 0 : i64
  %ie = tensor.empty() : tensor<5x3xi64>
  %if = linalg.fill ins(%z64 : i64) outs(%ie : tensor<5x3xi64>) -> tensor<5x3xi64>
  %im = linalg.matmul ins(%ia, %ib : tensor<5x6xi64>, tensor<6x3xi64>) outs(%if : tensor<5x3xi64>) -> tensor<5x3xi64>
  %be = tensor.empty() : tensor<13x7xf32>
  %bc = linalg.broadcast ins(%r : tensor<13xf32>) outs(%be : tensor<13x7xf32>) dimensions = [1]
  %idx = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%bc : tensor<13x7xf32>) outs(%be : tensor<13x7xf32>) {
  ^bb0(%v: f32, %o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = arith.addi %i, %j : index
    %si = arith.index_cast %s : index to i32
    %sf = arith.sitofp %si : i32 to f32
    %res = arith.addf %v, %sf : f32
    linalg.yield %res : f32
  } -> tensor<13x7xf32>
  %sl = tensor.extract_slice %mm[2, 1] [4, 5] [1, 1] : tensor<33x9xf32> to tensor<4x5xf32>
  return %conv, %mm, %im, %idx, %sl, %mm, %r : tensor<1x7x7x5xf32>, tensor<33x9xf32>, tensor<5x3xi64>, tensor<13x7xf32>, tensor<4x5xf32>, tensor<33x9xf32>, tensor<13xf32>
}
