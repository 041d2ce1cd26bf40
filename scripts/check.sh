#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run: the README's test command,
# after scripts/setup.sh):
#   1. build-sanitized/: OrchestraOS built with AddressSanitizer, UBSan and
#      libFuzzer's coverage instrumentation; every lit test and unit test
#      runs on it (check-orchestra);
#   2. the runtime's unit tests built with ThreadSanitizer (build-tsan/,
#      only what they need);
#   3. every fuzzer of fuzz/ for a bounded time on the build of step 1, after
#      the inputs that once crashed them (scripts/fuzz.sh).
# Every step runs even when an earlier one failed (unless a build failed);
# the script ends with one line per step and fails when any did.
#
#   scripts/check.sh [--fuzz-seconds N] [--jobs J]
#
# N: seconds per fuzzer (default 60; 0 leaves the fuzzers out). J: lit
# workers and fuzzers at once (default: the number of CPUs). For the quick
# loop while developing, `ninja -C build check-orchestra` runs the same lit
# suite on the plain build.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fuzz_seconds=60
jobs="$(nproc)"
while [ $# -gt 0 ]; do
  case "$1" in
    --fuzz-seconds) fuzz_seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "check.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

summary=()
status=0
# step NAME COMMAND...: runs the command, timed, and records its outcome.
step() {
  local name="$1"
  shift
  local start=$SECONDS
  echo "check.sh: $name"
  if "$@"; then
    summary+=("passed  $name ($((SECONDS - start)) s)")
    return 0
  fi
  summary+=("FAILED  $name ($((SECONDS - start)) s)")
  status=1
  return 1
}

sanitized="$root/build-sanitized"
tsan="$root/build-tsan"

if step "build with ASan, UBSan and coverage instrumentation ($sanitized)" \
     "$root/scripts/build.sh" "$sanitized" -DORCHESTRA_ENABLE_FUZZERS=ON; then
  step "lit suite under ASan and UBSan" \
    env LIT_OPTS="-j$jobs ${LIT_OPTS:-}" ninja -C "$sanitized" check-orchestra
fi

if step "build the runtime's unit tests with ThreadSanitizer ($tsan)" \
     "$root/scripts/build.sh" "$tsan" --target OrchestraRuntimeTests \
     -DORCHESTRA_ENABLE_TSAN=ON; then
  step "runtime unit tests under ThreadSanitizer" \
    "$tsan/unittests/Runtime/OrchestraRuntimeTests" --gtest_brief=1
fi

if [ "$fuzz_seconds" -gt 0 ] && [ -d "$sanitized/fuzz" ]; then
  step "fuzzers, ${fuzz_seconds} s each" \
    "$root/scripts/fuzz.sh" --build "$sanitized" --no-build --seconds "$fuzz_seconds" \
    --jobs "$jobs"
fi

echo
echo "check.sh summary:"
printf '  %s\n' "${summary[@]}"
exit $status
