// RUN: orchestra-opt %s --split-input-file --orchestra-schedule="topology=%orchestra_src_root/topologies/two-cpu.json" --verify-diagnostics | FileCheck %s

// Two independent matmul groups: the first goes to cpu0, the second to cpu1
// (running both on cpu0 would take two launch overheads, 10 us; moving the
// second costs 1 us of transfers each way), with transfers of its operands and of its result back to
// the memory space of the entry arguments. The relu fuses into the first
// matmul's task; fills of constants are recomputed in each task.

// CHECK-LABEL: module attributes {orchestra.topology = #orchestra.topology<"two-cpu", devices = [<"cpu0", arch = "x86_64", device_id = 0>, <"cpu1", arch = "x86_64", device_id = 1>]>}
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

// expected-error @below {{argument #0 of entry function 'main' ('tensor<?x4xf32>') has dynamic dimension #0, which has no named, bounded dim (run orchestra-bind-dims first)}}
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

// -----

// Weights (constants) cost no transfer: the task on cpu1 reads them as they
// are (orchestra-plan-buffers gives each memory space that reads a constant
// its own copy, written once when the plan is loaded). Only the argument
// and the result travel.

// CHECK-LABEL: func.func @weights
// CHECK-COUNT-2: arith.constant dense<"0x{{[0-9A-F]+}}"> : tensor<8x16xf32>
// CHECK:         orchestra.schedule
// CHECK-NOT:       orchestra.transfer %cst
// CHECK:           orchestra.task {{.*}} = %cst{{(_[0-9]+)?}} : tensor<8x16xf32>{{.*}} target = {arch = "x86_64", device_id = 1
// CHECK-NOT:       orchestra.transfer %cst
// CHECK:         return
func.func @weights(%x: tensor<4x8xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>) {
  %w = arith.constant dense<"0x000000000000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B8410000C0410000C8410000D0410000D8410000E0410000E8410000F0410000F84100000042000004420000084200000C4200001042000014420000184200001C4200002042000024420000284200002C4200003042000034420000384200003C4200004042000044420000484200004C4200005042000054420000584200005C4200006042000064420000684200006C4200007042000074420000784200007C42000080420000824200008442000086420000884200008A4200008C4200008E42000090420000924200009442000096420000984200009A4200009C4200009E420000A0420000A2420000A4420000A6420000A8420000AA420000AC420000AE420000B0420000B2420000B4420000B6420000B8420000BA420000BC420000BE420000C0420000C2420000C4420000C6420000C8420000CA420000CC420000CE420000D0420000D2420000D4420000D6420000D8420000DA420000DC420000DE420000E0420000E2420000E4420000E6420000E8420000EA420000EC420000EE420000F0420000F2420000F4420000F6420000F8420000FA420000FC420000FE42"> : tensor<8x16xf32>
  %w2 = arith.constant dense<"0x0000803F0000004000004040000080400000A0400000C0400000E0400000004100001041000020410000304100004041000050410000604100007041000080410000884100009041000098410000A0410000A8410000B0410000B8410000C0410000C8410000D0410000D8410000E0410000E8410000F0410000F84100000042000004420000084200000C4200001042000014420000184200001C4200002042000024420000284200002C4200003042000034420000384200003C4200004042000044420000484200004C4200005042000054420000584200005C4200006042000064420000684200006C4200007042000074420000784200007C42000080420000824200008442000086420000884200008A4200008C4200008E42000090420000924200009442000096420000984200009A4200009C4200009E420000A0420000A2420000A4420000A6420000A8420000AA420000AC420000AE420000B0420000B2420000B4420000B6420000B8420000BA420000BC420000BE420000C0420000C2420000C4420000C6420000C8420000CA420000CC420000CE420000D0420000D2420000D4420000D6420000D8420000DA420000DC420000DE420000E0420000E2420000E4420000E6420000E8420000EA420000EC420000EE420000F0420000F2420000F4420000F6420000F8420000FA420000FC420000FE4200000043"> : tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m2 = linalg.matmul ins(%x, %w2 : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m3 = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%m2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %m, %m3 : tensor<4x16xf32>, tensor<4x16xf32>
}

// -----

// A memory space declared before scheduling gets the topology's capacity.

// CHECK-LABEL: module
// CHECK:         orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0 capacity = 4294967296
// CHECK-LABEL: func.func @declared
module {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @declared(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}

// -----

// One that declares another capacity conflicts with the topology.

module {
  // expected-error @below {{conflicts with memory space 'cpu0_dram' of topology 'two-cpu'}}
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0 capacity = 1024
  func.func @conflict(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
}
