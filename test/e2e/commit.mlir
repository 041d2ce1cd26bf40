// Commits (design/0019, decision 4): a schedule written by hand, as
// divergence-to-speculation leaves one, on the two-cpu topology. The two
// sides of a branch run as tasks on cpu0 and cpu1, and an orchestra.commit
// picks one by a run-time condition: a select step of the plan, which reads
// the condition and copies the chosen values (across memory spaces) into
// the results. The first commit's results are the program's (host memory,
// one of them a constant); the second's are read by a task on cpu1, so its
// select step runs on cpu1's queue. Run for both condition values against
// numpy; the trace says which list each commit took.
// RUN: rm -rf %t && mkdir -p %t/a %t/b
// RUN: orchestra-compile %s --topology %orchestra_src_root/topologies/two-cpu.json -o %t/commit.orcx 2>&1 | FileCheck %s --check-prefix=SUMMARY
// RUN: orchestra-run --describe %t/commit.orcx | FileCheck %s --check-prefix=DESCRIBE
// RUN: orchestra-run --describe=json %t/commit.orcx | FileCheck %s --check-prefix=JSON
// RUN: %python -c "import numpy as np, sys; d = sys.argv[1]; np.save(d + '/a/c.npy', np.array(True)); np.save(d + '/b/c.npy', np.array(False)); x = np.linspace(-2, 2, 64, dtype=np.float32); y = np.linspace(0, 3, 64, dtype=np.float32); [np.save(d + s + '/x.npy', x) for s in ('/a', '/b')]; [np.save(d + s + '/y.npy', y) for s in ('/a', '/b')]" %t
// RUN: orchestra-run %t/commit.orcx --input %t/a/c.npy --input %t/a/x.npy --input %t/a/y.npy --output-dir %t/a/out --trace %t/a/trace.json --quiet
// RUN: %python %S/Inputs/e2e.py check commit %t/a %t/a/out
// RUN: FileCheck %s --check-prefix=TAKEN-TRUE < %t/a/trace.json
// RUN: orchestra-run %t/commit.orcx --input %t/b/c.npy --input %t/b/x.npy --input %t/b/y.npy --output-dir %t/b/out --trace %t/b/trace.json --quiet
// RUN: %python %S/Inputs/e2e.py check commit %t/b %t/b/out
// RUN: FileCheck %s --check-prefix=TAKEN-FALSE < %t/b/trace.json

// SUMMARY: 3 task launch(es), 3 transfer(s), 2 commit(s) on topology 'two-cpu'
// DESCRIBE: step [[S1:[0-9]+]] on device 0: select 'commit' by value 0: ([[R0:[0-9]+]], [[R1:[0-9]+]]) = true ([[THEN:[0-9]+]], [[ONES:[0-9]+]]) or false ([[ELSE:[0-9]+]], [[Y1:[0-9]+]]), after
// DESCRIBE: step [[S2:[0-9]+]] on device 1: select 'commit' by value 0: ([[S:[0-9]+]]) = true ([[X1:[0-9]+]]) or false ([[Y1]])
// DESCRIBE: step {{[0-9]+}} on device 1: launch kernel {{[0-9]+}} 'post' (in [[S]], out {{[0-9]+}}), after {{.*}}[[S2]]
// JSON: "kind": "select",
// JSON-NEXT: "device": 0,
// JSON-NEXT: "name": "commit",
// JSON-NEXT: "num_inputs": 5,
// TAKEN-TRUE-COUNT-2: "selected": "true",
// TAKEN-TRUE-NOT: "selected": "false"
// TAKEN-FALSE-COUNT-2: "selected": "false",
// TAKEN-FALSE-NOT: "selected": "true"

module attributes {orchestra.topology = #orchestra.topology<"two-cpu", devices = [<"cpu0", arch = "x86_64", device_id = 0>, <"cpu1", arch = "x86_64", device_id = 1>]>} {
  orchestra.memory_space @cpu0_dram kind = "dram" arch = "x86_64" device_id = 0 capacity = 4294967296
  orchestra.memory_space @cpu1_dram kind = "dram" arch = "x86_64" device_id = 1 capacity = 4294967296
  func.func @main(%c: tensor<i1>, %x: tensor<64xf32>, %y: tensor<64xf32>)
      -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) attributes {orchestra.entry} {
    %r:3 = orchestra.schedule -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
      %then = orchestra.task "pick.then" args(%a = %x : tensor<64xf32>) -> tensor<64xf32>
          target = {arch = "x86_64", device_id = 0, num_threads = 1} {
        %e = math.exp %a : tensor<64xf32>
        orchestra.yield %e : tensor<64xf32>
      }
      %x1 = orchestra.transfer %x from @cpu0_dram to @cpu1_dram : tensor<64xf32>
      %y1 = orchestra.transfer %y from @cpu0_dram to @cpu1_dram : tensor<64xf32>
      %else = orchestra.task "pick.else" args(%a = %x1 : tensor<64xf32>, %b = %y1 : tensor<64xf32>) -> tensor<64xf32>
          target = {arch = "x86_64", device_id = 1, num_threads = 1} {
        %s = arith.subf %a, %b : tensor<64xf32>
        orchestra.yield %s : tensor<64xf32>
      }
      %ones = arith.constant dense<1.0> : tensor<64xf32>
      %p:2 = orchestra.commit %c : tensor<i1> true(%then, %ones) false(%else, %y1) : tensor<64xf32>, tensor<64xf32>
      %s = orchestra.commit %c : tensor<i1> true(%x1) false(%y1) : tensor<64xf32>
      %post = orchestra.task "post" args(%a = %s : tensor<64xf32>) -> tensor<64xf32>
          target = {arch = "x86_64", device_id = 1, num_threads = 1} {
        %d = arith.addf %a, %a : tensor<64xf32>
        orchestra.yield %d : tensor<64xf32>
      }
      %back = orchestra.transfer %post from @cpu1_dram to @cpu0_dram : tensor<64xf32>
      orchestra.yield %p#0, %p#1, %back : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
    }
    return %r#0, %r#1, %r#2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
  }
}
