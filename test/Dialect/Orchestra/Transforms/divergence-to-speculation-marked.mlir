// RUN: orchestra-opt %s -split-input-file -divergence-to-speculation | FileCheck %s

// In a compile the scheduler marks the branches worth speculating
// (orchestra.speculate) with the targets of their sides; only those are
// split. The condition crosses between tasks as a 0-d tensor<i1>, which the
// commit takes. A side placed on another device than the task reads its
// operands through transfers (not the constant, resident in every space);
// each side comes as early as its operands allow, with the predictions of
// the speculated schedule (the then side the task's, the else side the
// mark's).

// CHECK-LABEL: func.func @marked
// CHECK-SAME: (%[[C:.*]]: tensor<i1>, %[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
// CHECK: %[[THEN:.*]] = orchestra.task "pick.then" args(%{{.*}} = %[[X]] : tensor<4xf32>)
// CHECK-SAME: target = {arch = "x86_64", device_id = 0}
// CHECK-SAME: attributes {predicted_start = 0.000000e+00, predicted_finish = 1.000000e+00}
// CHECK: %[[XT:.*]] = orchestra.transfer %[[X]] from @cpu0_dram to @cpu1_dram : tensor<4xf32>
// CHECK: %[[YT:.*]] = orchestra.transfer %[[Y]] from @cpu0_dram to @cpu1_dram : tensor<4xf32>
// CHECK: %[[ELSE:.*]] = orchestra.task "pick.else" args(%{{.*}} = %[[XT]] : tensor<4xf32>, %{{.*}} = %[[YT]] : tensor<4xf32>, %{{.*}} = %[[K:.*]] : tensor<4xf32>)
// CHECK-SAME: target = {arch = "x86_64", device_id = 1}
// CHECK-SAME: attributes {predicted_start = 2.000000e+00, predicted_finish = 3.000000e+00}
// CHECK-NOT: orchestra.speculate
// CHECK: %[[LONG:.*]] = orchestra.task "long"
// CHECK: %[[R:.*]] = orchestra.commit %[[C]] : tensor<i1> true(%[[THEN]]) false(%[[ELSE]]) : tensor<4xf32>
// CHECK: orchestra.yield %[[R]], %[[LONG]]
module attributes {orchestra.topology = #orchestra.topology<"two-cpu", devices = [<"cpu0", arch = "x86_64", device_id = 0>, <"cpu1", arch = "x86_64", device_id = 1>]>} {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  orchestra.memory_space @cpu1_dram kind = "dram" arch = "x86_64" device_id = 1
  func.func @marked(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %k = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %r:2 = orchestra.schedule -> (tensor<4xf32>, tensor<4xf32>) {
      %l = orchestra.task "long" args(%a = %x : tensor<4xf32>) -> tensor<4xf32>
          target = {arch = "x86_64", device_id = 0} {
        %e = math.exp %a : tensor<4xf32>
        orchestra.yield %e : tensor<4xf32>
      }
      %t = orchestra.task "pick" args(%cond = %c : tensor<i1>, %a = %x : tensor<4xf32>, %b = %y : tensor<4xf32>, %kk = %k : tensor<4xf32>)
          -> (tensor<4xf32>) target = {arch = "x86_64", device_id = 0}
          attributes {predicted_start = 0.0, predicted_finish = 1.0,
                      orchestra.speculate = {then = {arch = "x86_64", device_id = 0 : i64},
                                             else = {arch = "x86_64", device_id = 1 : i64},
                                             else_start = 2.0 : f64, else_finish = 3.0 : f64}} {
        %p = tensor.extract %cond[] : tensor<i1>
        %v = scf.if %p -> (tensor<4xf32>) {
          %e = math.exp %a : tensor<4xf32>
          scf.yield %e : tensor<4xf32>
        } else {
          %s = arith.subf %a, %b : tensor<4xf32>
          %m = arith.mulf %s, %kk : tensor<4xf32>
          scf.yield %m : tensor<4xf32>
        }
        orchestra.yield %v : tensor<4xf32>
      }
      orchestra.yield %t, %l : tensor<4xf32>, tensor<4xf32>
    }
    return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
  }
}

// -----

// Unmarked: the scheduler found no gain; the branch stays one task.
// CHECK-LABEL: func.func @unmarked
// CHECK: orchestra.task "pick"
// CHECK: scf.if
// CHECK-NOT: orchestra.commit
func.func @unmarked(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = orchestra.schedule -> (tensor<4xf32>) {
    %t = orchestra.task "pick" args(%cond = %c : tensor<i1>, %a = %x : tensor<4xf32>)
        -> (tensor<4xf32>) target = {arch = "x86_64", device_id = 0} {
      %p = tensor.extract %cond[] : tensor<i1>
      %v = scf.if %p -> (tensor<4xf32>) {
        %e = math.exp %a : tensor<4xf32>
        scf.yield %e : tensor<4xf32>
      } else {
        %n = arith.negf %a : tensor<4xf32>
        scf.yield %n : tensor<4xf32>
      }
      orchestra.yield %v : tensor<4xf32>
    }
    orchestra.yield %t : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
