// RUN: orchestra-opt %s --orchestra-deduplicate-kernels | FileCheck %s

// Two tasks of the same body (two layers with their own weights, which are
// operands) launch one kernel; a kernel whose body differs (here its
// constant) stays, and so does a kernel of another device's module. The
// launches keep their task names.
// CHECK-LABEL: module @kernels_x86_64_0
// CHECK:         func.func @layer0
// CHECK-NOT:     func.func @layer1
// CHECK:         func.func @scaled
// CHECK-LABEL: module @kernels_x86_64_1
// CHECK:         func.func @layer2
// CHECK-LABEL: func.func @main
// CHECK:         orchestra.launch "layer0" @kernels_x86_64_0::@layer0
// CHECK:         orchestra.launch "layer1" @kernels_x86_64_0::@layer0
// CHECK:         orchestra.launch "scaled" @kernels_x86_64_0::@scaled
// CHECK:         orchestra.launch "layer2" @kernels_x86_64_1::@layer2
module {
  module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64"} {
    func.func @layer0(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
      %e = tensor.empty() : tensor<4xf32>
      %r = linalg.add ins(%x, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
      return %r : tensor<4xf32>
    }
    func.func @layer1(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
      %e = tensor.empty() : tensor<4xf32>
      %r = linalg.add ins(%x, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
      return %r : tensor<4xf32>
    }
    func.func @scaled(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
      %c = arith.constant dense<2.0> : tensor<4xf32>
      %e = tensor.empty() : tensor<4xf32>
      %r = linalg.mul ins(%x, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
      return %r : tensor<4xf32>
    }
  }
  module @kernels_x86_64_1 attributes {orchestra.arch = "x86_64"} {
    func.func @layer2(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
      %e = tensor.empty() : tensor<4xf32>
      %r = linalg.add ins(%x, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
      return %r : tensor<4xf32>
    }
  }
  func.func @main(%x: tensor<4xf32>, %w0: tensor<4xf32>, %w1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = orchestra.launch "layer0" @kernels_x86_64_0::@layer0(%x, %w0) target = {arch = "x86_64", device_id = 0} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = orchestra.launch "layer1" @kernels_x86_64_0::@layer1(%0, %w1) target = {arch = "x86_64", device_id = 0} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %2 = orchestra.launch "scaled" @kernels_x86_64_0::@scaled(%1, %w1) target = {arch = "x86_64", device_id = 0} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %3 = orchestra.launch "layer2" @kernels_x86_64_1::@layer2(%2, %w1) target = {arch = "x86_64", device_id = 1} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %3 : tensor<4xf32>
  }
}
