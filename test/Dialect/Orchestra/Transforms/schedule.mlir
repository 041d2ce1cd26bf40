// RUN: orchestra-opt %s --split-input-file --orchestra-schedule="topology=%orchestra_src_root/topologies/two-cpu.json" --verify-diagnostics | FileCheck %s

// Two independent matmul groups: the first goes to cpu0, the second to cpu1
// (running both on cpu0 would take two launch overheads, 10 us; moving the
// second costs 1 us of transfers each way), with transfers of its operands and of its result back to
// the memory space of the entry arguments. The relu fuses into the first
// matmul's task; fills of constants are recomputed in each task.

// CHECK-LABEL: module attributes {orchestra.topology = {devices = [{arch = "x86_64", compute_units = 1 : i64, device_id = 0 : i64, name = "cpu0"}, {arch = "x86_64", compute_units = 1 : i64, device_id = 1 : i64, name = "cpu1"}], name = "two-cpu"}}
// CHECK-DAG:     orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
// CHECK-DAG:     orchestra.memory_space @cpu1_dram kind = "dram" arch = "x86_64" device_id = 1
// CHECK:         func.func @main(%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x16xf32>, %[[W2:.*]]: tensor<8x16xf32>)
// CHECK:           %[[S:.*]]:2 = orchestra.schedule -> (tensor<4x16xf32>, tensor<4x16xf32>) attributes {orchestra.algorithm = "ils", orchestra.predicted_makespan = {{.*}} : f64} {
// CHECK:             %[[T0:.*]] = orchestra.task "t0_matmul" args(%{{.*}} = %[[X]] : tensor<4x8xf32>, %{{.*}} = %[[W]] : tensor<8x16xf32>) -> tensor<4x16xf32> target = {arch = "x86_64", device_id = 0, num_threads = 1} attributes {predicted_start = 0.000000e+00, predicted_finish = {{.*}}} {
// CHECK:               linalg.fill
// CHECK:               linalg.matmul
// CHECK:               linalg.generic
// CHECK:               orchestra.yield
// CHECK:             %[[XT:.*]] = orchestra.transfer %[[X]] from @cpu0_dram to @cpu1_dram {predicted_finish = {{.*}}, predicted_start = 0.000000e+00 : f64} : tensor<4x8xf32>
// CHECK:             %[[WT:.*]] = orchestra.transfer %[[W2]] from @cpu0_dram to @cpu1_dram {{.*}} : tensor<8x16xf32>
// CHECK:             %[[T1:.*]] = orchestra.task "t1_matmul" args(%{{.*}} = %[[XT]] : tensor<4x8xf32>, %{{.*}} = %[[WT]] : tensor<8x16xf32>) -> tensor<4x16xf32> target = {arch = "x86_64", device_id = 1, num_threads = 1}
// CHECK:               linalg.fill
// CHECK:               linalg.matmul
// CHECK:             %[[BACK:.*]] = orchestra.transfer %[[T1]] from @cpu1_dram to @cpu0_dram {{.*}} : tensor<4x16xf32>
// CHECK:             orchestra.yield %[[T0]], %[[BACK]]
// CHECK:           return %[[S]]#0, %[[S]]#1
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x16xf32>, %w2: tensor<8x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %z = arith.maximumf %a, %zero : f32
    linalg.yield %z : f32
  } -> tensor<4x16xf32>
  %m2 = linalg.matmul ins(%x, %w2 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r, %m2 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// An elementwise producer used only by an anchor fuses into it; a value
// used by two groups is a task result; two anchors never share a task.

// CHECK-LABEL: func.func @chain
// CHECK:         orchestra.task "t0_reduce"
// CHECK:           linalg.elementwise kind=#linalg.elementwise_kind<negf>
// CHECK:           linalg.reduce
// CHECK:         orchestra.task "t1_reduce"
// CHECK-NOT:     orchestra.task
// CHECK:         orchestra.yield
func.func @chain(%x: tensor<8x8xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %n = linalg.elementwise kind=#linalg.elementwise_kind<negf> ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.reduce ins(%n : tensor<8x8xf32>) outs(%z1 : tensor<8xf32>) dimensions = [1]
    (%a: f32, %s: f32) {
      %v = arith.addf %a, %s : f32
      linalg.yield %v : f32
    }
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %t = linalg.reduce ins(%r : tensor<8xf32>) outs(%z0 : tensor<f32>) dimensions = [0]
    (%a: f32, %s: f32) {
      %v = arith.addf %a, %s : f32
      linalg.yield %v : f32
    }
  return %t : tensor<f32>
}

// -----

// expected-error @below {{argument #0 of entry function 'main' has type 'tensor<?x4xf32>'; entry arguments must be ranked tensors of static shape}}
func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %x : tensor<?x4xf32>
}

// -----

// expected-error @below {{cannot choose the entry function: no 'main' and more than one public function (functions with a body: 'a', 'b'); name one with the 'entry' option}}
module {
  func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }
  func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> { return %x : tensor<4xf32> }
}

// -----

func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{works on memrefs; the entry function must work on tensors (value semantics)}}
  %m = memref.alloc() : memref<4xf32>
  return %x : tensor<4xf32>
}
