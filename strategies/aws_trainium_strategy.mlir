// Strategy for `aws_trainium2` kernel modules: AWS Trainium2,
// through StableHLO and neuronx-cc.
// The target registry loads it with stablehlo_common.mlir, whose
// @stablehlo_clean_up it applies (see that file for what it does):
//
//   * @__orchestra_aws_trainium2_strategy: stage 5, on tensors (applied by
//     orchestra-lower-kernels through the upstream transform interpreter),
//     before orchestra-lower-to-stablehlo.
//
// The same clean-up as the TPU's (spec section 5.2: "similar to the TPU
// strategy"); neuronx-cc does the Trainium-specific work. Kernels written in
// NKI (a task's `nki_source`) do not go through it.
// RUN: orchestra-opt %s | orchestra-opt -o /dev/null
// RUN: echo 'module {}' | orchestra-opt --transform-preload-library=transform-library-paths=%S/stablehlo_common.mlir,%s --transform-interpreter=entry-point=__orchestra_aws_trainium2_strategy -o /dev/null
module attributes {transform.with_named_sequence} {
  // Defined in stablehlo_common.mlir; the preloaded libraries are linked.
  transform.named_sequence @stablehlo_clean_up(
      %module: !transform.any_op {transform.readonly})

  transform.named_sequence @__orchestra_aws_trainium2_strategy(
      %module: !transform.any_op {transform.readonly}) {
    transform.include @stablehlo_clean_up failures(propagate) (%module)
        : (!transform.any_op) -> ()
    transform.yield
  }
}
