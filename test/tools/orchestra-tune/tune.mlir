// orchestra-tune on a small program: lists the tunable kernel ops (the
// matmuls of x86_64 kernels; one-row matmuls have their own path and are
// not tuned), measures the variants, writes the cache, keeps it on a
// second run, and orchestra-compile applies it.
// RUN: rm -rf %t && mkdir -p %t
// RUN: orchestra-tune %s --topology %S/../../e2e/Inputs/tuning-topology.json --list | FileCheck %s --check-prefix=LIST
// LIST: x86_64/2 threads: linalg.matmul 40x48x24 f32: default, b128x128_r8x32,
// LIST-NOT: linalg.matmul 1x

// RUN: orchestra-tune %s --topology %S/../../e2e/Inputs/tuning-topology.json --cache %t/cache.json --repeat 2 --variants b128x128_r8x32,b64x128_r4x64 2> %t/progress | FileCheck %s --check-prefix=TUNE
// RUN: FileCheck %s --check-prefix=PROGRESS < %t/progress
// RUN: FileCheck %s --check-prefix=CACHE < %t/cache.json
// TUNE: x86_64/2 threads: linalg.matmul 40x48x24 f32: {{default|b128x128_r8x32|b64x128_r4x64}} ({{[0-9.]+}} ms; default {{[0-9.]+}} ms, {{[0-9.]+}}x)
// TUNE: 1 kernel op(s) tuned, 0 already in the cache; cache: {{.*}}cache.json
// PROGRESS: [1/1] x86_64/2 threads: linalg.matmul 40x48x24 f32: measuring 3 variants
// PROGRESS: [1/1] x86_64/2 threads: linalg.matmul 40x48x24 f32: default {{ *}}{{[0-9.]+}} ms
// PROGRESS: [1/1] x86_64/2 threads: linalg.matmul 40x48x24 f32: b128x128_r8x32 {{ *}}{{[0-9.]+}} ms
// PROGRESS: [1/1] x86_64/2 threads: linalg.matmul 40x48x24 f32: b64x128_r4x64 {{ *}}{{[0-9.]+}} ms
// CACHE: "entries": [
// CACHE:     "arch": "x86_64",
// CACHE:     "element_type": "f32",
// CACHE:     "op": "linalg.matmul",
// CACHE:     "shape": [
// CACHE-NEXT:  40,
// CACHE-NEXT:  48,
// CACHE-NEXT:  24
// CACHE:     "threads": 2,
// CACHE:     "variant": "{{default|b128x128_r8x32|b64x128_r4x64}}"
// CACHE:   "format": "orchestra-tuning-cache",
// CACHE:   "version": 1

// A second run keeps the entry; --retune measures it again.
// RUN: orchestra-tune %s --topology %S/../../e2e/Inputs/tuning-topology.json --cache %t/cache.json --repeat 2 --variants b64x128_r4x64 --quiet | FileCheck %s --check-prefix=KEEP
// KEEP: 0 kernel op(s) tuned, 1 already in the cache
// RUN: orchestra-tune %s --topology %S/../../e2e/Inputs/tuning-topology.json --cache %t/cache.json --repeat 2 --variants b64x128_r4x64 --retune --quiet | FileCheck %s --check-prefix=RETUNE
// RETUNE: 1 kernel op(s) tuned, 0 already in the cache

// orchestra-compile applies it, and the result is still right.
// RUN: orchestra-compile %s --topology %S/../../e2e/Inputs/tuning-topology.json --tuning-cache %t/cache.json -o %t/tuned.orcx 2>&1 | FileCheck %s --check-prefix=COMPILE
// COMPILE: tuning cache {{.*}}cache.json: {{[01]}} kernel op(s) given a tuned variant

// Two runs that share a cache, at the same time, on two programs: each
// merges its entries into the file under the file's lock, so the cache ends
// with both (without the lock, the run that writes last drops the other's).
// RUN: rm -f %t/shared.json && sed 's/40x/56x/g' %s > %t/other.mlir
// RUN: bash -c 'orchestra-tune %s --topology %S/../../e2e/Inputs/tuning-topology.json --cache %t/shared.json --repeat 2 --variants b64x128_r4x64 --quiet > /dev/null & first=$!; orchestra-tune %t/other.mlir --topology %S/../../e2e/Inputs/tuning-topology.json --cache %t/shared.json --repeat 2 --variants b64x128_r4x64 --quiet > /dev/null & second=$!; wait $first && wait $second'
// RUN: FileCheck %s --check-prefix=SHARED < %t/shared.json
// SHARED-DAG: "shape": [{{[[:space:]]*}}40,
// SHARED-DAG: "shape": [{{[[:space:]]*}}56,

// Errors.
// RUN: not orchestra-tune %s --cache %t/cache.json --variants nosuch 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: orchestra-tune: error: the strategy of 'x86_64' has no variant 'nosuch'
// RUN: echo '{"format": "orchestra-tuning-cache", "version": 1}' > %t/broken.json
// RUN: not orchestra-tune %s --cache %t/broken.json --repeat 1 2>&1 | FileCheck %s --check-prefix=BROKEN
// BROKEN: orchestra-tune: error: tuning cache '{{.*}}broken.json': missing "entries" array
// RUN: not orchestra-tune %t/nonexistent.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: orchestra-tune: error: {{.*}}nonexistent.mlir
// RUN: not orchestra-compile %s --tuning-cache %t/nonexistent.json -o %t/x.orcx 2>&1 | FileCheck %s --check-prefix=NOCACHE
// NOCACHE: orchestra-compile: error: tuning cache '{{.*}}nonexistent.json' not found

func.func @main(%a: tensor<40x24xf32>, %b: tensor<24x48xf32>, %v: tensor<1x24xf32>)
    -> (tensor<40x48xf32>, tensor<1x48xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<40x48xf32>) -> tensor<40x48xf32>
  %m = linalg.matmul ins(%a, %b : tensor<40x24xf32>, tensor<24x48xf32>) outs(%f : tensor<40x48xf32>) -> tensor<40x48xf32>
  %ve = tensor.empty() : tensor<1x48xf32>
  %vf = linalg.fill ins(%zero : f32) outs(%ve : tensor<1x48xf32>) -> tensor<1x48xf32>
  %vm = linalg.matmul ins(%v, %b : tensor<1x24xf32>, tensor<24x48xf32>) outs(%vf : tensor<1x48xf32>) -> tensor<1x48xf32>
  return %m, %vm : tensor<40x48xf32>, tensor<1x48xf32>
}
