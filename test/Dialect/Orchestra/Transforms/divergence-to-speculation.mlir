// RUN: orchestra-opt %s -split-input-file -divergence-to-speculation=all | FileCheck %s

// CHECK-LABEL: func.func @speculate
// CHECK-SAME: (%[[COND:.*]]: i1, %[[X:.*]]: tensor<4xf32>, %[[Y:.*]]: tensor<4xf32>)
func.func @speculate(%cond: i1, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %r = orchestra.schedule -> (tensor<4xf32>) {
    // Each side takes only the operands it uses (not the condition).
    // CHECK: %[[THEN:.*]] = orchestra.task "pick.then" args(%[[A:.*]] = %[[X]] : tensor<4xf32>) -> tensor<4xf32>
    // CHECK-SAME: target = {arch = "x86_64", device_id = 0} attributes {my.tag = 1} {
    // CHECK-NEXT:   %[[E:.*]] = math.exp %[[A]] : tensor<4xf32>
    // CHECK-NEXT:   orchestra.yield %[[E]] : tensor<4xf32>
    // CHECK: %[[ELSE:.*]] = orchestra.task "pick.else" args(%[[B:.*]] = %[[X]] : tensor<4xf32>, %[[C:.*]] = %[[Y]] : tensor<4xf32>) -> tensor<4xf32>
    // CHECK-SAME: target = {arch = "x86_64", device_id = 0} attributes {my.tag = 1} {
    // CHECK-NEXT:   %[[S:.*]] = arith.subf %[[B]], %[[C]] : tensor<4xf32>
    // CHECK-NEXT:   orchestra.yield %[[S]] : tensor<4xf32>
    // CHECK: %[[R:.*]] = orchestra.commit %[[COND]] true(%[[THEN]]) false(%[[ELSE]]) : tensor<4xf32>
    // CHECK-NOT: orchestra.task "pick"
    // CHECK: orchestra.yield %[[R]] : tensor<4xf32>
    %t = orchestra.task "pick" args(%c = %cond : i1, %a = %x : tensor<4xf32>, %b = %y : tensor<4xf32>)
        -> (tensor<4xf32>) target = {arch = "x86_64", device_id = 0}
        attributes {predicted_start = 0.0, predicted_finish = 2.0, my.tag = 1} {
      %v = scf.if %c -> (tensor<4xf32>) {
        %e = math.exp %a : tensor<4xf32>
        scf.yield %e : tensor<4xf32>
      } else {
        %s = arith.subf %a, %b : tensor<4xf32>
        scf.yield %s : tensor<4xf32>
      }
      orchestra.yield %v : tensor<4xf32>
    }
    orchestra.yield %t : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Several results, yielded in another order and twice; a pure op before the
// branch is copied into the side that needs it; the side names avoid a task
// that already exists; the sides come as early as their operands allow
// (here before that task).
// CHECK-LABEL: func.func @multi_result
func.func @multi_result(%cond: i1, %x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %r:4 = orchestra.schedule -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
    %o = orchestra.task "other.then" args(%a = %x : tensor<8xf32>) -> (tensor<8xf32>)
        target = {arch = "nvidia_hopper", device_id = 0} {
      orchestra.yield %a : tensor<8xf32>
    }
    // CHECK: %[[THEN:.*]]:2 = orchestra.task "other.then.1"
    // CHECK:   arith.constant dense<2.000000e+00>
    // CHECK:   arith.mulf
    // CHECK: %[[ELSE:.*]]:2 = orchestra.task "other.else"
    // CHECK-NOT: arith.constant
    // CHECK: orchestra.task "other.then" args
    // CHECK: %[[R:.*]]:2 = orchestra.commit %{{.*}} true(%[[THEN]]#0, %[[THEN]]#1) false(%[[ELSE]]#0, %[[ELSE]]#1) : tensor<8xf32>, tensor<8xf32>
    // CHECK: orchestra.yield %[[R]]#1, %[[R]]#0, %[[R]]#1, %{{.*}}
    %p:3 = orchestra.task "other" args(%c = %cond : i1, %a = %x : tensor<8xf32>)
        -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
        target = {arch = "nvidia_hopper", device_id = 0, tma = true} {
      %two = arith.constant dense<2.0> : tensor<8xf32>
      %v:2 = scf.if %c -> (tensor<8xf32>, tensor<8xf32>) {
        %m = arith.mulf %a, %two : tensor<8xf32>
        scf.yield %m, %a : tensor<8xf32>, tensor<8xf32>
      } else {
        scf.yield %a, %a : tensor<8xf32>, tensor<8xf32>
      }
      orchestra.yield %v#1, %v#0, %v#1 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
    }
    orchestra.yield %p#0, %p#1, %p#2, %o : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// -----

// A linalg computation on each side is speculatable.
// CHECK-LABEL: func.func @linalg_sides
// CHECK: orchestra.task "mm.then"
// CHECK: linalg.matmul
// CHECK: orchestra.task "mm.else"
// CHECK: linalg.generic
// CHECK: orchestra.commit
func.func @linalg_sides(%cond: i1, %a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = orchestra.schedule -> (tensor<4x4xf32>) {
    %t = orchestra.task "mm" args(%c = %cond : i1, %x = %a : tensor<4x4xf32>, %y = %b : tensor<4x4xf32>)
        -> (tensor<4x4xf32>) target = {arch = "x86_64", device_id = 0} {
      %v = scf.if %c -> (tensor<4x4xf32>) {
        %m = linalg.matmul ins(%x, %y : tensor<4x4xf32>, tensor<4x4xf32>) outs(%x : tensor<4x4xf32>) -> tensor<4x4xf32>
        scf.yield %m : tensor<4x4xf32>
      } else {
        %g = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>],
                             iterator_types = ["parallel", "parallel"]}
            ins(%x : tensor<4x4xf32>) outs(%y : tensor<4x4xf32>) {
        ^bb0(%in: f32, %out: f32):
          linalg.yield %in : f32
        } -> tensor<4x4xf32>
        scf.yield %g : tensor<4x4xf32>
      }
      orchestra.yield %v : tensor<4x4xf32>
    }
    orchestra.yield %t : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// Does not apply: an integer division guarded by the branch may trap when run
// on the untaken side.
// CHECK-LABEL: func.func @not_speculatable
// CHECK: orchestra.task "div"
// CHECK: scf.if
// CHECK-NOT: orchestra.commit
func.func @not_speculatable(%x: tensor<4xi32>, %d: i32) -> tensor<4xi32> {
  %r = orchestra.schedule -> (tensor<4xi32>) {
    %nz = orchestra.task "test" args(%v = %d : i32) -> (i1) target = {arch = "x86_64", device_id = 0} {
      %zero = arith.constant 0 : i32
      %ne = arith.cmpi ne, %v, %zero : i32
      orchestra.yield %ne : i1
    }
    %t = orchestra.task "div" args(%c = %nz : i1, %a = %x : tensor<4xi32>, %b = %d : i32)
        -> (tensor<4xi32>) target = {arch = "x86_64", device_id = 0} {
      %v = scf.if %c -> (tensor<4xi32>) {
        %s = tensor.splat %b : tensor<4xi32>
        %q = arith.divsi %a, %s : tensor<4xi32>
        scf.yield %q : tensor<4xi32>
      } else {
        scf.yield %a : tensor<4xi32>
      }
      orchestra.yield %v : tensor<4xi32>
    }
    orchestra.yield %t : tensor<4xi32>
  }
  return %r : tensor<4xi32>
}

// -----

// Does not apply: a side writes memory.
// CHECK-LABEL: func.func @side_effect
// CHECK: scf.if
// CHECK-NOT: orchestra.commit
func.func @side_effect(%cond: i1, %m: memref<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = orchestra.schedule -> (tensor<4xf32>) {
    %t = orchestra.task "store" args(%c = %cond : i1, %buf = %m : memref<4xf32>, %a = %x : tensor<4xf32>)
        -> (tensor<4xf32>) target = {arch = "x86_64", device_id = 0} {
      %v = scf.if %c -> (tensor<4xf32>) {
        %i = arith.constant 0 : index
        %f = arith.constant 1.0 : f32
        memref.store %f, %buf[%i] : memref<4xf32>
        scf.yield %a : tensor<4xf32>
      } else {
        scf.yield %a : tensor<4xf32>
      }
      orchestra.yield %v : tensor<4xf32>
    }
    orchestra.yield %t : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Does not apply: the condition is computed inside the task, so the commit
// could not see it.
// CHECK-LABEL: func.func @condition_inside
// CHECK: scf.if
// CHECK-NOT: orchestra.commit
func.func @condition_inside(%x: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  %r = orchestra.schedule -> (tensor<4xf32>) {
    %t = orchestra.task "cond" args(%a = %x : tensor<4xf32>, %v = %s : f32) -> (tensor<4xf32>)
        target = {arch = "x86_64", device_id = 0} {
      %zero = arith.constant 0.0 : f32
      %c = arith.cmpf ogt, %v, %zero : f32
      %w = scf.if %c -> (tensor<4xf32>) {
        %n = arith.negf %a : tensor<4xf32>
        scf.yield %n : tensor<4xf32>
      } else {
        scf.yield %a : tensor<4xf32>
      }
      orchestra.yield %w : tensor<4xf32>
    }
    orchestra.yield %t : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Does not apply: the task yields more than the branch produces, and a
// branch outside any task is left alone.
// CHECK-LABEL: func.func @more_than_the_branch
// CHECK: scf.if
// CHECK-NOT: orchestra.commit
// CHECK: scf.if
// CHECK-NOT: orchestra.commit
func.func @more_than_the_branch(%cond: i1, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %r:2 = orchestra.schedule -> (tensor<4xf32>, tensor<4xf32>) {
    %t:2 = orchestra.task "extra" args(%c = %cond : i1, %a = %x : tensor<4xf32>)
        -> (tensor<4xf32>, tensor<4xf32>) target = {arch = "x86_64", device_id = 0} {
      %w = scf.if %c -> (tensor<4xf32>) {
        %n = arith.negf %a : tensor<4xf32>
        scf.yield %n : tensor<4xf32>
      } else {
        scf.yield %a : tensor<4xf32>
      }
      %d = arith.addf %w, %w : tensor<4xf32>
      orchestra.yield %w, %d : tensor<4xf32>, tensor<4xf32>
    }
    orchestra.yield %t#0, %t#1 : tensor<4xf32>, tensor<4xf32>
  }
  %u = scf.if %cond -> (tensor<4xf32>) {
    scf.yield %x : tensor<4xf32>
  } else {
    %n = arith.negf %x : tensor<4xf32>
    scf.yield %n : tensor<4xf32>
  }
  return %r#0, %r#1, %u : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Does not apply: an NKI kernel replaces the body.
// CHECK-LABEL: func.func @nki_task
// CHECK: scf.if
// CHECK-NOT: orchestra.commit
func.func @nki_task(%cond: i1, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = orchestra.schedule -> (tensor<4xf32>) {
    %t = orchestra.task "nki" args(%c = %cond : i1, %a = %x : tensor<4xf32>) -> (tensor<4xf32>)
        target = {arch = "aws_trainium2", device_id = 0}
        attributes {nki_source = "def kernel(c, a): ..."} {
      %w = scf.if %c -> (tensor<4xf32>) {
        %n = arith.negf %a : tensor<4xf32>
        scf.yield %n : tensor<4xf32>
      } else {
        scf.yield %a : tensor<4xf32>
      }
      orchestra.yield %w : tensor<4xf32>
    }
    orchestra.yield %t : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Does not apply: the branch is the bounds check of a dynamic-index extract.
// CHECK-LABEL: func.func @guarded_extract
// CHECK: scf.if
// CHECK-NOT: orchestra.commit
func.func @guarded_extract(%ok: i1, %x: tensor<?xf32>, %i: index) -> f32 {
  %r = orchestra.schedule -> (f32) {
    %t = orchestra.task "lookup" args(%c = %ok : i1, %a = %x : tensor<?xf32>, %j = %i : index)
        -> (f32) target = {arch = "x86_64", device_id = 0} {
      %v = scf.if %c -> (f32) {
        %e = tensor.extract %a[%j] : tensor<?xf32>
        scf.yield %e : f32
      } else {
        %z = arith.constant 0.0 : f32
        scf.yield %z : f32
      }
      orchestra.yield %v : f32
    }
    orchestra.yield %t : f32
  }
  return %r : f32
}

// -----

// An extract at a constant index within a static shape is safe.
// CHECK-LABEL: func.func @constant_extract
// CHECK: orchestra.task "first.then"
// CHECK: tensor.extract
// CHECK: orchestra.commit
func.func @constant_extract(%ok: i1, %x: tensor<4xf32>) -> f32 {
  %r = orchestra.schedule -> (f32) {
    %t = orchestra.task "first" args(%c = %ok : i1, %a = %x : tensor<4xf32>)
        -> (f32) target = {arch = "x86_64", device_id = 0} {
      %v = scf.if %c -> (f32) {
        %i = arith.constant 3 : index
        %e = tensor.extract %a[%i] : tensor<4xf32>
        scf.yield %e : f32
      } else {
        %z = arith.constant 0.0 : f32
        scf.yield %z : f32
      }
      orchestra.yield %v : f32
    }
    orchestra.yield %t : f32
  }
  return %r : f32
}
