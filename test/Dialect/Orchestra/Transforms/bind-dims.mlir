// RUN: orchestra-opt %s --split-input-file --orchestra-bind-dims="dims=batch=2..16@8" --verify-diagnostics | FileCheck %s
// RUN: orchestra-opt %s --split-input-file --orchestra-bind-dims 2>&1 | FileCheck %s --check-prefix=DEFAULT
// RUN: not orchestra-opt %s --split-input-file --orchestra-bind-dims="dims=batch=9..3" 2>&1 | FileCheck %s --check-prefix=BAD

// Named dims take the option's range; an unnamed `?` is named after its
// argument and dimension and gets the default range, with a remark.

// CHECK-LABEL: func.func @main
// CHECK-SAME:    %{{.*}}: tensor<?x4xf32> {orchestra.dim_names = ["batch", ""]}
// CHECK-SAME:    %{{.*}}: tensor<?x?xf32> {orchestra.dim_names = ["batch", "arg1.1"]}
// CHECK-SAME:    orchestra.dims = {arg1.1 = array<i64: 1, 64, 64>, batch = array<i64: 2, 16, 8>}
// DEFAULT:       remark: dimension 'batch' has no bound: compiled for sizes 1..64 (set another range with --dim batch=MIN..MAX)
// DEFAULT:       orchestra.dims = {arg1.1 = array<i64: 1, 64, 64>, batch = array<i64: 1, 64, 64>}
// BAD:           error: --dim expects NAME=SIZE or NAME=MIN..MAX[@OPT] with 0 <= MIN <= OPT <= MAX, got 'batch=9..3'
func.func @main(%x: tensor<?x4xf32> {orchestra.dim_names = ["batch", ""]},
                // expected-remark @below {{dimension 'arg1.1' has no bound}}
                %y: tensor<?x?xf32> {orchestra.dim_names = ["batch", ""]}) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// -----

// A range already on the function is kept; a static program gets no dims.

// expected-warning @+1 {{no dynamic dimension of the entry's arguments is named 'batch'}}
module {
// CHECK-LABEL: func.func @kept
// CHECK-SAME:    orchestra.dims = {seq = array<i64: 1, 512, 128>}
func.func @kept(%x: tensor<?xf32> {orchestra.dim_names = ["seq"]}) -> tensor<?xf32>
    attributes {orchestra.dims = {seq = array<i64: 1, 512, 128>}} {
  return %x : tensor<?xf32>
}
}

// -----

// expected-warning @+1 {{no dynamic dimension of the entry's arguments is named 'batch'}}
module {
// CHECK-LABEL: func.func @static
// CHECK-NOT:     orchestra.dims
func.func @static(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
}
