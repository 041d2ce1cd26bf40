// Stage-5 strategy for `x86_64` kernel modules (applied by the upstream
// `transform-interpreter` with entry point @__orchestra_x86_64_strategy, see
// lib/Target/CPU/CPUTarget.cpp; test/strategies/x86_64-strategy.mlir
// applies it). It relies on the tags that
// `orchestra-outline-tasks` puts on each kernel:
//
//   * `orchestra.fusion_root` / `orchestra.fusion_root_d1`: the op producing
//     the kernel's first result, whose first (second) loop is parallel;
//   * `orchestra.fusion_producer`: every structured op the root depends on.
//
// Steps:
//   1. tile the root's parallel loop into an `scf.forall` (one iteration per
//      8 rows; the forall becomes an OpenMP loop over the device's cores) and
//      fuse its producers into the tile (matmul + bias + activation,
//      reduction + normalisation, ... become one loop nest per row block);
//   2. tile contractions to register-sized blocks (4x16 outputs, K by 1);
//   3. vectorize every structured op with static shapes and lower the
//      vector ops towards what the LLVM backend turns into FMAs.
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__orchestra_x86_64_strategy(
      %module: !transform.any_op {transform.readonly}) {
    // 1. Parallel tiles of each fusion root, producers fused in.
    %roots = transform.structured.match attributes{orchestra.fusion_root}
        in %module : (!transform.any_op) -> !transform.any_op
    transform.foreach %roots : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %forall {op_name = "func.func"}
          : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match
          attributes{orchestra.fusion_producer} in %func
          : (!transform.any_op) -> !transform.any_op
      %fused, %loop = transform.structured.fuse_into_containing_op
          %producers into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    }
    %roots_d1 = transform.structured.match
        attributes{orchestra.fusion_root_d1} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %roots_d1 : !transform.any_op {
    ^bb0(%root: !transform.any_op):
      %tiled, %forall = transform.structured.tile_using_forall %root
          tile_sizes [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %func = transform.get_parent_op %forall {op_name = "func.func"}
          : (!transform.any_op) -> !transform.any_op
      %producers = transform.structured.match
          attributes{orchestra.fusion_producer} in %func
          : (!transform.any_op) -> !transform.any_op
      %fused, %loop = transform.structured.fuse_into_containing_op
          %producers into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
    }

    // 2. Register tiles of the contractions.
    %matmuls = transform.structured.match ops{["linalg.matmul"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %matmuls : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      %t, %l:3 = transform.structured.tile_using_for %mm tile_sizes [4, 16, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                    !transform.any_op, !transform.any_op)
    }
    %bmms = transform.structured.match ops{["linalg.batch_matmul"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %bmms : !transform.any_op {
    ^bb0(%mm: !transform.any_op):
      %t, %l:4 = transform.structured.tile_using_for %mm
          tile_sizes [1, 4, 16, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op,
                                    !transform.any_op, !transform.any_op,
                                    !transform.any_op)
    }

    // 3. Vectorization.
    %funcs = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %funcs : !transform.any_op {
    ^bb0(%f: !transform.any_op):
      %v = transform.structured.vectorize_children_and_apply_patterns %f
          : (!transform.any_op) -> !transform.any_op
      transform.apply_patterns to %v {
        transform.apply_patterns.vector.lower_contraction
            lowering_strategy = "outerproduct"
        transform.apply_patterns.vector.lower_multi_reduction
            lowering_strategy = "innerreduction"
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.vector.lower_transpose
        transform.apply_patterns.canonicalization
      } : !transform.any_op
    }
    transform.yield
  }
}
