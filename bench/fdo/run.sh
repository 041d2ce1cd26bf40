#!/usr/bin/env bash
# The feedback loop (design/0019), measured over loopback on the two-cpu
# topology, ROUNDS rounds (steps medians of `orchestra-run --repeat 40`):
#  - gain: rare-else.mlir (test/e2e/Inputs; speculated without a profile)
#    compiled with branch probes and a --jit-cache, run "then always"
#    against orchestra-jit-server: the steps before the swap (the
#    speculated plan) against those after it (the service's plan, which
#    waits for the condition);
#  - no loss: the same program run "else always" (the service answers
#    NO_GAIN: the plan stays) and the example MLP (no branches: nothing is
#    sent), each against its build without probes;
#  - the probes' cost: element-branch.mlir's per-element branch over 2^20
#    elements on the host's threads, with and without probes.
#   bench/fdo/run.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build}"
rounds="${2:-3}"
bin="$build/bin"
work="$(mktemp -d)"
server_pid=""
trap '[ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
e2e="$root/test/e2e/Inputs/e2e.py"
two_cpu="$root/topologies/two-cpu.json"
specs=(a:f32:160x160 w1:f32:160x160 w2:f32:160x160 x:f32:160x160 we:f32:160x160)
/usr/bin/python3 "$e2e" gen "$work/else" "${specs[@]}" thr:f32:=1e30 >/dev/null
/usr/bin/python3 "$e2e" gen "$work/then" "${specs[@]}" thr:f32:=-1e30 >/dev/null
inputs() {
  for name in a w1 w2 x we thr; do echo --input "$work/$1/$name.npy"; done
}
program="$root/test/e2e/Inputs/rare-else.mlir"
"$bin/orchestra-compile" "$program" --topology "$two_cpu" --profile-branches \
  --jit-cache "$work/cache" -o "$work/profiled.orcx" --quiet
"$bin/orchestra-compile" "$program" --topology "$two_cpu" -o "$work/plain.orcx" \
  --quiet
mlp="$root/examples/mlp.mlir"
"$bin/orchestra-compile" "$mlp" --topology "$two_cpu" --profile-branches \
  --jit-cache "$work/cache" -o "$work/mlp-profiled.orcx" --quiet
"$bin/orchestra-compile" "$mlp" --topology "$two_cpu" -o "$work/mlp.orcx" --quiet
element="$work/element-branch.mlir"
sed 's/64xf32/1048576xf32/g' "$root/test/e2e/Inputs/element-branch.mlir" >"$element"
"$bin/orchestra-compile" "$element" --topology host --profile-branches \
  -o "$work/element-profiled.orcx" --quiet
"$bin/orchestra-compile" "$element" --topology host -o "$work/element.orcx" --quiet
/usr/bin/python3 -c "import numpy as np, sys; d = sys.argv[1]; np.save(d + '/ex.npy', np.linspace(-1, 1, 1 << 20, dtype=np.float32)); np.save(d + '/ey.npy', np.ones(1 << 20, np.float32))" "$work"

"$bin/orchestra-jit-server" --cache-dir "$work/cache" --port-file "$work/port" \
  >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
address="127.0.0.1:$(cat "$work/port")"
mlp_inputs=$(for f in "$root"/examples/mlp_input*.npy; do echo --input "$f"; done)

steps() { grep "^$1: " | sed 's/.*median \([0-9.]*\) ms.*/\1/'; }
for round in $(seq 1 "$rounds"); do
  out="$("$bin/orchestra-run" "$work/profiled.orcx" $(inputs then) --repeat 40 \
    --jit-server "$address" --jit-after 5 2>&1)"
  echo "round $round rare-else (then always): speculated $(echo "$out" | steps steps) ms," \
       "after the swap $(echo "$out" | steps 'steps after the swap') ms;" \
       "$(echo "$out" | grep -o 'jit: [a-z]*')"
  out="$("$bin/orchestra-run" "$work/profiled.orcx" $(inputs else) --repeat 40 \
    --jit-server "$address" --jit-after 5 2>&1)"
  plain="$("$bin/orchestra-run" "$work/plain.orcx" $(inputs else) --repeat 40 | steps steps)"
  echo "round $round rare-else (else always): with probes and the loop" \
       "$(echo "$out" | steps steps) ms, without $plain ms; $(echo "$out" | grep -o 'jit: [a-z]*')"
  out="$("$bin/orchestra-run" "$work/mlp-profiled.orcx" $mlp_inputs --repeat 40 \
    --jit-server "$address" --jit-after 5 2>&1)"
  plain="$("$bin/orchestra-run" "$work/mlp.orcx" $mlp_inputs --repeat 40 | steps steps)"
  echo "round $round mlp: with the loop $(echo "$out" | steps steps) ms," \
       "without $plain ms; $(echo "$out" | grep -o 'jit: [a-z]*')"
  on="$("$bin/orchestra-run" "$work/element-profiled.orcx" --input "$work/ex.npy" \
    --input "$work/ey.npy" --repeat 40 | steps steps)"
  off="$("$bin/orchestra-run" "$work/element.orcx" --input "$work/ex.npy" \
    --input "$work/ey.npy" --repeat 40 | steps steps)"
  echo "round $round element-branch (2^20 elements): probes $on ms, none $off ms"
done
