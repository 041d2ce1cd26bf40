// RUN: orchestra-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// orchestra.memory_space
//===----------------------------------------------------------------------===//

// expected-error @+1 {{'device_id' must be non-negative, got -1}}
orchestra.memory_space @m kind = "dram" arch = "x86_64" device_id = -1

// -----

// expected-error @+1 {{'capacity' must be a positive number of bytes, got 0}}
orchestra.memory_space @m kind = "dram" arch = "x86_64" device_id = 0 capacity = 0

// -----

// expected-error @+1 {{unknown arch "x86"; did you mean "x86_64"? known archs: amd_cdna3, aws_trainium2, google_tpu_v5e, nvidia_blackwell, nvidia_hopper, x86_64}}
orchestra.memory_space @m kind = "dram" arch = "x86" device_id = 0

// -----

// expected-error @+1 {{memory space kind "lds" is not provided by arch "nvidia_hopper"; it provides: hbm (device), shared (kernel)}}
orchestra.memory_space @m kind = "lds" arch = "nvidia_hopper" device_id = 0

//===----------------------------------------------------------------------===//
// orchestra.schedule
//===----------------------------------------------------------------------===//

// -----

func.func @schedule_without_yield() {
  // expected-error @+1 {{body must end with 'orchestra.yield'}}
  orchestra.schedule {
    llvm.unreachable
  }
  return
}

// -----

func.func @schedule_with_arguments() -> i32 {
  // expected-error @+1 {{body must not have arguments; a schedule uses the values of its enclosing region directly}}
  %r = orchestra.schedule -> (i32) {
  ^bb0(%a: i32):
    orchestra.yield %a : i32
  }
  return %r : i32
}

// -----

func.func @schedule_in_task(%x: tensor<4xf32>) {
  orchestra.schedule {
    %t = orchestra.task "outer" args(%v = %x : tensor<4xf32>) -> (tensor<4xf32>)
        target = {arch = "x86_64", device_id = 0} {
      // expected-error @+1 {{cannot be nested inside an 'orchestra.task': a task runs on one device}}
      %r = orchestra.schedule -> (tensor<4xf32>) {
        orchestra.yield %v : tensor<4xf32>
      }
      orchestra.yield %r : tensor<4xf32>
    }
    orchestra.yield
  }
  return
}

// -----

func.func @schedule_yield_count(%x: tensor<4xf32>) {
  %r = orchestra.schedule -> (tensor<4xf32>) {
    // expected-error @+1 {{returns 0 values but its 'orchestra.schedule' parent has 1 results}}
    orchestra.yield
  }
  return
}

// -----

func.func @schedule_yield_type(%x: tensor<4xf32>) {
  %r = orchestra.schedule -> (tensor<8xf32>) {
    // expected-error @+1 {{value #0 has type 'tensor<4xf32>' but result #0 of the parent 'orchestra.schedule' has type 'tensor<8xf32>'}}
    orchestra.yield %x : tensor<4xf32>
  }
  return
}

// -----

func.func @computation_outside_task(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-note @+1 {{enclosing schedule}}
  %r = orchestra.schedule -> (tensor<4xf32>) {
    // expected-error @+1 {{'arith.addf' op cannot appear directly in an 'orchestra.schedule'; only 'orchestra.task', 'orchestra.transfer', 'orchestra.commit' and constants can (computation belongs inside a task)}}
    %y = arith.addf %x, %x : tensor<4xf32>
    orchestra.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

func.func @duplicate_task_names(%x: tensor<4xf32>) {
  orchestra.schedule {
    // expected-note @+1 {{first task with this name}}
    %a = orchestra.task "t" args(%v = %x : tensor<4xf32>) -> (tensor<4xf32>)
        target = {arch = "x86_64", device_id = 0} {
      orchestra.yield %v : tensor<4xf32>
    }
    // expected-error @+1 {{has the name "t" of another task in the schedule; task names must be unique}}
    %b = orchestra.task "t" args(%v = %x : tensor<4xf32>) -> (tensor<4xf32>)
        target = {arch = "x86_64", device_id = 1} {
      orchestra.yield %v : tensor<4xf32>
    }
    orchestra.yield
  }
  return
}

//===----------------------------------------------------------------------===//
// orchestra.task: structure
//===----------------------------------------------------------------------===//

// -----

func.func @task_outside_schedule() {
  // expected-error @+1 {{expects parent op 'orchestra.schedule'}}
  orchestra.task "t" target = {arch = "x86_64", device_id = 0} {
    orchestra.yield
  }
  return
}

// -----

func.func @task_empty_name() {
  orchestra.schedule {
    // expected-error @+1 {{requires a non-empty 'name'}}
    orchestra.task "" target = {arch = "x86_64", device_id = 0} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @task_arg_count(%x: tensor<4xf32>) {
  orchestra.schedule {
    // expected-error @+1 {{body has 0 arguments but the task has 1 operands}}
    "orchestra.task"(%x) <{name = "t", target = {arch = "x86_64", device_id = 0}}> ({
      "orchestra.yield"() : () -> ()
    }) : (tensor<4xf32>) -> ()
    orchestra.yield
  }
  return
}

// -----

func.func @task_arg_type(%x: tensor<4xf32>) {
  orchestra.schedule {
    // expected-error @+1 {{body argument #0 has type 'tensor<8xf32>' but operand #0 has type 'tensor<4xf32>'}}
    "orchestra.task"(%x) <{name = "t", target = {arch = "x86_64", device_id = 0}}> ({
    ^bb0(%v: tensor<8xf32>):
      "orchestra.yield"() : () -> ()
    }) : (tensor<4xf32>) -> ()
    orchestra.yield
  }
  return
}

// -----

func.func @task_without_yield() {
  orchestra.schedule {
    // expected-error @+1 {{body must end with 'orchestra.yield'}}
    orchestra.task "t" target = {arch = "x86_64", device_id = 0} {
      llvm.unreachable
    }
    orchestra.yield
  }
  return
}

// -----

func.func @task_yield_type(%x: tensor<4xf32>) {
  orchestra.schedule {
    %t = orchestra.task "t" args(%v = %x : tensor<4xf32>) -> (tensor<4xi32>)
        target = {arch = "x86_64", device_id = 0} {
      // expected-error @+1 {{value #0 has type 'tensor<4xf32>' but result #0 of the parent 'orchestra.task' has type 'tensor<4xi32>'}}
      orchestra.yield %v : tensor<4xf32>
    }
    orchestra.yield
  }
  return
}

// -----

func.func @task_not_isolated(%x: tensor<4xf32>) {
  orchestra.schedule {
    // expected-note @+1 {{required by region isolation constraints}}
    %t = orchestra.task "t" -> (tensor<4xf32>) target = {arch = "x86_64", device_id = 0} {
      // expected-error @+1 {{using value defined outside the region}}
      %y = arith.addf %x, %x : tensor<4xf32>
      orchestra.yield %y : tensor<4xf32>
    }
    orchestra.yield
  }
  return
}

//===----------------------------------------------------------------------===//
// orchestra.task: properties
//===----------------------------------------------------------------------===//

// -----

func.func @nki_on_wrong_arch() {
  orchestra.schedule {
    // expected-error @+1 {{'nki_source' is only valid on archs that accept NKI kernels (aws_trainium2), not "nvidia_hopper"}}
    orchestra.task "t" target = {arch = "nvidia_hopper", device_id = 0}
        attributes {nki_source = "def k(): pass"} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @nki_empty() {
  orchestra.schedule {
    // expected-error @+1 {{'nki_source' must not be empty}}
    orchestra.task "t" target = {arch = "aws_trainium2", device_id = 0}
        attributes {nki_source = "  \n"} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @prediction_half() {
  orchestra.schedule {
    // expected-error @+1 {{'predicted_start' and 'predicted_finish' must be given together}}
    orchestra.task "t" target = {arch = "x86_64", device_id = 0}
        attributes {predicted_start = 1.0} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @prediction_negative() {
  orchestra.schedule {
    // expected-error @+1 {{predicted times must be finite and non-negative}}
    orchestra.task "t" target = {arch = "x86_64", device_id = 0}
        attributes {predicted_start = -1.0, predicted_finish = 2.0} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @prediction_backwards() {
  orchestra.schedule {
    // expected-error @+1 {{'predicted_finish' (1.000000e+00) is before 'predicted_start' (2.000000e+00)}}
    orchestra.task "t" target = {arch = "x86_64", device_id = 0}
        attributes {predicted_start = 2.0, predicted_finish = 1.0} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @prediction_mistyped() {
  orchestra.schedule {
    // expected-error @+2 {{attribute 'predicted_finish' failed to satisfy constraint: 64-bit float attribute}}
    orchestra.task "t" target = {arch = "x86_64", device_id = 0}
        attributes {predicted_start = 1, predicted_finish = 2} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @nki_source_mistyped() {
  orchestra.schedule {
    // expected-error @+2 {{attribute 'nki_source' failed to satisfy constraint: string attribute}}
    orchestra.task "t" target = {arch = "aws_trainium2", device_id = 0}
        attributes {nki_source = 5} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @asm_on_wrong_arch() {
  orchestra.schedule {
    // expected-error @+1 {{'asm_kernel' is only valid on archs that take assembly kernels (amd_cdna3 (GCN), nvidia_blackwell (PTX), nvidia_hopper (PTX)), not "x86_64"}}
    orchestra.task "t" target = {arch = "x86_64", device_id = 0}
        attributes {asm_kernel = {source = "x", entry = "k", grid = [1], block = [1]}} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @asm_missing_entry() {
  orchestra.schedule {
    // expected-error @+1 {{'asm_kernel': 'entry' must be a non-empty string}}
    orchestra.task "t" target = {arch = "nvidia_hopper", device_id = 0}
        attributes {asm_kernel = {source = "x", grid = [1], block = [1]}} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @asm_unknown_key() {
  orchestra.schedule {
    // expected-error @+1 {{'asm_kernel': unknown key 'threads' (expected source, entry, grid, block, shared_bytes)}}
    orchestra.task "t" target = {arch = "amd_cdna3", device_id = 0}
        attributes {asm_kernel = {source = "x", entry = "k", grid = [1], block = [1], threads = 4}} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @asm_grid_zero() {
  orchestra.schedule {
    // expected-error @+1 {{'asm_kernel': 'grid' sizes must be positive 32-bit integers, got 0 : i64}}
    orchestra.task "t" target = {arch = "amd_cdna3", device_id = 0}
        attributes {asm_kernel = {source = "x", entry = "k", grid = [0], block = [1]}} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @asm_grid_bool() {
  orchestra.schedule {
    // expected-error @+1 {{'asm_kernel': 'grid' sizes must be positive 32-bit integers, got true}}
    orchestra.task "t" target = {arch = "amd_cdna3", device_id = 0}
        attributes {asm_kernel = {source = "x", entry = "k", grid = [4 : ui32, true], block = [1]}} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @asm_block_rank() {
  orchestra.schedule {
    // expected-error @+1 {{'asm_kernel': 'block' must be a list of one to three sizes}}
    orchestra.task "t" target = {arch = "amd_cdna3", device_id = 0}
        attributes {asm_kernel = {source = "x", entry = "k", grid = [1], block = [1, 1, 1, 1]}} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

func.func @asm_shared_negative() {
  orchestra.schedule {
    // expected-error @+1 {{'asm_kernel': 'shared_bytes' must be a non-negative 32-bit integer, got -1 : i64}}
    orchestra.task "t" target = {arch = "nvidia_hopper", device_id = 0}
        attributes {asm_kernel = {source = "x", entry = "k", grid = [1], block = [1], shared_bytes = -1}} {
      orchestra.yield
    }
    orchestra.yield
  }
  return
}

// -----

//===----------------------------------------------------------------------===//
// orchestra.transfer
//===----------------------------------------------------------------------===//

// -----

orchestra.memory_space @host kind = "dram" arch = "x86_64" device_id = 0
orchestra.memory_space @gpu kind = "hbm" arch = "nvidia_hopper" device_id = 0

func.func @transfer_mixed(%m: memref<4xf32>) {
  // expected-error @+1 {{source and result must both be tensors or both be memrefs, got 'memref<4xf32>' and 'tensor<4xf32>'}}
  %t = orchestra.transfer %m from @host to @gpu : memref<4xf32> -> tensor<4xf32>
  return
}

// -----

orchestra.memory_space @host kind = "dram" arch = "x86_64" device_id = 0
orchestra.memory_space @gpu kind = "hbm" arch = "nvidia_hopper" device_id = 0

func.func @transfer_tensor_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{a tensor transfer keeps the type of its source ('tensor<4xf32>'), but the result has type 'tensor<4xf16>'}}
  %t = orchestra.transfer %x from @host to @gpu : tensor<4xf32> -> tensor<4xf16>
  return
}

// -----

orchestra.memory_space @host kind = "dram" arch = "x86_64" device_id = 0
orchestra.memory_space @gpu kind = "hbm" arch = "nvidia_hopper" device_id = 0

func.func @transfer_memref_shape(%m: memref<4xf32>) {
  // expected-error @+1 {{a memref transfer may change only the memory space of its source ('memref<4xf32>'), but the result has type 'memref<8xf32, 1>'}}
  %t = orchestra.transfer %m from @host to @gpu : memref<4xf32> -> memref<8xf32, 1>
  return
}

// -----

orchestra.memory_space @host kind = "dram" arch = "x86_64" device_id = 0
orchestra.memory_space @gpu kind = "hbm" arch = "nvidia_hopper" device_id = 0
orchestra.memory_space @gpu1 kind = "hbm" arch = "nvidia_hopper" device_id = 1

func.func @transfer_chain(%x: tensor<4xf32>) {
  %a = orchestra.transfer %x from @host to @gpu : tensor<4xf32>
  // expected-error @+1 {{moves its source from @gpu1, but the source was transferred to @gpu}}
  %b = orchestra.transfer %a from @gpu1 to @host : tensor<4xf32>
  return
}

// -----

orchestra.memory_space @host kind = "dram" arch = "x86_64" device_id = 0

func.func @transfer_undeclared(%x: tensor<4xf32>) {
  // expected-error @+1 {{'to' names @gpu0_hbm, which is not declared (declare it with 'orchestra.memory_space')}}
  %t = orchestra.transfer %x from @host to @gpu0_hbm : tensor<4xf32>
  return
}

// -----

orchestra.memory_space @host kind = "dram" arch = "x86_64" device_id = 0

func.func @transfer_not_a_space(%x: tensor<4xf32>) {
  // expected-error @+1 {{'from' names @transfer_not_a_space, which is a 'func.func', not an 'orchestra.memory_space'}}
  %t = orchestra.transfer %x from @transfer_not_a_space to @host : tensor<4xf32>
  return
}

// -----

orchestra.memory_space @gpu kind = "hbm" arch = "nvidia_hopper" device_id = 0
orchestra.memory_space @smem kind = "shared" arch = "nvidia_hopper" device_id = 0

func.func @transfer_kernel_space_between_tasks(%x: tensor<4xf32>) {
  orchestra.schedule {
    // expected-error @+1 {{'to' names @smem, a kernel-scope memory space ("shared" of "nvidia_hopper"); only transfers inside a task body can name it}}
    %t = orchestra.transfer %x from @gpu to @smem : tensor<4xf32>
    orchestra.yield
  }
  return
}

// -----

orchestra.memory_space @host kind = "dram" arch = "x86_64" device_id = 0
orchestra.memory_space @smem kind = "shared" arch = "nvidia_hopper" device_id = 0

func.func @transfer_kernel_space_outside_tasks(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'from' names @smem, a kernel-scope memory space ("shared" of "nvidia_hopper"); only transfers inside a task body can name it}}
  %r = orchestra.transfer %x from @smem to @host : tensor<4xf32>
  return %r : tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// orchestra.commit
//===----------------------------------------------------------------------===//

// -----

func.func @commit_num_true_range(%c: i1, %a: tensor<4xf32>) {
  // expected-error @+1 {{'num_true' is 3 but there are 1 values}}
  "orchestra.commit"(%c, %a) <{num_true = 3 : i64}> : (i1, tensor<4xf32>) -> ()
  return
}

// -----

func.func @commit_unbalanced(%c: i1, %a: tensor<4xf32>) {
  // expected-error @+1 {{the true list has 1 values but the false list has 0}}
  "orchestra.commit"(%c, %a) <{num_true = 1 : i64}> : (i1, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @commit_result_count(%c: i1, %a: tensor<4xf32>) {
  // expected-error @+1 {{has 0 results but each list has 1 values}}
  "orchestra.commit"(%c, %a, %a) <{num_true = 1 : i64}> : (i1, tensor<4xf32>, tensor<4xf32>) -> ()
  return
}

// -----

func.func @commit_types(%c: i1, %a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{result #0 has type 'tensor<4xf32>' but its true value has type 'tensor<4xf32>' and its false value has type 'tensor<4xi32>'}}
  "orchestra.commit"(%c, %a, %b) <{num_true = 1 : i64}> : (i1, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @commit_parse_lists(%c: i1, %a: tensor<4xf32>) {
  // expected-error @+1 {{expected 1 values in each list (one per type), got 2 true and 1 false values}}
  %r = orchestra.commit %c true(%a, %a) false(%a) : tensor<4xf32>
  return
}

// -----

func.func @commit_condition_type(%c: tensor<1xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be 1-bit signless integer or 0D tensor of 1-bit signless integer values, but got 'tensor<1xi1>'}}
  %r = orchestra.commit %c : tensor<1xi1> true(%a) false(%a) : tensor<4xf32>
  return
}

//===----------------------------------------------------------------------===//
// orchestra.yield
//===----------------------------------------------------------------------===//

// -----

func.func @yield_outside() {
  // expected-error @+1 {{expects parent op to be one of 'orchestra.schedule, orchestra.task'}}
  orchestra.yield
}

//===----------------------------------------------------------------------===//
// orchestra.launch
//===----------------------------------------------------------------------===//

func.func @launch_flat_symbol(%x: tensor<4xf32>) {
  // expected-error @below {{'kernel' must be a nested symbol @<kernel module>::@<function>, got @k}}
  %a = orchestra.launch "a" @k(%x) target = {arch = "x86_64", device_id = 0} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @launch_empty_name(%x: tensor<4xf32>) {
  // expected-error @below {{requires a non-empty 'name'}}
  %a = orchestra.launch "" @m::@k(%x) target = {arch = "x86_64", device_id = 0} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @launch_bad_target(%x: tensor<4xf32>) {
  // expected-error @below {{unknown arch "x86"}}
  %a = orchestra.launch "a" @m::@k(%x) target = {arch = "x86", device_id = 0} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @launch_half_prediction(%x: tensor<4xf32>) {
  // expected-error @below {{'predicted_start' and 'predicted_finish' must be given together}}
  %a = orchestra.launch "a" @m::@k(%x) target = {arch = "x86_64", device_id = 0} {predicted_start = 1.0 : f64} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @launch_no_module(%x: tensor<4xf32>) {
  // expected-error @below {{'kernel' names the kernel module @m, which is not a 'builtin.module' of the module}}
  %a = orchestra.launch "a" @m::@k(%x) target = {arch = "x86_64", device_id = 0} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

module @m {
}
func.func @launch_no_function(%x: tensor<4xf32>) {
  // expected-error @below {{kernel @m::@k does not exist}}
  %a = orchestra.launch "a" @m::@k(%x) target = {arch = "x86_64", device_id = 0} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

module @m {
  func.func @k(%v: tensor<8xf32>) -> tensor<8xf32> {
    return %v : tensor<8xf32>
  }
}
func.func @launch_type_mismatch(%x: tensor<4xf32>) {
  // expected-error @below {{operand and result types do not match the signature of kernel @m::@k ('(tensor<8xf32>) -> tensor<8xf32>')}}
  %a = orchestra.launch "a" @m::@k(%x) target = {arch = "x86_64", device_id = 0} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

module @m attributes {orchestra.kernels = ["other"]} {
}
func.func @launch_not_exported(%x: tensor<4xf32>) {
  // expected-error @below {{kernel @k is not exported by the compiled kernel module @m}}
  %a = orchestra.launch "a" @m::@k(%x) target = {arch = "x86_64", device_id = 0} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @probe_counters_too_small(%c: i1, %counters: memref<4xi64>) {
  // expected-error @below {{'orchestra.branch_probe' op counts branch 1, which needs 8 counters, in a buffer of 4}}
  orchestra.branch_probe 1, %c to %counters : memref<4xi64>
  return
}
