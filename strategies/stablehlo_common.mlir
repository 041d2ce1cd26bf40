// Library of the StableHLO archs' strategies (google_tpu_strategy.mlir,
// aws_trainium_strategy.mlir; the target registry loads it with them). Their
// kernels go to a vendor compiler (XLA, neuronx-cc) as StableHLO written by
// orchestra-lower-to-stablehlo, so the strategy does not tile or vectorize:
// it simplifies the graph at the linalg level so that each kernel becomes
// fewer, plainer StableHLO ops (spec section 5.2).
//
// @stablehlo_clean_up, on a kernel module:
//   1. generic ops that are contractions (at least one contracted dim)
//      become named ops (linalg.matmul, batch_matmul, ...), so that step 2
//      fuses nothing into them and they stay one `dot_general`;
//   2. chains of elementwise ops fuse into one generic op
//      (orchestra-fuse-elementwise-generics: upstream's fusion patterns,
//      without its reshape propagation): one broadcast of each operand
//      into the domain, no intermediate tensors, transposes between them
//      folded;
//   3. the other generic ops that are named ops in disguise (transpose,
//      copy, fill, elementwise arithmetic) become them;
//   4. inputs a generic op does not read are dropped, reshape chains folded
//      (expand then collapse of the same dims: nothing), tensor.empty
//      folded through reshapes, then canonicalization and CSE.
// test/strategies/stablehlo-strategy.mlir applies it.
// RUN: orchestra-opt %s | orchestra-opt -o /dev/null
module attributes {transform.with_named_sequence} {
  transform.named_sequence @match_generic_contraction(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.match.structured failures(propagate) %op : !transform.any_op {
    ^bb0(%s: !transform.any_op):
      %batch, %m, %n, %k = transform.match.structured.classify_contraction_dims %s
          : (!transform.any_op) -> (!transform.param<i64>, !transform.param<i64>,
                                    !transform.param<i64>, !transform.param<i64>)
      // At least one contracted dim: not an elementwise product.
      %num_k = transform.num_associations %k
          : (!transform.param<i64>) -> !transform.param<i64>
      %zero = transform.param.constant 0 : i64 -> !transform.param<i64>
      transform.match.param.cmpi gt %num_k, %zero : !transform.param<i64>
      transform.match.structured.yield
    }
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @match_generic(
      %op: !transform.any_op {transform.readonly}) -> !transform.any_op {
    transform.match.operation_name %op ["linalg.generic"] : !transform.any_op
    transform.yield %op : !transform.any_op
  }
  transform.named_sequence @try_specialize(
      %op: !transform.any_op {transform.consumed}) {
    transform.sequence %op : !transform.any_op failures(suppress) {
    ^bb0(%g: !transform.any_op):
      %named = transform.structured.specialize %g
          : (!transform.any_op) -> !transform.any_op
    }
    transform.yield
  }
  transform.named_sequence @stablehlo_clean_up(
      %module: !transform.any_op {transform.readonly}) {
    %funcs = transform.structured.match ops{["func.func"]} in %module
        : (!transform.any_op) -> !transform.any_op
    %f0 = transform.foreach_match in %funcs
        @match_generic_contraction -> @try_specialize
        : (!transform.any_op) -> !transform.any_op
    %f1 = transform.apply_registered_pass "orchestra-fuse-elementwise-generics"
        to %f0 : (!transform.any_op) -> !transform.any_op
    %fused = transform.foreach_match in %f1
        @match_generic -> @try_specialize
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %fused {
      transform.apply_patterns.linalg.erase_unnecessary_inputs
      transform.apply_patterns.tensor.reassociative_reshape_folding
      transform.apply_patterns.tensor.fold_tensor_empty
      transform.apply_patterns.canonicalization
    } {apply_cse} : !transform.any_op
    transform.yield
  }
}
