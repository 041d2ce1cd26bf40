// RUN: orchestra-opt %s --split-input-file --orchestra-gpu-branch-counters --verify-diagnostics | FileCheck %s

// A task function whose launch holds probes takes its counters after its
// buffers (4 i64 per branch of its table entry), marked for the launch
// table; its probes count into it. Functions without probes are unchanged.

// CHECK-LABEL: func.func @t0(
// CHECK-SAME:      %{{.*}}: memref<64xf32>, %[[C:.*]]: memref<8xi64> {orchestra.gpu_branch_counters})
// CHECK:         gpu.launch
// CHECK:           orchestra.branch_probe 0, %{{.*}} to %[[C]] : memref<8xi64>
// CHECK:           orchestra.branch_probe 1, %{{.*}} to %[[C]] : memref<8xi64>
// CHECK-LABEL: func.func @t1(%{{.*}}: memref<64xf32>)
module attributes {orchestra.branches = {t0 = [loc("a.mlir":1:1), loc("a.mlir":2:1)]}} {
  func.func @t0(%x: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[%tx] : memref<64xf32>
      %zero = arith.constant 0.0 : f32
      %p = arith.cmpf ogt, %v, %zero : f32
      orchestra.branch_probe 0, %p
      %q = arith.cmpf olt, %v, %zero : f32
      orchestra.branch_probe 1, %q
      gpu.terminator
    }
    return
  }
  func.func @t1(%x: memref<64xf32>) {
    return
  }
}

// -----

module attributes {orchestra.branches = {t0 = [loc("a.mlir":1:1)]}} {
  func.func @t0(%c: i1) {
    // expected-error @below {{'orchestra.branch_probe' op is outside every 'gpu.launch' of the task and is not a loop's condition read by the host: the strategy must map the branch onto the GPU}}
    orchestra.branch_probe 0, %c
    return
  }
}

// -----

// The probe of a loop's condition that the host reads back moves into a
// one-thread launch that reads the condition again.
// CHECK-LABEL: func.func @loop(
// CHECK-SAME:      %[[C:.*]]: memref<1xi1>, %[[COUNTERS:.*]]: memref<4xi64> {orchestra.gpu_branch_counters})
// CHECK:         scf.while
// CHECK:           %[[HOST:.*]] = memref.load %[[C]][%{{.*}}] : memref<1xi1>
// CHECK:           gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE:.*]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK:             %[[READ:.*]] = memref.load %[[C]][%{{.*}}] : memref<1xi1>
// CHECK:             orchestra.branch_probe 0, %[[READ]] to %[[COUNTERS]] : memref<4xi64>
// CHECK:           scf.condition(%[[HOST]])
module attributes {orchestra.branches = {loop = [loc("a.mlir":1:1)]}} {
  func.func @loop(%c: memref<1xi1>) {
    %c0 = arith.constant 0 : index
    scf.while : () -> () {
      %v = memref.load %c[%c0] : memref<1xi1>
      orchestra.branch_probe 0, %v
      scf.condition(%v)
    } do {
      scf.yield
    }
    return
  }
}

// -----

module {
  // expected-error @below {{has branch probes but no entry in the module's 'orchestra.branches' table}}
  func.func @t0(%c: i1) {
    orchestra.branch_probe 0, %c
    return
  }
}

// -----

module attributes {orchestra.branches = {t0 = [loc("a.mlir":1:1)]}} {
  func.func @t0(%c: i1) {
    %c1 = arith.constant 1 : index
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      // expected-error @below {{'orchestra.branch_probe' op counts branch 2, but the table has 1 for @t0}}
      orchestra.branch_probe 2, %c
      gpu.terminator
    }
    return
  }
}
