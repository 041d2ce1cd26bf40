// RUN: orchestra-opt %s --split-input-file --orchestra-plan-buffers --verify-diagnostics --mlir-print-local-scope | FileCheck %s

// A chain of launches on one device. A value is live from its definition to
// its last reader; the reader's own results never share its bytes. %b reuses
// the argument's bytes (dead after "a"), %c those of %a (dead after "b").
// Sizes are 64-byte aligned; the result lives to the end.

// CHECK-LABEL: func.func @main
// CHECK-SAME:    orchestra.arg_offsets = array<i64: 0>
// CHECK-SAME:    orchestra.plan = {host_dram = {peak = 1024 : i64, total = 1536 : i64}}
// CHECK:         orchestra.launch "a" {{.*}} {orchestra.offsets = array<i64: 256>}
// CHECK:         orchestra.launch "b" {{.*}} {orchestra.offsets = array<i64: 0>}
// CHECK:         orchestra.launch "c" {{.*}} {orchestra.offsets = array<i64: 256>}
// CHECK:         orchestra.launch "d" {{.*}} {orchestra.offsets = array<i64: 512>}
module attributes {orchestra.topology = #orchestra.topology<"host", devices = [#orchestra.device<"cpu0", arch = "x86_64", device_id = 0>]>} {
  orchestra.memory_space @host_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @main(%x: tensor<64xf32>) -> tensor<128xf32> {
    %r = orchestra.schedule -> (tensor<128xf32>) {
      %a = orchestra.launch "a" @k::@a(%x) target = {arch = "x86_64", device_id = 0} : (tensor<64xf32>) -> tensor<64xf32>
      %b = orchestra.launch "b" @k::@b(%a) target = {arch = "x86_64", device_id = 0} : (tensor<64xf32>) -> tensor<64xf32>
      %c = orchestra.launch "c" @k::@c(%b) target = {arch = "x86_64", device_id = 0} : (tensor<64xf32>) -> tensor<64xf32>
      %d = orchestra.launch "d" @k::@d(%c, %b) target = {arch = "x86_64", device_id = 0} : (tensor<64xf32>, tensor<64xf32>) -> tensor<128xf32>
      orchestra.yield %d : tensor<128xf32>
    }
    return %r : tensor<128xf32>
  }
  module @k attributes {orchestra.arch = "x86_64", orchestra.kernels = ["a", "b", "c", "d"]} {
  }
}

// -----

// Values in two memory spaces are planned separately; a constant lives where
// its first reader runs, in its own buffer for the whole run.

// CHECK-LABEL: func.func @two_spaces
// CHECK-SAME:    orchestra.plan = {cpu0_dram = {peak = 64 : i64, total = 128 : i64}, cpu1_dram = {peak = 192 : i64, total = 192 : i64}}
// CHECK:         arith.constant {orchestra.offsets = array<i64: 0>, orchestra.space = @cpu1_dram} dense<1.000000e+00>
// CHECK:         orchestra.transfer {{.*}} {orchestra.offsets = array<i64: 64>}
// CHECK:         orchestra.launch "a" {{.*}} {orchestra.offsets = array<i64: 128>}
// CHECK:         orchestra.transfer {{.*}} {orchestra.offsets = array<i64: 0>}
module attributes {orchestra.topology = #orchestra.topology<"two-cpu", devices = [#orchestra.device<"cpu0", arch = "x86_64", device_id = 0>, #orchestra.device<"cpu1", arch = "x86_64", device_id = 1>]>} {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  orchestra.memory_space @cpu1_dram kind = "dram" arch = "x86_64" device_id = 1
  func.func @two_spaces(%x: tensor<4xf32>) -> tensor<4xf32> {
    %one = arith.constant dense<1.0> : tensor<4xf32>
    %r = orchestra.schedule -> (tensor<4xf32>) {
      %t = orchestra.transfer %x from @cpu0_dram to @cpu1_dram : tensor<4xf32>
      %a = orchestra.launch "a" @k::@a(%t, %one) target = {arch = "x86_64", device_id = 1} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %back = orchestra.transfer %a from @cpu1_dram to @cpu0_dram : tensor<4xf32>
      orchestra.yield %back : tensor<4xf32>
    }
    return %r : tensor<4xf32>
  }
  module @k attributes {orchestra.arch = "x86_64", orchestra.kernels = ["a"]} {
  }
}

// -----

// A constant read in two spaces has a copy in each, for the whole run; each
// launch reads the copy in its own space.

// CHECK-LABEL: func.func @constant_in_two_spaces
// CHECK-DAG:     %[[C0:.*]] = arith.constant {orchestra.offsets = array<i64: {{[0-9]+}}>, orchestra.space = @cpu0_dram} dense<2.000000e+00>
// CHECK-DAG:     %[[C1:.*]] = arith.constant {orchestra.offsets = array<i64: {{[0-9]+}}>, orchestra.space = @cpu1_dram} dense<2.000000e+00>
// CHECK:         orchestra.launch "a" @k::@a(%{{.*}}, %[[C0]])
// CHECK:         orchestra.launch "b" @k::@b(%{{.*}}, %[[C1]])
module attributes {orchestra.topology = #orchestra.topology<"two-cpu", devices = [#orchestra.device<"cpu0", arch = "x86_64", device_id = 0>, #orchestra.device<"cpu1", arch = "x86_64", device_id = 1>]>} {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  orchestra.memory_space @cpu1_dram kind = "dram" arch = "x86_64" device_id = 1
  func.func @constant_in_two_spaces(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %two = arith.constant dense<2.0> : tensor<4xf32>
    %r:2 = orchestra.schedule -> (tensor<4xf32>, tensor<4xf32>) {
      %a = orchestra.launch "a" @k::@a(%x, %two) target = {arch = "x86_64", device_id = 0} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %t = orchestra.transfer %x from @cpu0_dram to @cpu1_dram : tensor<4xf32>
      %b = orchestra.launch "b" @k::@b(%t, %two) target = {arch = "x86_64", device_id = 1} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %back = orchestra.transfer %b from @cpu1_dram to @cpu0_dram : tensor<4xf32>
      orchestra.yield %a, %back : tensor<4xf32>, tensor<4xf32>
    }
    return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
  }
  module @k attributes {orchestra.arch = "x86_64", orchestra.kernels = ["a", "b"]} {
  }
}

// -----

// A space's capacity bounds its peak: @cpu1_dram holds the weight (64 bytes
// once aligned, resident for the whole run) and two 64-byte buffers live at
// once. 192 bytes fit exactly.

// CHECK-LABEL: func.func @fits_capacity
// CHECK-SAME:    cpu1_dram = {peak = 192 : i64, total = 192 : i64}
module attributes {orchestra.topology = #orchestra.topology<"two-cpu", devices = [#orchestra.device<"cpu0", arch = "x86_64", device_id = 0>, #orchestra.device<"cpu1", arch = "x86_64", device_id = 1>]>} {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  orchestra.memory_space @cpu1_dram kind = "dram" arch = "x86_64" device_id = 1 capacity = 192
  func.func @fits_capacity(%x: tensor<4xf32>) -> tensor<4xf32> {
    %one = arith.constant dense<1.0> : tensor<4xf32>
    %r = orchestra.schedule -> (tensor<4xf32>) {
      %t = orchestra.transfer %x from @cpu0_dram to @cpu1_dram : tensor<4xf32>
      %a = orchestra.launch "a" @k::@a(%t, %one) target = {arch = "x86_64", device_id = 1} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %back = orchestra.transfer %a from @cpu1_dram to @cpu0_dram : tensor<4xf32>
      orchestra.yield %back : tensor<4xf32>
    }
    return %r : tensor<4xf32>
  }
  module @k attributes {orchestra.arch = "x86_64", orchestra.kernels = ["a"]} {
  }
}

// -----

// One byte less does not: the plan is refused, naming the space, its
// resident weights and its largest buffer.

module attributes {orchestra.topology = #orchestra.topology<"two-cpu", devices = [#orchestra.device<"cpu0", arch = "x86_64", device_id = 0>, #orchestra.device<"cpu1", arch = "x86_64", device_id = 1>]>} {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  orchestra.memory_space @cpu1_dram kind = "dram" arch = "x86_64" device_id = 1 capacity = 191
  // expected-error @below {{the plan needs 192 bytes of memory space @cpu1_dram (x86_64 device 1), which holds 191 bytes}}
  // expected-note @below {{64 bytes of it are constants (weights) resident there for the whole run}}
  func.func @over_capacity(%x: tensor<4xf32>) -> tensor<4xf32> {
    %one = arith.constant dense<1.0> : tensor<4xf32>
    %r = orchestra.schedule -> (tensor<4xf32>) {
      // expected-note @below {{its largest buffer (16 bytes) is here}}
      %t = orchestra.transfer %x from @cpu0_dram to @cpu1_dram : tensor<4xf32>
      %a = orchestra.launch "a" @k::@a(%t, %one) target = {arch = "x86_64", device_id = 1} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %back = orchestra.transfer %a from @cpu1_dram to @cpu0_dram : tensor<4xf32>
      orchestra.yield %back : tensor<4xf32>
    }
    return %r : tensor<4xf32>
  }
  module @k attributes {orchestra.arch = "x86_64", orchestra.kernels = ["a"]} {
  }
}

// -----

// expected-error @below {{the module has no 'orchestra.topology': the host plan needs a scheduled program (run orchestra-schedule first)}}
module {
  func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %r = orchestra.schedule -> (tensor<4xf32>) {
      %t = orchestra.transfer %x from @a to @a : tensor<4xf32>
      orchestra.yield %t : tensor<4xf32>
    }
    return %r : tensor<4xf32>
  }
  orchestra.memory_space @a kind = "dram" arch = "x86_64" device_id = 0
}

// -----

module attributes {orchestra.topology = #orchestra.topology<"two-cpu", devices = [#orchestra.device<"cpu0", arch = "x86_64", device_id = 0>, #orchestra.device<"cpu1", arch = "x86_64", device_id = 1>]>} {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  orchestra.memory_space @cpu1_dram kind = "dram" arch = "x86_64" device_id = 1
  func.func @missing_transfer(%x: tensor<4xf32>) -> tensor<4xf32> {
    %r = orchestra.schedule -> (tensor<4xf32>) {
      // expected-error @below {{reads operand #0 in @cpu1_dram but it lives in @cpu0_dram (insert an orchestra.transfer)}}
      %a = orchestra.launch "a" @k::@a(%x) target = {arch = "x86_64", device_id = 1} : (tensor<4xf32>) -> tensor<4xf32>
      orchestra.yield %a : tensor<4xf32>
    }
    return %r : tensor<4xf32>
  }
  module @k attributes {orchestra.arch = "x86_64", orchestra.kernels = ["a"]} {
  }
}

// -----

// A commit (a select step) reads its values wherever they live and puts its
// results where their first reader reads them: @r in host memory (the
// schedule's result), @s in @cpu1_dram (launch "b" there). The values stay
// live until the commit.

// CHECK-LABEL: func.func @commits
// CHECK:         orchestra.launch "a" {{.*}} {orchestra.offsets = array<i64: 64>}
// CHECK:         orchestra.commit {{.*}} {orchestra.offsets = array<i64: 128>, orchestra.space = @cpu0_dram}
// CHECK:         orchestra.commit {{.*}} {orchestra.offsets = array<i64: 128>, orchestra.space = @cpu1_dram}
// CHECK:         orchestra.launch "b" {{.*}} {orchestra.offsets = array<i64: 0>}
module attributes {orchestra.topology = #orchestra.topology<"two-cpu", devices = [#orchestra.device<"cpu0", arch = "x86_64", device_id = 0>, #orchestra.device<"cpu1", arch = "x86_64", device_id = 1>]>} {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0
  orchestra.memory_space @cpu1_dram kind = "dram" arch = "x86_64" device_id = 1
  func.func @commits(%c: tensor<i1>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %r:2 = orchestra.schedule -> (tensor<4xf32>, tensor<4xf32>) {
      %t = orchestra.transfer %x from @cpu0_dram to @cpu1_dram : tensor<4xf32>
      %a = orchestra.launch "a" @k::@a(%t) target = {arch = "x86_64", device_id = 1} : (tensor<4xf32>) -> tensor<4xf32>
      %r = orchestra.commit %c : tensor<i1> true(%x) false(%a) : tensor<4xf32>
      %s = orchestra.commit %c : tensor<i1> true(%a) false(%t) : tensor<4xf32>
      %b = orchestra.launch "b" @k::@b(%s) target = {arch = "x86_64", device_id = 1} : (tensor<4xf32>) -> tensor<4xf32>
      %back = orchestra.transfer %b from @cpu1_dram to @cpu0_dram : tensor<4xf32>
      orchestra.yield %r, %back : tensor<4xf32>, tensor<4xf32>
    }
    return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
  }
  module @k attributes {orchestra.arch = "x86_64", orchestra.kernels = ["a", "b"]} {
  }
}

// -----

// A commit's result takes its true value's slot when only the commit reads
// that value in the same space (a select then copies on false only); a true
// value read by another op keeps its own slot.

// CHECK-LABEL: func.func @commit_shares_slot
// CHECK:         orchestra.launch "a" {{.*}} {orchestra.offsets = array<i64: [[A:[0-9]+]]>}
// CHECK:         orchestra.launch "b" {{.*}} {orchestra.offsets = array<i64: [[B:[0-9]+]]>}
// CHECK:         orchestra.commit {{.*}} {orchestra.offsets = array<i64: [[A]]>, orchestra.space = @host_dram}
// CHECK:         orchestra.commit {{.*}} {orchestra.offsets = array<i64: {{[0-9]+}}>, orchestra.space = @host_dram}
// CHECK-NOT:     array<i64: [[B]]>, orchestra.space
module attributes {orchestra.topology = #orchestra.topology<"host", devices = [#orchestra.device<"cpu0", arch = "x86_64", device_id = 0>]>} {
  orchestra.memory_space @host_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @commit_shares_slot(%c: tensor<i1>, %x: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
    %r:3 = orchestra.schedule -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) {
      %a = orchestra.launch "a" @k::@a(%x) target = {arch = "x86_64", device_id = 0} : (tensor<16xf32>) -> tensor<16xf32>
      %b = orchestra.launch "b" @k::@b(%x) target = {arch = "x86_64", device_id = 0} : (tensor<16xf32>) -> tensor<16xf32>
      %p = orchestra.commit %c : tensor<i1> true(%a) false(%x) : tensor<16xf32>
      %q = orchestra.commit %c : tensor<i1> true(%b) false(%x) : tensor<16xf32>
      orchestra.yield %p, %q, %b : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
    }
    return %r#0, %r#1, %r#2 : tensor<16xf32>, tensor<16xf32>, tensor<16xf32>
  }
  module @k attributes {orchestra.arch = "x86_64", orchestra.kernels = ["a", "b"]} {
  }
}

// -----

// Dynamic sizes (design/0017): a launch's result sizes come from its kernel
// (here batch * 2, through the collapse), each buffer is held at its upper
// bound (batch <= 8: 8x2x4 and 16x4 floats) and the sizes are recorded as
// expressions in the dims for the runtime.

// CHECK-LABEL: func.func @dynamic
// CHECK-SAME:    orchestra.arg_shapes = [affine_map<()[s0] -> (s0, 2, 4)>]
// CHECK-SAME:    orchestra.plan = {host_dram = {peak = 512 : i64, total = 512 : i64}}
// CHECK:         orchestra.launch "a" {{.*}} {orchestra.offsets = array<i64: 256>, orchestra.shapes = [affine_map<()[s0] -> (s0 * 2, 4)>]}
module attributes {orchestra.topology = #orchestra.topology<"host", devices = [#orchestra.device<"cpu0", arch = "x86_64", device_id = 0>]>} {
  orchestra.memory_space @host_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @dynamic(%x: tensor<?x2x4xf32> {orchestra.dim_names = ["batch", "", ""]}) -> tensor<?x4xf32>
      attributes {orchestra.dims = {batch = array<i64: 1, 8, 8>}} {
    %r = orchestra.schedule -> (tensor<?x4xf32>) {
      %a = orchestra.launch "a" @k::@a(%x) target = {arch = "x86_64", device_id = 0} : (tensor<?x2x4xf32>) -> tensor<?x4xf32>
      orchestra.yield %a : tensor<?x4xf32>
    }
    return %r : tensor<?x4xf32>
  }
  module @k attributes {orchestra.arch = "x86_64"} {
    func.func @a(%x: tensor<?x2x4xf32>) -> tensor<?x4xf32> {
      %c = tensor.collapse_shape %x [[0, 1], [2]] : tensor<?x2x4xf32> into tensor<?x4xf32>
      return %c : tensor<?x4xf32>
    }
  }
}

// -----

// A result whose size its kernel takes from data cannot be planned.

module attributes {orchestra.topology = #orchestra.topology<"host", devices = [#orchestra.device<"cpu0", arch = "x86_64", device_id = 0>]>} {
  orchestra.memory_space @host_dram kind = "dram" arch = "x86_64" device_id = 0
  func.func @data_size(%x: tensor<?xf32> {orchestra.dim_names = ["batch"]}, %k: tensor<index>) -> tensor<?xf32>
      attributes {orchestra.dims = {batch = array<i64: 1, 8, 8>}} {
    %r = orchestra.schedule -> (tensor<?xf32>) {
      // expected-error @below {{'orchestra.launch' op result #0 has a dynamic size that kernel @b does not compute from its arguments' sizes}}
      %b = orchestra.launch "b" @k::@b(%x, %k) target = {arch = "x86_64", device_id = 0} : (tensor<?xf32>, tensor<index>) -> tensor<?xf32>
      orchestra.yield %b : tensor<?xf32>
    }
    return %r : tensor<?xf32>
  }
  module @k attributes {orchestra.arch = "x86_64"} {
    func.func @b(%x: tensor<?xf32>, %k: tensor<index>) -> tensor<?xf32> {
      %n = tensor.extract %k[] : tensor<index>
      %e = tensor.empty(%n) : tensor<?xf32>
      return %e : tensor<?xf32>
    }
  }
}
