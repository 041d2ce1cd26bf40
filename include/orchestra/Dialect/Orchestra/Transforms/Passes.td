//===- Passes.td - Orchestra dialect passes -----------------*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_PASSES_TD
#define ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def DivergenceToSpeculation : Pass<"divergence-to-speculation"> {
  let summary = "Run both sides of a side-effect-free branch as parallel "
                "tasks and commit the taken one";
  let description = [{
    Pipeline stage 3 (high-level optimisation). A task whose computation is
    an `scf.if` must wait for its condition before it can start. When both
    sides of the branch are safe to execute whatever the condition is, this
    pass splits the task into two tasks, one per side, which no longer depend
    on the condition and can run in parallel (on the same device or, once
    re-placed, on two), and an `orchestra.commit` that selects the results of
    the side the condition picks.

    The match is written in PDLL (`DivergenceToSpeculation.pdll`); the checks
    that need to look into regions and the rewrite are C++.

    A task is rewritten when

    * its body is an `scf.if` with results whose condition is a task
      argument, followed by an `orchestra.yield` of results of that `scf.if`;
    * any other op of the body is pure (free of memory effects and
      speculatable); such ops are copied into both new tasks;
    * every op of both sides is free of memory effects
      (`MemoryEffectOpInterface`) and speculatable
      (`ConditionallySpeculatable`): running the side that is not taken must
      not write memory, trap or have undefined behaviour (a division by a
      value the condition checks for zero is *not* speculated, nor is a
      tensor access whose indices are not provably in bounds);
    * it has no `nki_source` (its body is not what runs).

    Like every greedy pattern pass, it also erases ops that are trivially
    dead (for example a task whose results are unused).

    The new tasks are named `<name>.then` and `<name>.else` (made unique
    within the schedule), keep the target and discardable attributes of the
    original task, take only the operands their side uses, and drop the
    scheduler's predictions, which no longer hold.

    Input:

    ```mlir
    %r = orchestra.task "pick" args(%c = %cond : i1, %a = %x : tensor<4xf32>)
        -> (tensor<4xf32>) target = {arch = "x86_64", device_id = 0} {
      %v = scf.if %c -> (tensor<4xf32>) {
        %e = math.exp %a : tensor<4xf32>
        scf.yield %e : tensor<4xf32>
      } else {
        %n = arith.negf %a : tensor<4xf32>
        scf.yield %n : tensor<4xf32>
      }
      orchestra.yield %v : tensor<4xf32>
    }
    ```

    Output:

    ```mlir
    %t = orchestra.task "pick.then" args(%a = %x : tensor<4xf32>)
        -> tensor<4xf32> target = {arch = "x86_64", device_id = 0} {
      %e = math.exp %a : tensor<4xf32>
      orchestra.yield %e : tensor<4xf32>
    }
    %f = orchestra.task "pick.else" args(%a = %x : tensor<4xf32>)
        -> tensor<4xf32> target = {arch = "x86_64", device_id = 0} {
      %n = arith.negf %a : tensor<4xf32>
      orchestra.yield %n : tensor<4xf32>
    }
    %r = orchestra.commit %cond true(%t) false(%f) : tensor<4xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::orchestra::OrchestraDialect",
    "::mlir::pdl::PDLDialect",
    "::mlir::pdl_interp::PDLInterpDialect",
  ];
}

#endif // ORCHESTRA_DIALECT_ORCHESTRA_TRANSFORMS_PASSES_TD
