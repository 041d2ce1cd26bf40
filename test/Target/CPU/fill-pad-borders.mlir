// RUN: orchestra-opt %s --split-input-file --orchestra-cpu-fill-pad-borders | FileCheck %s

// The padding of a 1x16x16x32 tensor by one row and column on each side:
// the rows above and below (whole width), then the columns left and right
// of the 16 rows in between, then the source. Nothing fills the interior.
// CHECK-LABEL: func.func @pad_rows_and_columns
// CHECK-SAME:      %[[SRC:.*]]: tensor<1x16x16x32xf32>
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<1x18x18x32xf32>
// CHECK:         %[[TOP:.*]] = linalg.fill {{.*}} -> tensor<1x1x18x32xf32>
// CHECK:         %[[T1:.*]] = tensor.insert_slice %[[TOP]] into %[[EMPTY]][0, 0, 0, 0] [1, 1, 18, 32]
// CHECK:         %[[BOTTOM:.*]] = linalg.fill {{.*}} -> tensor<1x1x18x32xf32>
// CHECK:         %[[T2:.*]] = tensor.insert_slice %[[BOTTOM]] into %[[T1]][0, 17, 0, 0] [1, 1, 18, 32]
// CHECK:         %[[LEFT:.*]] = linalg.fill {{.*}} -> tensor<1x16x1x32xf32>
// CHECK:         %[[T3:.*]] = tensor.insert_slice %[[LEFT]] into %[[T2]][0, 1, 0, 0] [1, 16, 1, 32]
// CHECK:         %[[RIGHT:.*]] = linalg.fill {{.*}} -> tensor<1x16x1x32xf32>
// CHECK:         %[[T4:.*]] = tensor.insert_slice %[[RIGHT]] into %[[T3]][0, 1, 17, 0] [1, 16, 1, 32]
// CHECK:         %[[R:.*]] = tensor.insert_slice %[[SRC]] into %[[T4]][0, 1, 1, 0] [1, 16, 16, 32]
// CHECK-NOT:     linalg.fill
// CHECK:         return %[[R]]
func.func @pad_rows_and_columns(%src: tensor<1x16x16x32xf32>) -> tensor<1x18x18x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x18x18x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x18x18x32xf32>) -> tensor<1x18x18x32xf32>
  %r = tensor.insert_slice %src into %f[0, 1, 1, 0] [1, 16, 16, 32] [1, 1, 1, 1] : tensor<1x16x16x32xf32> into tensor<1x18x18x32xf32>
  return %r : tensor<1x18x18x32xf32>
}

// -----

// Padding only after the source (a partial block of a packed matmul
// operand): one slab per padded dimension.
// CHECK-LABEL: func.func @pad_high_only
// CHECK:         linalg.fill {{.*}} -> tensor<28x64xf32>
// CHECK:         tensor.insert_slice {{.*}}[100, 0] [28, 64]
// CHECK:         linalg.fill {{.*}} -> tensor<100x14xf32>
// CHECK:         tensor.insert_slice {{.*}}[0, 50] [100, 14]
// CHECK:         tensor.insert_slice {{.*}}[0, 0] [100, 50]
func.func @pad_high_only(%src: tensor<100x50xf32>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %r = tensor.insert_slice %src into %f[0, 0] [100, 50] [1, 1] : tensor<100x50xf32> into tensor<128x64xf32>
  return %r : tensor<128x64xf32>
}

// -----

// Left alone: a fill with other uses (its whole value is needed), and a
// source of dynamic size.
// CHECK-LABEL: func.func @fill_used_twice
// CHECK:         linalg.fill {{.*}} -> tensor<18x18xf32>
// CHECK-NOT:     linalg.fill
// CHECK-LABEL: func.func @dynamic_source
// CHECK:         linalg.fill {{.*}} -> tensor<18x18xf32>
// CHECK-NOT:     linalg.fill
func.func @fill_used_twice(%src: tensor<16x16xf32>) -> (tensor<18x18xf32>, tensor<18x18xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<18x18xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<18x18xf32>) -> tensor<18x18xf32>
  %r = tensor.insert_slice %src into %f[1, 1] [16, 16] [1, 1] : tensor<16x16xf32> into tensor<18x18xf32>
  return %r, %f : tensor<18x18xf32>, tensor<18x18xf32>
}
func.func @dynamic_source(%src: tensor<?x16xf32>, %n: index) -> tensor<18x18xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<18x18xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<18x18xf32>) -> tensor<18x18xf32>
  %r = tensor.insert_slice %src into %f[1, 1] [%n, 16] [1, 1] : tensor<?x16xf32> into tensor<18x18xf32>
  return %r : tensor<18x18xf32>
}
