// RUN: orchestra-opt %s --split-input-file --orchestra-cpu-emit-binary --verify-diagnostics

// expected-error @below {{unknown CPU 'not-a-cpu'}}
module @kernels_x86_64_0 attributes {orchestra.target = {arch = "x86_64", device_id = 0 : i64, cpu = "not-a-cpu"}} {
}
