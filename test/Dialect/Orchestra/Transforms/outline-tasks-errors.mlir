// RUN: orchestra-opt %s --orchestra-outline-tasks --verify-diagnostics --split-input-file

// A transfer into shared memory inside a task body is valid IR, but no
// kernel backend lowers it yet: a clear error, not a dangling symbol.
orchestra.memory_space @gpu0_hbm kind = "hbm" arch = "nvidia_hopper" device_id = 0
orchestra.memory_space @gpu0_shared kind = "shared" arch = "nvidia_hopper" device_id = 0
func.func @main(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = orchestra.schedule -> (tensor<64x64xf32>) {
    %t = orchestra.task "t0" args(%a = %x : tensor<64x64xf32>) -> (tensor<64x64xf32>) target = {arch = "nvidia_hopper", device_id = 0} {
      // expected-error @below {{inside task 't0' is not supported by the kernel backends yet}}
      %s = orchestra.transfer %a from @gpu0_hbm to @gpu0_shared : tensor<64x64xf32>
      orchestra.yield %s : tensor<64x64xf32>
    }
    orchestra.yield %t : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}
