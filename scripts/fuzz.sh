#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (a build with ASan, UBSan and coverage
# instrumentation, by default build-sanitized/, the build scripts/check.sh
# runs the test suite on), seeds their corpora from the
# repository and runs each one for a bounded time.
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [--build DIR] [--no-build]
#                   [--corpus DIR] [TARGET...]
#
# TARGET is npy, artifact, topology, onnx or mlir (default: all). Each
# fuzzer runs N seconds (default 60) on its corpus DIR/TARGET (default
# BUILD/corpus/TARGET, kept between runs: a long campaign is this command
# with a large N, run again to go on); J fuzzers run at once (default 1). Crashes are written to
# BUILD/crashes/TARGET-*; the script exits non-zero when a fuzzer found one,
# after running the others. Prints each fuzzer's executions. --no-build runs
# the fuzzers DIR already has (scripts/check.sh, which has just built them).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds=60
jobs=1
build_first=1
build="$root/build-sanitized"
corpus=""
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --no-build) build_first=0; shift ;;
    --corpus) corpus="$2"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -eq 0 ] && targets=(npy artifact topology onnx mlir)
# Absolute paths: each fuzzer runs in a scratch folder of its own.
mkdir -p "$build"
build="$(cd "$build" && pwd)"
corpus="${corpus:-$build/corpus}"
mkdir -p "$corpus"
corpus="$(cd "$corpus" && pwd)"

if [ "$build_first" = 1 ]; then
  # One build at a time in BUILD: a second fuzz.sh waits for the first's.
  exec 9>"$build/.fuzz-build.lock"
  flock 9
  echo "fuzz.sh: building the fuzzers in $build (log: $build/build.log)"
  if ! { "$root/scripts/build.sh" "$build" -DORCHESTRA_ENABLE_FUZZERS=ON &&
         cmake --build "$build" --target orchestra-fuzzers; } >"$build/build.log" 2>&1; then
    grep -m 20 -E 'error|FAILED' "$build/build.log" || tail -20 "$build/build.log"
    echo "fuzz.sh: the build failed" >&2
    exit 1
  fi
  flock -u 9
fi

# The build's own programs make some of the seeds: ASan without the
# poisoning LLVM's headers do (design note 0016).
export ASAN_OPTIONS=allow_user_poisoning=0

# Seeds, from what the repository holds (made afresh for each run, which
# has its own).
seeds="$(mktemp -d "$build/seeds.XXXXXX")"
trap 'rm -rf "$seeds"' EXIT
mkdir -p "$seeds"/{npy,artifact,topology,onnx,mlir}
cp "$root"/examples/*.npy "$seeds/npy/"
cp "$root"/topologies/*.json "$seeds/topology/"
for program in "$root"/examples/*.mlir "$root"/examples/asm-kernels/*.mlir \
               "$root"/test/e2e/*.mlir; do
  relative="${program#"$root"/}"
  cp "$program" "$seeds/mlir/${relative//\//_}"
done
testdata=/usr/share/libonnx-testdata/data/node
if [ -d "$testdata" ]; then
  for model in "$testdata"/*/model.onnx; do
    name="$(basename "$(dirname "$model")")"
    cp "$model" "$seeds/onnx/$name.onnx"
  done
fi
# Artifacts' payloads (the fuzzer seals them with a valid header): a CPU
# plan and GPU bundles of both vendors.
artifacts="$seeds/compiled"
mkdir -p "$artifacts"
compile() {
  "$build/bin/orchestra-compile" "$1" --topology "$2" -o "$3" --quiet
}
compile "$root/examples/mlp.mlir" "$root/topologies/two-cpu.json" "$artifacts/mlp.orcx"
compile "$root/examples/asm-kernels/vadd-gcn.mlir" "$root/topologies/mi300x.json" "$artifacts/gcn.orcx"
compile "$root/examples/asm-kernels/vadd-ptx.mlir" "$root/topologies/cpu+hopper.json" "$artifacts/ptx.orcx" || true
for artifact in "$artifacts"/*.orcx; do
  tail -c +41 "$artifact" > "$seeds/artifact/$(basename "$artifact" .orcx).payload"
done

mkdir -p "$build/crashes"
status=0
# First the inputs that crashed a fuzzer once (fuzz/regressions/TARGET/*,
# docs/Reliability.md): each must now run clean.
for target in "${targets[@]}"; do
  regressions=("$root/fuzz/regressions/$target"/*)
  [ -e "${regressions[0]}" ] || continue
  if ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0 "$build/fuzz/orchestra-fuzz-$target" \
       "${regressions[@]}" >"$build/regressions-$target.log" 2>&1; then
    echo "fuzz $target: ${#regressions[@]} regression input(s) run clean"
  else
    echo "fuzz $target: a regression input FAILED ($build/regressions-$target.log)"
    grep -m 3 -E 'ERROR|SUMMARY' "$build/regressions-$target.log" || true
    status=1
  fi
done
# One fuzzer's run: prints one line, and fails when the fuzzer found a crash.
run_fuzzer() {
  local target="$1"
  local fuzzer="$build/fuzz/orchestra-fuzz-$target"
  mkdir -p "$corpus/$target"
  local dict=()
  [ -f "$root/fuzz/dicts/$target.dict" ] && dict=(-dict="$root/fuzz/dicts/$target.dict")
  local log="$build/fuzz-$target.log"
  # The model's folder of the ONNX fuzzer and any file a fuzzer writes: a
  # scratch folder.
  local scratch rc cpu start=$SECONDS
  scratch="$(mktemp -d)"
  set +e
  cpu="$( { TIMEFORMAT='%U+%S'; time (cd "$scratch" &&
       ASAN_OPTIONS=allow_user_poisoning=0:detect_leaks=0:abort_on_error=1 "$fuzzer" \
         -max_total_time="$seconds" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
         -artifact_prefix="$build/crashes/$target-" "${dict[@]}" \
         "$corpus/$target" "$seeds/$target" >"$log" 2>&1); } 2>&1 )"
  rc=$?
  set -e
  rm -rf "$scratch"
  cpu="$(echo "$cpu" | tail -1 | awk -F+ '{ printf "%d", $1 + $2 }')"
  local runs
  runs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')"
  if [ $rc -ne 0 ]; then
    echo "fuzz $target: FAILED after $runs executions in $((SECONDS - start))s" \
         "(${cpu:-?}s of CPU) ($log):"
    grep -m 5 -E 'ERROR|SUMMARY|runtime error|deadly signal' "$log" || tail -5 "$log"
    return 1
  fi
  echo "fuzz $target: $runs executions in ${seconds}s (${cpu:-?}s of CPU)," \
       "$(ls "$corpus/$target" | wc -l) corpus entries, no crash"
}

for target in "${targets[@]}"; do
  if [ ! -x "$build/fuzz/orchestra-fuzz-$target" ]; then
    echo "fuzz.sh: no fuzzer '$target' (known: npy artifact topology onnx mlir)" >&2
    exit 2
  fi
done
# JOBS fuzzers at a time; each one's line is printed when it ends.
running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  run_fuzzer "$target" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
