//===- Passes.td - AWS backend passes ----------------------*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_AWS_PASSES_TD
#define ORCHESTRA_TARGET_AWS_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerNKITasks : Pass<"orchestra-lower-nki-tasks", "::mlir::ModuleOp"> {
  let summary = "Check and compile the NKI kernels of a kernel module's tasks";
  let description = [{
    Stage 7 for the archs that accept Neuron Kernel Interface kernels
    (`aws_trainium2`), first in their lowering pipeline. A task's
    `nki_source` (spec section 4.3) is the Python source of a kernel that
    replaces the task's body; `orchestra-outline-tasks` keeps it on the
    kernel function as `orchestra.nki_source`. For each such function this
    pass checks the source with the bridge (`orchestra-stablehlo-bridge
    --check-nki`, Python's own parser): it must be Python, define one kernel
    (the top-level function decorated with `@nki.jit`, or the only
    top-level function) and take the task's tensors; any other source is an
    error that quotes the line.

    Compiling the kernel needs the NKI compiler of AWS's Neuron SDK, which
    is served only by AWS's own package index (PyPI's `nki`,
    `neuronx-cc` and `libneuronxla` are placeholders that refuse to
    import). This build cannot drive it: a checked kernel is an error that
    says so, naming the kernel (docs/Passes/StableHLO.md).
  }];
  let options = [
    Option<"bridge", "bridge", "std::string", /*default=*/"\"\"",
           "The orchestra-stablehlo-bridge that checks the sources">,
  ];
}

def AWSCompileNeff : Pass<"orchestra-aws-compile-neff", "::mlir::ModuleOp"> {
  let summary = "Compile the kernels of a Trainium kernel module into NEFFs "
                "with neuronx-cc";
  let description = [{
    Stage 8 of `aws_trainium2`, between `orchestra-lower-to-stablehlo` and
    `orchestra-stablehlo-emit-binary`. neuronx-cc takes XLA's HLO, not
    StableHLO: the bridge (`orchestra-stablehlo-bridge --hlo-only`, XLA's
    own converter) writes each kernel as an HloModuleProto, and
    `neuronx-cc compile --framework XLA --target trn2 --logical-nc-config N
    --auto-cast none` (N: the device's `logical_core_count`, default 2;
    `--auto-cast none` keeps f32 matmuls in f32) compiles it into a NEFF,
    which the PJRT bundle carries beside the portable artifact
    (`orchestra.aot_format = "neff"`). The device's `neuron_aot` key decides:
    `auto` (default) compiles when neuronx-cc is found and otherwise leaves a
    remark, `require` makes a missing neuronx-cc an error, `off` skips it.
    neuronx-cc is found from the `neuronx-cc` option, else
    `$ORCHESTRA_NEURONX_CC`, else beside the running tool, else on PATH; one
    that fails is an error that quotes it. The module records what a
    Trainium host needs to run it (`orchestra.host_requirements`, which
    `orchestra-run --describe` shows). With `--dump-device-code`, the HLO
    modules and NEFFs are written there too.
  }];
  let options = [
    Option<"bridge", "bridge", "std::string", /*default=*/"\"\"",
           "The orchestra-stablehlo-bridge that writes the HLO modules">,
    Option<"neuronCompilerOption", "neuronx-cc", "std::string",
           /*default=*/"\"\"", "The neuronx-cc to run">,
  ];
}

#endif // ORCHESTRA_TARGET_AWS_PASSES_TD
