// RUN: orchestra-opt %s --split-input-file --orchestra-bind-dims="dims=batch=1..32" --orchestra-schedule --verify-diagnostics | FileCheck %s

// Dynamic sizes (design/0017): a task recomputes the sizes it needs from
// the tensors it reads (`tensor.dim` and the `tensor.empty` are cloned into
// it, as constants are).

// CHECK-LABEL: func.func @main
// CHECK-SAME:    orchestra.dims = {batch = array<i64: 1, 32, 32>}
// CHECK:         orchestra.task "t0_matmul" args(%[[X:.*]] = %{{.*}} : tensor<?x64xf32>, {{.*}}) -> tensor<?x32xf32>
// CHECK:           %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x64xf32>
// CHECK:           tensor.empty(%[[N]]) : tensor<?x32xf32>
// CHECK:           linalg.matmul
func.func @main(%x: tensor<?x64xf32> {orchestra.dim_names = ["batch", ""]}, %w: tensor<64x32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%n) : tensor<?x32xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x32xf32>) outs(%f : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %m : tensor<?x32xf32>
}

// -----

// A size read from data cannot be bounded: refused where it is computed.

func.func @data_size(%x: tensor<?xf32> {orchestra.dim_names = ["batch"]}, %k: tensor<i64>) -> tensor<?xf32> {
  %i = tensor.extract %k[] : tensor<i64>
  %n = arith.index_cast %i : i64 to index
  // expected-error @below {{result type 'tensor<?xf32>' has dimension #0 of dynamic size that is not an affine expression in the entry's named dims (it depends on data, or was not named by orchestra-bind-dims)}}
  %e = tensor.empty(%n) : tensor<?xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %f : tensor<?xf32>
}

// -----

// The plan holds a tensor at its largest size, which must be one the
// compiler takes.

// expected-error @below {{argument #0 of entry function 'huge' ('tensor<?x1048576x1048576xf32>') holds more than 2^40 elements at the dims' largest sizes (the largest tensor OrchestraOS compiles; bound the dims with --dim NAME=MIN..MAX)}}
func.func @huge(%x: tensor<?x1048576x1048576xf32> {orchestra.dim_names = ["batch", "", ""]}) -> tensor<?x1048576x1048576xf32> {
  return %x : tensor<?x1048576x1048576xf32>
}
