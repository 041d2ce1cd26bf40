// RUN: orchestra-opt %s | FileCheck %s
// RUN: orchestra-opt %s | orchestra-opt | FileCheck %s
// RUN: orchestra-opt %s --mlir-print-op-generic | orchestra-opt | FileCheck %s

// CHECK: orchestra.memory_space @host_dram kind = "dram" arch = "x86_64" device_id = 0
orchestra.memory_space @host_dram kind = "dram" arch = "x86_64" device_id = 0
// CHECK: orchestra.memory_space @gpu0_hbm kind = "hbm" arch = "nvidia_hopper" device_id = 0 capacity = 85899345920
orchestra.memory_space @gpu0_hbm kind = "hbm" arch = "nvidia_hopper" device_id = 0 capacity = 85899345920
// CHECK: orchestra.memory_space @gpu0_smem kind = "shared" arch = "nvidia_hopper" device_id = 0
orchestra.memory_space @gpu0_smem kind = "shared" arch = "nvidia_hopper" device_id = 0
orchestra.memory_space @gpu1_hbm kind = "hbm" arch = "nvidia_blackwell" device_id = 1
orchestra.memory_space @mi300_hbm kind = "hbm" arch = "amd_cdna3" device_id = 0
orchestra.memory_space @tpu_hbm kind = "hbm" arch = "google_tpu_v5e" device_id = 0
orchestra.memory_space @trn_hbm kind = "hbm" arch = "aws_trainium2" device_id = 0

// CHECK-LABEL: func.func @task_and_transfers
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
func.func @task_and_transfers(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[R:.*]] = orchestra.schedule -> (tensor<4xf32>) {
  %r = orchestra.schedule -> (tensor<4xf32>) {
    // CHECK: %[[XG:.*]] = orchestra.transfer %[[X]] from @host_dram to @gpu0_hbm : tensor<4xf32>
    %xg = orchestra.transfer %x from @host_dram to @gpu0_hbm : tensor<4xf32>
    // CHECK: %[[T:.*]] = orchestra.task "double" args(%[[A:.*]] = %[[XG]] : tensor<4xf32>) -> tensor<4xf32>
    // CHECK-SAME: target = {arch = "nvidia_hopper", device_id = 0, num_sms = 132, shared_memory_bytes = 232448, sm = "sm_90a", tma = true}
    // CHECK-SAME: attributes {predicted_start = 1.500000e+00, predicted_finish = 3.250000e+00} {
    %t = orchestra.task "double" args(%a = %xg : tensor<4xf32>) -> (tensor<4xf32>)
        target = {arch = "nvidia_hopper", device_id = 0, sm = "sm_90a", tma = true,
                  shared_memory_bytes = 232448, num_sms = 132}
        attributes {predicted_start = 1.5, predicted_finish = 3.25} {
      // CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[A]] : tensor<4xf32>
      %s = arith.addf %a, %a : tensor<4xf32>
      // CHECK-NEXT: orchestra.yield %[[S]] : tensor<4xf32>
      orchestra.yield %s : tensor<4xf32>
    }
    // CHECK: %[[BACK:.*]] = orchestra.transfer %[[T]] from @gpu0_hbm to @host_dram : tensor<4xf32>
    %back = orchestra.transfer %t from @gpu0_hbm to @host_dram : tensor<4xf32>
    // CHECK: orchestra.yield %[[BACK]] : tensor<4xf32>
    orchestra.yield %back : tensor<4xf32>
  }
  // CHECK: return %[[R]]
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @every_arch
func.func @every_arch(%x: tensor<8xbf16>) -> (tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>) {
  %r:4 = orchestra.schedule -> (tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>) {
    // CHECK: orchestra.task "amd" {{.*}} target = {arch = "amd_cdna3", chip = "gfx942", device_id = 0, lds_size = 65536, mfma = true, wavefront_size = 64}
    %a = orchestra.task "amd" args(%v = %x : tensor<8xbf16>) -> (tensor<8xbf16>)
        target = {arch = "amd_cdna3", device_id = 0, mfma = true, lds_size = 65536,
                  chip = "gfx942", wavefront_size = 64} {
      orchestra.yield %v : tensor<8xbf16>
    }
    // CHECK: orchestra.task "tpu" {{.*}} target = {arch = "google_tpu_v5e", device_id = 0, logical_core_count = 4}
    %b = orchestra.task "tpu" args(%v = %x : tensor<8xbf16>) -> (tensor<8xbf16>)
        target = {arch = "google_tpu_v5e", device_id = 0, logical_core_count = 4} {
      orchestra.yield %v : tensor<8xbf16>
    }
    // CHECK: orchestra.task "trn" {{.*}} target = {arch = "aws_trainium2", device_id = 0, logical_core_count = 2}
    // CHECK-SAME: attributes {nki_source = "def kernel(x):\0A  return x\0A"}
    %c = orchestra.task "trn" args(%v = %x : tensor<8xbf16>) -> (tensor<8xbf16>)
        target = {arch = "aws_trainium2", device_id = 0, logical_core_count = 2}
        attributes {nki_source = "def kernel(x):\n  return x\n"} {
      orchestra.yield %v : tensor<8xbf16>
    }
    // CHECK: orchestra.task "bw" {{.*}} target = {arch = "nvidia_blackwell", device_id = 1, sm = "sm_100a", tcgen05 = true}
    // CHECK-SAME: attributes {asm_kernel = {block = [128], entry = "k", grid = [1, 2], shared_bytes = 1024 : i64, source = ".visible .entry k()\0A{ ret; }"}}
    %d = orchestra.task "bw" args(%v = %x : tensor<8xbf16>) -> (tensor<8xbf16>)
        target = {arch = "nvidia_blackwell", device_id = 1, sm = "sm_100a", tcgen05 = true}
        attributes {asm_kernel = {source = ".visible .entry k()\n{ ret; }", entry = "k", grid = [1, 2], block = [128], shared_bytes = 1024}} {
      orchestra.yield %v : tensor<8xbf16>
    }
    // CHECK: orchestra.task "cpu" {{.*}} target = {arch = "x86_64", cpu = "skylake-avx512", device_id = 0, features = "+avx512f", num_threads = 2}
    %e = orchestra.task "cpu" args(%v = %x : tensor<8xbf16>) -> (tensor<8xbf16>)
        target = {arch = "x86_64", device_id = 0, num_threads = 2, cpu = "skylake-avx512",
                  features = "+avx512f"} {
      orchestra.yield %v : tensor<8xbf16>
    }
    orchestra.yield %a, %b, %c, %d : tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>
}

// A task without operands, with several results of mixed types, and with a
// discardable attribute.
// CHECK-LABEL: func.func @multi_result_task
func.func @multi_result_task() -> (tensor<2xi32>, i1) {
  // CHECK: %[[R:.*]]:2 = orchestra.schedule -> (tensor<2xi32>, i1) {
  %r:2 = orchestra.schedule -> (tensor<2xi32>, i1) {
    // CHECK: %[[INIT:.*]]:2 = orchestra.task "init" -> (tensor<2xi32>, i1) target = {arch = "x86_64", device_id = 0} attributes {my.tag = "keep"} {
    %v, %flag = orchestra.task "init" -> (tensor<2xi32>, i1)
        target = {arch = "x86_64", device_id = 0} attributes {my.tag = "keep"} {
      %c = arith.constant dense<[1, 2]> : tensor<2xi32>
      %t = arith.constant true
      orchestra.yield %c, %t : tensor<2xi32>, i1
    }
    // CHECK: orchestra.yield %[[INIT]]#0, %[[INIT]]#1 : tensor<2xi32>, i1
    orchestra.yield %v, %flag : tensor<2xi32>, i1
  }
  return %r#0, %r#1 : tensor<2xi32>, i1
}

// CHECK-LABEL: func.func @commit
// CHECK-SAME: (%[[C:.*]]: i1, %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[I:.*]]: i32, %[[J:.*]]: i32)
func.func @commit(%c: i1, %a: tensor<4xf32>, %b: tensor<4xf32>, %i: i32, %j: i32)
    -> (tensor<4xf32>, i32) {
  // CHECK: %[[R:.*]]:2 = orchestra.commit %[[C]] true(%[[A]], %[[I]]) false(%[[B]], %[[J]]) : tensor<4xf32>, i32
  %r:2 = orchestra.commit %c true(%a, %i) false(%b, %j) : tensor<4xf32>, i32
  // CHECK: orchestra.commit %[[C]] true() false()
  orchestra.commit %c true() false()
  return %r#0, %r#1 : tensor<4xf32>, i32
}

// Between tasks the condition is a 0-d tensor, whose type the op spells.
// CHECK-LABEL: func.func @commit_tensor_condition
// CHECK-SAME: (%[[C:.*]]: tensor<i1>, %[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
func.func @commit_tensor_condition(%c: tensor<i1>, %a: tensor<4xf32>, %b: tensor<4xf32>)
    -> tensor<4xf32> {
  // CHECK: orchestra.commit %[[C]] : tensor<i1> true(%[[A]]) false(%[[B]]) : tensor<4xf32>
  %r = orchestra.commit %c : tensor<i1> true(%a) false(%b) : tensor<4xf32>
  return %r : tensor<4xf32>
}

// Constants are glue and may sit in the schedule; commits select there.
// CHECK-LABEL: func.func @commit_in_schedule
func.func @commit_in_schedule(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = orchestra.schedule -> (tensor<4xf32>) {
    // CHECK: %[[FLAG:.*]] = orchestra.task "predicate"
    %flag = orchestra.task "predicate" args(%x = %a : tensor<4xf32>) -> (i1)
        target = {arch = "x86_64", device_id = 0} {
      %zero = arith.constant 0 : index
      %e = tensor.extract %x[%zero] : tensor<4xf32>
      %z = arith.constant 0.0 : f32
      %p = arith.cmpf ogt, %e, %z : f32
      orchestra.yield %p : i1
    }
    // CHECK: arith.constant dense<1.000000e+00> : tensor<4xf32>
    %ones = arith.constant dense<1.0> : tensor<4xf32>
    // CHECK: orchestra.commit %[[FLAG]] true(%{{.*}}) false(%{{.*}}) : tensor<4xf32>
    %sel = orchestra.commit %flag true(%ones) false(%b) : tensor<4xf32>
    orchestra.yield %sel : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// A schedule without results, and kernel-scope transfers inside a task body.
// CHECK-LABEL: func.func @kernel_transfer
func.func @kernel_transfer(%x: tensor<16xf16>) {
  // CHECK: orchestra.schedule {
  orchestra.schedule {
    %t = orchestra.task "stage" args(%v = %x : tensor<16xf16>) -> (tensor<16xf16>)
        target = {arch = "nvidia_hopper", device_id = 0} {
      // CHECK: orchestra.transfer %{{.*}} from @gpu0_hbm to @gpu0_smem : tensor<16xf16>
      %s = orchestra.transfer %v from @gpu0_hbm to @gpu0_smem : tensor<16xf16>
      orchestra.yield %s : tensor<16xf16>
    }
    // CHECK: orchestra.yield{{$}}
    orchestra.yield
  }
  return
}

// Memref transfers may change the memory space of the type.
// CHECK-LABEL: func.func @memref_transfer
func.func @memref_transfer(%m: memref<16xf32>) -> (memref<16xf32, 1>, memref<16xf32>) {
  // CHECK: orchestra.transfer %{{.*}} from @host_dram to @gpu0_hbm : memref<16xf32> -> memref<16xf32, 1>
  %g = orchestra.transfer %m from @host_dram to @gpu0_hbm : memref<16xf32> -> memref<16xf32, 1>
  // CHECK: orchestra.transfer %{{.*}} from @host_dram to @host_dram : memref<16xf32>{{$}}
  %h = orchestra.transfer %m from @host_dram to @host_dram : memref<16xf32>
  return %g, %h : memref<16xf32, 1>, memref<16xf32>
}

// Integer keys of any width and signedness are read by value; floats that the
// printer writes in hex keep their type so they parse back as floats.
// CHECK-LABEL: func.func @wide_values
func.func @wide_values() {
  orchestra.schedule {
    // CHECK: orchestra.task "unsigned" target = {arch = "x86_64", device_id = 255 : ui8, num_threads = 200 : ui8}
    // CHECK-SAME: attributes {predicted_start = 0x419D6F3454000000 : f64, predicted_finish = 0x419D6F3458000000 : f64, my.inf = 0x7FF0000000000000 : f64} {
    orchestra.task "unsigned" target = {arch = "x86_64", device_id = 255 : ui8, num_threads = 200 : ui8}
        attributes {predicted_start = 123456789.0, predicted_finish = 123456790.0,
                    my.inf = 0x7FF0000000000000 : f64} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// A launch of an outlined kernel (after orchestra-outline-tasks), and of a
// kernel of a compiled kernel module.
// CHECK-LABEL: func.func @launches
func.func @launches(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = orchestra.schedule -> (tensor<4xf32>) {
    // CHECK: %[[A:.*]] = orchestra.launch "neg" @kernels_x86_64_0::@neg(%{{.*}}) target = {arch = "x86_64", device_id = 0 : i64} {predicted_finish = 2.000000e+00 : f64, predicted_start = 1.000000e+00 : f64} : (tensor<4xf32>) -> tensor<4xf32>
    %a = orchestra.launch "neg" @kernels_x86_64_0::@neg(%x) target = {arch = "x86_64", device_id = 0 : i64}
        {predicted_start = 1.0 : f64, predicted_finish = 2.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
    // CHECK: orchestra.launch "compiled" @compiled::@k(%[[A]]) target = {arch = "x86_64", device_id = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    %b = orchestra.launch "compiled" @compiled::@k(%a) target = {arch = "x86_64", device_id = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>
    orchestra.yield %b : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
module @kernels_x86_64_0 attributes {orchestra.arch = "x86_64"} {
  func.func @neg(%v: tensor<4xf32>) -> tensor<4xf32> {
    %n = arith.negf %v : tensor<4xf32>
    return %n : tensor<4xf32>
  }
}
module @compiled attributes {orchestra.arch = "x86_64", orchestra.kernels = ["k"]} {
}

// CHECK-LABEL: func.func @branch_probes
// CHECK: orchestra.branch_probe 0, %{{.*}}{{$}}
// CHECK: orchestra.branch_probe 1, %{{.*}} to %{{.*}} : memref<8xi64>
func.func @branch_probes(%c: i1, %counters: memref<8xi64>) {
  orchestra.branch_probe 0, %c
  orchestra.branch_probe 1, %c to %counters : memref<8xi64>
  return
}
