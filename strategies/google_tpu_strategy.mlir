// Strategy for `google_tpu_v5e` kernel modules: Google Cloud TPU v5e,
// through StableHLO and XLA.
// The target registry loads it with stablehlo_common.mlir, whose
// @stablehlo_clean_up it applies (see that file for what it does):
//
//   * @__orchestra_google_tpu_v5e_strategy: stage 5, on tensors (applied by
//     orchestra-lower-kernels through the upstream transform interpreter),
//     before orchestra-lower-to-stablehlo.
//
// XLA does the TPU-specific work (tiling for the MXU, layout, fusion of
// what this leaves): the strategy only hands it a plainer graph.
// RUN: orchestra-opt %s | orchestra-opt -o /dev/null
// RUN: echo 'module {}' | orchestra-opt --transform-preload-library=transform-library-paths=%S/stablehlo_common.mlir,%s --transform-interpreter=entry-point=__orchestra_google_tpu_v5e_strategy -o /dev/null
module attributes {transform.with_named_sequence} {
  // Defined in stablehlo_common.mlir; the preloaded libraries are linked.
  transform.named_sequence @stablehlo_clean_up(
      %module: !transform.any_op {transform.readonly})

  transform.named_sequence @__orchestra_google_tpu_v5e_strategy(
      %module: !transform.any_op {transform.readonly}) {
    transform.include @stablehlo_clean_up failures(propagate) (%module)
        : (!transform.any_op) -> ()
    transform.yield
  }
}
