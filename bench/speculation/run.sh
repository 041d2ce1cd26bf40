#!/usr/bin/env bash
# Speculation decided by the scheduler (design/0019), measured: each program
# of this folder compiled for the two-cpu topology with speculation (the
# default) and with --speculate=false, run for both condition values,
# alternating, ROUNDS rounds of `orchestra-run --repeat 40` (steps median).
#   bench/speculation/run.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build}"
rounds="${2:-3}"
bin="$build/bin"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
e2e="$root/test/e2e/Inputs/e2e.py"
specs=(a:f32:256x256 w1:f32:256x256 w2:f32:256x256 x:f32:256x256
       wt:f32:256x256 we:f32:256x256)
/usr/bin/python3 "$e2e" gen "$work/true" "${specs[@]}" thr:f32:=-1e30
/usr/bin/python3 "$e2e" gen "$work/false" "${specs[@]}" thr:f32:=1e30
inputs() {
  for name in a w1 w2 x wt we thr; do echo --input "$work/$1/$name.npy"; done
}
for program in "$root"/bench/speculation/*.mlir; do
  name="$(basename "$program" .mlir)"
  topology="$root/topologies/two-cpu.json"
  "$bin/orchestra-compile" "$program" --topology "$topology" -o "$work/spec.orcx" --quiet
  "$bin/orchestra-compile" "$program" --topology "$topology" --speculate=false \
    -o "$work/plain.orcx" --quiet
  for round in $(seq 1 "$rounds"); do
    for condition in true false; do
      for artifact in spec plain; do
        printf '%s round %s condition %s %-5s ' "$name" "$round" "$condition" "$artifact"
        "$bin/orchestra-run" "$work/$artifact.orcx" $(inputs "$condition") \
          --repeat 40 --output-dir "$work/out" | grep '^steps'
      done
    done
  done
done
