// Branches and loops written as blocks (cf.cond_br, cf.br with block
// arguments): stage 1 lifts them to scf.if and scf.while
// (lift-cf-to-scf), the scheduler keeps each in one task, and the CPU
// kernel runs them. Compiled once, run for both values of the condition and
// for 3 and 0 trips of the loop, against numpy.
// RUN: rm -rf %t && mkdir -p %t/a %t/b
// RUN: orchestra-compile %s --topology host --emit=schedule -o - | FileCheck %s --check-prefix=SCHED --implicit-check-not=cf.br --implicit-check-not=cf.cond_br
// RUN: orchestra-compile %s --topology host -o %t/cf.orcx --quiet
// RUN: %python -c "import numpy as np, sys; d = sys.argv[1]; np.save(d + '/a/c.npy', np.array(True)); np.save(d + '/a/n.npy', np.array(3, np.int64)); np.save(d + '/b/c.npy', np.array(False)); np.save(d + '/b/n.npy', np.array(0, np.int64)); x = np.linspace(-2, 2, 8, dtype=np.float32); np.save(d + '/a/x.npy', x); np.save(d + '/b/x.npy', x)" %t
// RUN: orchestra-run %t/cf.orcx --input %t/a/c.npy --input %t/a/n.npy --input %t/a/x.npy --output-dir %t/a/out --quiet
// RUN: %python %S/Inputs/e2e.py check control_flow %t/a %t/a/out
// RUN: orchestra-run %t/cf.orcx --input %t/b/c.npy --input %t/b/n.npy --input %t/b/x.npy --output-dir %t/b/out --quiet
// RUN: %python %S/Inputs/e2e.py check control_flow %t/b %t/b/out

// SCHED: orchestra.schedule
// SCHED-DAG: = scf.if
// SCHED-DAG: = scf.while
// SCHED-DAG: scf.condition

func.func @main(%c: tensor<i1>, %n: tensor<i64>, %x: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8xf32>) {
  %cond = tensor.extract %c[] : tensor<i1>
  cf.cond_br %cond, ^then, ^else
^then:
  %e0 = tensor.empty() : tensor<8xf32>
  %sum = linalg.add ins(%x, %x : tensor<8xf32>, tensor<8xf32>) outs(%e0 : tensor<8xf32>) -> tensor<8xf32>
  cf.br ^joined(%sum : tensor<8xf32>)
^else:
  %e1 = tensor.empty() : tensor<8xf32>
  %product = linalg.mul ins(%x, %x : tensor<8xf32>, tensor<8xf32>) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  cf.br ^joined(%product : tensor<8xf32>)
^joined(%branch: tensor<8xf32>):
  // x doubled n times (n from the data), then + 1.
  %count = tensor.extract %n[] : tensor<i64>
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  cf.br ^header(%zero, %x : i64, tensor<8xf32>)
^header(%i: i64, %v: tensor<8xf32>):
  %more = arith.cmpi slt, %i, %count : i64
  cf.cond_br %more, ^body, ^exit
^body:
  %e2 = tensor.empty() : tensor<8xf32>
  %doubled = linalg.add ins(%v, %v : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) -> tensor<8xf32>
  %next = arith.addi %i, %one : i64
  cf.br ^header(%next, %doubled : i64, tensor<8xf32>)
^exit:
  %e3 = tensor.empty() : tensor<8xf32>
  %ones = arith.constant dense<1.0> : tensor<8xf32>
  %looped = linalg.add ins(%v, %ones : tensor<8xf32>, tensor<8xf32>) outs(%e3 : tensor<8xf32>) -> tensor<8xf32>
  return %branch, %looped : tensor<8xf32>, tensor<8xf32>
}
