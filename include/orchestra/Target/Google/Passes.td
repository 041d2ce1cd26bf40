//===- Passes.td - Google backend passes -------------------*- tablegen -*-===//
//
// Part of OrchestraOS.
//
//===----------------------------------------------------------------------===//

#ifndef ORCHESTRA_TARGET_GOOGLE_PASSES_TD
#define ORCHESTRA_TARGET_GOOGLE_PASSES_TD

include "mlir/Pass/PassBase.td"

def GoogleCompileTpu : Pass<"orchestra-google-compile-tpu",
                            "::mlir::ModuleOp"> {
  let summary = "Compile the kernels of a TPU kernel module ahead of time "
                "with libtpu, without a TPU";
  let description = [{
    Stage 8 of `google_tpu_v5e`, between `orchestra-lower-to-stablehlo` and
    `orchestra-stablehlo-emit-binary`. When the device's `tpu_aot` key is
    `auto` or `require` (default `off`), `orchestra-pjrt-compile` compiles
    every kernel's StableHLO with libtpu for the TPU topology of the
    `tpu_topology` key (default `v5e:1x1`) through PJRT's topology API, on a
    machine without a TPU, in one run for the module; the PJRT bundle
    carries each serialized executable (`orchestra.aot_format =
    "pjrt-executable:tpu"`), which the `pjrt` driver loads on a TPU instead
    of compiling. With `auto`, a missing tool or libtpu is a remark; with
    `require`, an error. orchestra-pjrt-compile is found from the
    `pjrt-compile` option, else `$ORCHESTRA_PJRT_COMPILE`, else beside the
    running tool, else on PATH. The module records what a TPU host needs
    (`orchestra.host_requirements`). With `--dump-device-code`, the
    executables are written there too.
  }];
  let options = [
    Option<"pjrtCompileOption", "pjrt-compile", "std::string",
           /*default=*/"\"\"", "The orchestra-pjrt-compile to run">,
  ];
}

#endif // ORCHESTRA_TARGET_GOOGLE_PASSES_TD
