// Speculation decided by the scheduler (design/0019, decision 3): a branch
// whose condition takes two matmuls and a reduction, and whose sides take a
// matmul each. On the two-cpu topology, waiting for the condition leaves a
// device idle: orchestra-schedule finds the program with both sides run
// without the condition (beside the condition's work) faster and marks the
// branch, divergence-to-speculation splits it into two side tasks and an
// orchestra.commit, and the runtime's select step keeps the side the
// condition picks. Both condition values (the threshold input) against
// numpy; in the plan the sides do not wait for the condition; a trace shows
// the sides overlapping the condition's work on the other device (in one of
// five runs: when two workers run at once is the operating system's
// choice) and the commit's choice. On one device (host) nothing is
// gained: the branch stays one task, as it does with --speculate=false.
// RUN: rm -rf %t && mkdir -p %t
// RUN: orchestra-compile %s --topology %orchestra_src_root/topologies/two-cpu.json --emit=schedule -o - | FileCheck %s --check-prefix=SCHED
// RUN: orchestra-compile %s --topology host --emit=schedule -o - | FileCheck %s --check-prefix=HOST
// RUN: orchestra-compile %s --topology %orchestra_src_root/topologies/two-cpu.json --speculate=false --emit=schedule -o - | FileCheck %s --check-prefix=HOST
// RUN: orchestra-compile %s --topology %orchestra_src_root/topologies/two-cpu.json -o %t/spec.orcx --quiet
// RUN: %python %S/Inputs/e2e.py gen %t/a a:f32:160x160 w1:f32:160x160 w2:f32:160x160 x:f32:160x160 wt:f32:160x160 we:f32:160x160 thr:f32:=-1e30
// RUN: %python %S/Inputs/e2e.py gen %t/b a:f32:160x160 w1:f32:160x160 w2:f32:160x160 x:f32:160x160 wt:f32:160x160 we:f32:160x160 thr:f32:=1e30
// RUN: orchestra-run --describe=json %t/spec.orcx > %t/plan.json
// RUN: %python %S/Inputs/e2e.py speculated %t/plan.json | FileCheck %s --check-prefix=PLAN
// RUN: orchestra-run %t/spec.orcx --input %t/a/a.npy --input %t/a/w1.npy --input %t/a/w2.npy --input %t/a/x.npy --input %t/a/wt.npy --input %t/a/we.npy --input %t/a/thr.npy --output-dir %t/a/out --trace %t/a/trace.json --quiet
// RUN: %python %S/Inputs/e2e.py check speculation %t/a %t/a/out
// RUN: %python %S/Inputs/e2e.py trace-overlap-runs 5 %t/a/overlap.json orchestra-run %t/spec.orcx --input %t/a/a.npy --input %t/a/w1.npy --input %t/a/w2.npy --input %t/a/x.npy --input %t/a/wt.npy --input %t/a/we.npy --input %t/a/thr.npy --output-dir %t/a/out2 --trace %t/a/overlap.json --quiet
// RUN: FileCheck %s --check-prefix=TRUE < %t/a/trace.json
// RUN: orchestra-run %t/spec.orcx --input %t/b/a.npy --input %t/b/w1.npy --input %t/b/w2.npy --input %t/b/x.npy --input %t/b/wt.npy --input %t/b/we.npy --input %t/b/thr.npy --output-dir %t/b/out --trace %t/b/trace.json --quiet
// RUN: %python %S/Inputs/e2e.py check speculation %t/b %t/b/out
// RUN: FileCheck %s --check-prefix=FALSE < %t/b/trace.json

// SCHED: orchestra.schedule
// SCHED-DAG: orchestra.task "[[BRANCH:t[0-9]+_if]].then" {{.*}} target = {arch = "x86_64", device_id = [[SIDE:[01]]], {{.*}} attributes {predicted_start = {{.*}}, predicted_finish =
// SCHED-DAG: orchestra.task "[[BRANCH]].else" {{.*}} target = {arch = "x86_64", device_id = [[SIDE]], {{.*}} attributes {predicted_start = {{.*}}, predicted_finish =
// SCHED-DAG: orchestra.task "{{t[0-9]+}}_reduce" {{.*}} -> tensor<i1> target = {arch = "x86_64", device_id = {{[01]}}
// SCHED: orchestra.commit %{{.*}} : tensor<i1> true(%[[BRANCH]].then) false(%[[BRANCH]].else) : tensor<160x160xf32>
// PLAN: select step {{[0-9]+}}: its sides do not wait for its condition
// HOST-NOT: orchestra.commit
// HOST: = scf.if
// HOST-NOT: orchestra.commit
// TRUE: "selected": "true"
// FALSE: "selected": "false"

#scalar = affine_map<() -> ()>
func.func @main(%a: tensor<160x160xf32>, %w1: tensor<160x160xf32>, %w2: tensor<160x160xf32>,
                %x: tensor<160x160xf32>, %wt: tensor<160x160xf32>, %we: tensor<160x160xf32>,
                %thr: tensor<f32>) -> tensor<160x160xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<160x160xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<160x160xf32>) -> tensor<160x160xf32>
  %m1 = linalg.matmul ins(%a, %w1 : tensor<160x160xf32>, tensor<160x160xf32>) outs(%f : tensor<160x160xf32>) -> tensor<160x160xf32>
  %m2 = linalg.matmul ins(%m1, %w2 : tensor<160x160xf32>, tensor<160x160xf32>) outs(%f : tensor<160x160xf32>) -> tensor<160x160xf32>
  %s0 = tensor.empty() : tensor<f32>
  %sf = linalg.fill ins(%zero : f32) outs(%s0 : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%m2 : tensor<160x160xf32>) outs(%sf : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  %c0 = tensor.empty() : tensor<i1>
  %c = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
      ins(%sum, %thr : tensor<f32>, tensor<f32>) outs(%c0 : tensor<i1>) {
  ^bb0(%v: f32, %limit: f32, %o: i1):
    %p = arith.cmpf ogt, %v, %limit : f32
    linalg.yield %p : i1
  } -> tensor<i1>
  %p = tensor.extract %c[] : tensor<i1>
  %r = scf.if %p -> tensor<160x160xf32> {
    %t = linalg.matmul ins(%x, %wt : tensor<160x160xf32>, tensor<160x160xf32>) outs(%f : tensor<160x160xf32>) -> tensor<160x160xf32>
    scf.yield %t : tensor<160x160xf32>
  } else {
    %u = linalg.matmul ins(%x, %we : tensor<160x160xf32>, tensor<160x160xf32>) outs(%f : tensor<160x160xf32>) -> tensor<160x160xf32>
    %v = math.tanh %u : tensor<160x160xf32>
    scf.yield %v : tensor<160x160xf32>
  }
  return %r : tensor<160x160xf32>
}
