// Register tiles of channels-last convolutions (7 columns x 32 channels) and
// their remainders, against the plain loop lowering on random inputs:
//   * 48 output channels on a 14x10 map (parallel over rows): the channel and column loops are
//     peeled, so the remainders (16 channels, 3 columns) are static vector
//     tiles of their own instead of scalar loops;
//   * 64 output channels on a 7x7 map: the task is parallel over 32-channel
//     tiles, each over all the rows (`orchestra.fusion_root_nhwc_channels`).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %S/Inputs/e2e.py gen %t/in x:f32:1x16x12x8 w:f32:3x3x8x48 y:f32:1x9x9x16 v:f32:3x3x16x64
// RUN: orchestra-compile %s --topology host -o %t/opt.orcx --quiet --mlir-print-ir-after=transform-interpreter 2> %t/ir.txt
// RUN: FileCheck %s --input-file=%t/ir.txt
// RUN: orchestra-run %t/opt.orcx --input %t/in/x.npy --input %t/in/w.npy --input %t/in/y.npy --input %t/in/v.npy --output-dir %t/opt --quiet
// RUN: orchestra-compile %s --topology host --strategy=none -o %t/plain.orcx --quiet
// RUN: orchestra-run %t/plain.orcx --input %t/in/x.npy --input %t/in/w.npy --input %t/in/y.npy --input %t/in/v.npy --output-dir %t/plain --quiet
// RUN: %python %S/Inputs/e2e.py compare %t/opt %t/plain

// CHECK-LABEL: func.func @t0_conv_2d_nhwc_hwcf
// CHECK:       scf.forall ({{.*}}) in (14)
// CHECK-DAG:   vector.outerproduct {{.*}} : vector<7xf32>, vector<32xf32>
// CHECK-DAG:   vector.outerproduct {{.*}} : vector<7xf32>, vector<16xf32>
// CHECK-DAG:   vector.outerproduct {{.*}} : vector<3xf32>, vector<32xf32>
// CHECK-DAG:   vector.outerproduct {{.*}} : vector<3xf32>, vector<16xf32>
// CHECK-LABEL: func.func @t1_conv_2d_nhwc_hwcf
// CHECK:       scf.forall ({{.*}}) in (2)
// CHECK:       vector.outerproduct {{.*}} : vector<7xf32>, vector<32xf32>

func.func @main(%x: tensor<1x16x12x8xf32>, %w: tensor<3x3x8x48xf32>, %y: tensor<1x9x9x16xf32>, %v: tensor<3x3x16x64xf32>)
    -> (tensor<1x14x10x48xf32>, tensor<1x7x7x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x10x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x10x48xf32>) -> tensor<1x14x10x48xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x16x12x8xf32>, tensor<3x3x8x48xf32>) outs(%f : tensor<1x14x10x48xf32>) -> tensor<1x14x10x48xf32>
  %e7 = tensor.empty() : tensor<1x7x7x64xf32>
  %f7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  %c7 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%y, %v : tensor<1x9x9x16xf32>, tensor<3x3x16x64xf32>) outs(%f7 : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  return %c, %c7 : tensor<1x14x10x48xf32>, tensor<1x7x7x64xf32>
}
