// RUN: orchestra-opt %s -split-input-file -canonicalize | FileCheck %s

orchestra.memory_space @host kind = "dram" arch = "x86_64" device_id = 0
orchestra.memory_space @gpu0 kind = "hbm" arch = "nvidia_hopper" device_id = 0
orchestra.memory_space @gpu1 kind = "hbm" arch = "nvidia_hopper" device_id = 1

// CHECK-LABEL: func.func @transfer_to_same_space
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NOT: orchestra.transfer
// CHECK: return %[[X]]
func.func @transfer_to_same_space(%x: tensor<4xf32>) -> tensor<4xf32> {
  %t = orchestra.transfer %x from @gpu0 to @gpu0 : tensor<4xf32>
  return %t : tensor<4xf32>
}

// A memref transfer allocates a fresh buffer: it does not fold.
// CHECK-LABEL: func.func @memref_transfer_to_same_space
// CHECK: orchestra.transfer %{{.*}} from @host to @host : memref<4xf32>
func.func @memref_transfer_to_same_space(%m: memref<4xf32>) -> memref<4xf32> {
  %t = orchestra.transfer %m from @host to @host : memref<4xf32>
  return %t : memref<4xf32>
}

// CHECK-LABEL: func.func @transfer_chain
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[T:.*]] = orchestra.transfer %[[X]] from @host to @gpu1 : tensor<4xf32>
// CHECK-NEXT: return %[[T]]
func.func @transfer_chain(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = orchestra.transfer %x from @host to @gpu0 : tensor<4xf32>
  %b = orchestra.transfer %a from @gpu0 to @gpu1 : tensor<4xf32>
  return %b : tensor<4xf32>
}

// The intermediate value is still used, so its transfer stays; the second
// transfer reads from the first space.
// CHECK-LABEL: func.func @transfer_chain_with_use
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[A:.*]] = orchestra.transfer %[[X]] from @host to @gpu0 : tensor<4xf32>
// CHECK-DAG: %[[B:.*]] = orchestra.transfer %[[X]] from @host to @gpu1 : tensor<4xf32>
// CHECK: return %[[A]], %[[B]]
func.func @transfer_chain_with_use(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = orchestra.transfer %x from @host to @gpu0 : tensor<4xf32>
  %b = orchestra.transfer %a from @gpu0 to @gpu1 : tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// There and back again: nothing moves.
// CHECK-LABEL: func.func @transfer_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NOT: orchestra.transfer
// CHECK: return %[[X]]
func.func @transfer_round_trip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = orchestra.transfer %x from @host to @gpu0 : tensor<4xf32>
  %b = orchestra.transfer %a from @gpu0 to @host : tensor<4xf32>
  return %b : tensor<4xf32>
}

// CHECK-LABEL: func.func @duplicate_transfers
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[A:.*]] = orchestra.transfer %[[X]] from @host to @gpu0
// CHECK-NEXT: %[[C:.*]] = orchestra.transfer %[[X]] from @host to @gpu1
// CHECK-NEXT: return %[[A]], %[[A]], %[[C]]
func.func @duplicate_transfers(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = orchestra.transfer %x from @host to @gpu0 : tensor<4xf32>
  %b = orchestra.transfer %x from @host to @gpu0 : tensor<4xf32>
  %c = orchestra.transfer %x from @host to @gpu1 : tensor<4xf32>
  return %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Memref transfers each own a buffer: duplicates stay.
// CHECK-LABEL: func.func @duplicate_memref_transfers
// CHECK-COUNT-2: orchestra.transfer
func.func @duplicate_memref_transfers(%m: memref<4xf32>) -> (memref<4xf32, 1>, memref<4xf32, 1>) {
  %a = orchestra.transfer %m from @host to @gpu0 : memref<4xf32> -> memref<4xf32, 1>
  %b = orchestra.transfer %m from @host to @gpu0 : memref<4xf32> -> memref<4xf32, 1>
  return %a, %b : memref<4xf32, 1>, memref<4xf32, 1>
}

// An unused tensor transfer has no effect and disappears.
// CHECK-LABEL: func.func @dead_transfer
// CHECK-NOT: orchestra.transfer
func.func @dead_transfer(%x: tensor<4xf32>) {
  %a = orchestra.transfer %x from @host to @gpu0 : tensor<4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @commit_constant
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[I:.*]]: i32, %[[J:.*]]: i32)
// CHECK-NOT: orchestra.commit
// CHECK: return %[[A]], %[[I]], %[[B]], %[[J]]
func.func @commit_constant(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: i32, %j: i32)
    -> (tensor<4xf32>, i32, tensor<4xf32>, i32) {
  %true = arith.constant true
  %false = arith.constant false
  %t:2 = orchestra.commit %true true(%a, %i) false(%b, %j) : tensor<4xf32>, i32
  %f:2 = orchestra.commit %false true(%a, %i) false(%b, %j) : tensor<4xf32>, i32
  return %t#0, %t#1, %f#0, %f#1 : tensor<4xf32>, i32, tensor<4xf32>, i32
}

// A constant 0-d tensor condition folds the same way.
// CHECK-LABEL: func.func @commit_constant_tensor
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NOT: orchestra.commit
// CHECK: return %[[B]], %[[A]]
func.func @commit_constant_tensor(%a: tensor<4xf32>, %b: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %false = arith.constant dense<false> : tensor<i1>
  %true = arith.constant dense<true> : tensor<i1>
  %f = orchestra.commit %false : tensor<i1> true(%a) false(%b) : tensor<4xf32>
  %t = orchestra.commit %true : tensor<i1> true(%a) false(%b) : tensor<4xf32>
  return %f, %t : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @commit_same_lists
// CHECK-SAME: (%[[C:.*]]: i1, %[[A:.*]]: tensor<4xf32>)
// CHECK-NOT: orchestra.commit
// CHECK: return %[[A]]
func.func @commit_same_lists(%c: i1, %a: tensor<4xf32>) -> tensor<4xf32> {
  %r = orchestra.commit %c true(%a) false(%a) : tensor<4xf32>
  return %r : tensor<4xf32>
}

// The condition is only known at run time: nothing folds.
// CHECK-LABEL: func.func @commit_runtime_condition
// CHECK: %[[R:.*]] = orchestra.commit %{{.*}} true(%{{.*}}) false(%{{.*}}) : tensor<4xf32>
// CHECK: return %[[R]]
func.func @commit_runtime_condition(%c: i1, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = orchestra.commit %c true(%a) false(%b) : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

orchestra.memory_space @host kind = "dram" arch = "x86_64" device_id = 0
orchestra.memory_space @gpu0 kind = "hbm" arch = "nvidia_hopper" device_id = 0

// CHECK-LABEL: func.func @empty_schedule
// CHECK-NEXT: return
func.func @empty_schedule() {
  orchestra.schedule {
    orchestra.yield
  }
  return
}

// A schedule that only forwards values (and selects among them) does no work.
// CHECK-LABEL: func.func @schedule_without_work
// CHECK-SAME: (%[[C:.*]]: i1, %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NOT: orchestra.schedule
// CHECK: %[[R:.*]] = orchestra.commit %[[C]] true(%[[A]]) false(%[[B]])
// CHECK: return %[[R]], %[[A]]
func.func @schedule_without_work(%c: i1, %a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = orchestra.schedule -> (tensor<4xf32>, tensor<4xf32>) {
    %s = orchestra.commit %c true(%a) false(%b) : tensor<4xf32>
    orchestra.yield %s, %a : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// A task is work: the schedule stays.
// CHECK-LABEL: func.func @schedule_with_task
// CHECK: orchestra.schedule
// CHECK: orchestra.task "t"
func.func @schedule_with_task(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = orchestra.schedule -> (tensor<4xf32>) {
    %t = orchestra.task "t" args(%v = %a : tensor<4xf32>) -> (tensor<4xf32>)
        target = {arch = "x86_64", device_id = 0} {
      %d = arith.addf %v, %v : tensor<4xf32>
      orchestra.yield %d : tensor<4xf32>
    }
    orchestra.yield %t : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// So is a transfer.
// CHECK-LABEL: func.func @schedule_with_transfer
// CHECK: orchestra.schedule
// CHECK: orchestra.transfer
func.func @schedule_with_transfer(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = orchestra.schedule -> (tensor<4xf32>) {
    %t = orchestra.transfer %a from @host to @gpu0 : tensor<4xf32>
    orchestra.yield %t : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// A task whose results are unused is removed (its body has no side effects),
// and then the schedule has no work left.
// CHECK-LABEL: func.func @dead_task
// CHECK-NOT: orchestra.
// CHECK: return
func.func @dead_task(%a: tensor<4xf32>) {
  orchestra.schedule {
    %t = orchestra.task "t" args(%v = %a : tensor<4xf32>) -> (tensor<4xf32>)
        target = {arch = "x86_64", device_id = 0} {
      %d = arith.addf %v, %v : tensor<4xf32>
      orchestra.yield %d : tensor<4xf32>
    }
    orchestra.yield
  }
  return
}

// A task that reshapes a value it computes just before yielding it yields
// the value itself; the tasks that read the result reshape their argument
// (a view) first. The result read by the schedule's yield keeps its
// reshape, and so does a reshape of a task's argument.
// CHECK-LABEL: func.func @task_result_reshape
// CHECK:         %[[P:.*]]:3 = orchestra.task "producer" {{.*}} -> (tensor<2x6xf32>, tensor<2x2x3xf32>, tensor<2x2x3xf32>)
// CHECK:           %[[D:.*]] = arith.addf
// CHECK:           %[[KEPT:.*]] = tensor.expand_shape %[[D]]
// CHECK:           %[[ARG:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [2, 2, 3]
// CHECK:           orchestra.yield %[[D]], %[[KEPT]], %[[ARG]] : tensor<2x6xf32>, tensor<2x2x3xf32>, tensor<2x2x3xf32>
// CHECK:         orchestra.task "reader" args(%[[R:[a-z0-9]*]] = %[[P]]#0 : tensor<2x6xf32>, %{{.*}} = %[[P]]#2 : tensor<2x2x3xf32>)
// CHECK:           %[[V:.*]] = tensor.expand_shape %[[R]] {{\[}}[0], [1, 2]] output_shape [2, 2, 3] : tensor<2x6xf32> into tensor<2x2x3xf32>
// CHECK:           arith.mulf %[[V]], %[[V]] : tensor<2x2x3xf32>
// CHECK:         orchestra.yield %{{.*}}, %[[P]]#1
func.func @task_result_reshape(%a: tensor<2x6xf32>) -> (tensor<2x2x3xf32>, tensor<2x2x3xf32>) {
  %r:2 = orchestra.schedule -> (tensor<2x2x3xf32>, tensor<2x2x3xf32>) {
    %t:3 = orchestra.task "producer" args(%v = %a : tensor<2x6xf32>) -> (tensor<2x2x3xf32>, tensor<2x2x3xf32>, tensor<2x2x3xf32>)
        target = {arch = "x86_64", device_id = 0} {
      %d = arith.addf %v, %v : tensor<2x6xf32>
      %e = tensor.expand_shape %d [[0], [1, 2]] output_shape [2, 2, 3] : tensor<2x6xf32> into tensor<2x2x3xf32>
      %k = tensor.expand_shape %d [[0], [1, 2]] output_shape [2, 2, 3] : tensor<2x6xf32> into tensor<2x2x3xf32>
      %w = tensor.expand_shape %v [[0], [1, 2]] output_shape [2, 2, 3] : tensor<2x6xf32> into tensor<2x2x3xf32>
      orchestra.yield %e, %k, %w : tensor<2x2x3xf32>, tensor<2x2x3xf32>, tensor<2x2x3xf32>
    }
    %u = orchestra.task "reader" args(%x = %t#0 : tensor<2x2x3xf32>, %y = %t#2 : tensor<2x2x3xf32>) -> (tensor<2x2x3xf32>)
        target = {arch = "x86_64", device_id = 0} {
      %m = arith.mulf %x, %x : tensor<2x2x3xf32>
      %n = arith.addf %m, %y : tensor<2x2x3xf32>
      orchestra.yield %n : tensor<2x2x3xf32>
    }
    orchestra.yield %u, %t#1 : tensor<2x2x3xf32>, tensor<2x2x3xf32>
  }
  return %r#0, %r#1 : tensor<2x2x3xf32>, tensor<2x2x3xf32>
}
