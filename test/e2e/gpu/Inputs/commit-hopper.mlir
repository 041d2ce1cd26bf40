// The schedule of test/e2e/commit.mlir on one GPU (an H100, Inputs/hopper.json): two sides of a
// branch as tasks, two commits (select steps on the GPU's queue, the
// condition in device memory), a task reading a commit's result. Compiled
// and emulated by programs-emulated.test.
module attributes {orchestra.topology = #orchestra.topology<"hopper", devices = [<"gpu0", arch = "nvidia_hopper", device_id = 0, compute_units = 132>]>} {
  orchestra.memory_space @gpu0_hbm kind = "hbm" arch = "nvidia_hopper" device_id = 0 capacity = 85899345920
  func.func @main(%c: tensor<i1>, %x: tensor<64xf32>, %y: tensor<64xf32>)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) attributes {orchestra.entry} {
    %r:3 = orchestra.schedule -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
      %then = orchestra.task "pick.then" args(%a = %x : tensor<64xf32>) -> tensor<64xf32>
          target = {arch = "nvidia_hopper", device_id = 0, num_sms = 132, sm = "sm_90a"} {
        %e = math.exp %a : tensor<64xf32>
        orchestra.yield %e : tensor<64xf32>
      }
      %else = orchestra.task "pick.else" args(%a = %x : tensor<64xf32>, %b = %y : tensor<64xf32>) -> tensor<64xf32>
          target = {arch = "nvidia_hopper", device_id = 0, num_sms = 132, sm = "sm_90a"} {
        %s = arith.subf %a, %b : tensor<64xf32>
        orchestra.yield %s : tensor<64xf32>
      }
      %ones = arith.constant dense<1.0> : tensor<64xf32>
      %p:2 = orchestra.commit %c : tensor<i1> true(%then, %ones) false(%else, %y) : tensor<64xf32>, tensor<64xf32>
      %s = orchestra.commit %c : tensor<i1> true(%x) false(%y) : tensor<64xf32>
      %post = orchestra.task "post" args(%a = %s : tensor<64xf32>) -> tensor<64xf32>
          target = {arch = "nvidia_hopper", device_id = 0, num_sms = 132, sm = "sm_90a"} {
        %d = arith.addf %a, %a : tensor<64xf32>
        orchestra.yield %d : tensor<64xf32>
      }
      orchestra.yield %p#0, %p#1, %post : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
    }
    return %r#0, %r#1, %r#2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  }
}
