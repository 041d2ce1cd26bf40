#!/usr/bin/env bash
# Configures (once) and builds OrchestraOS with Debian's clang/lld 22.
#   scripts/build.sh [BUILD_DIR] [--target TARGET]... [extra cmake -D options...]
# BUILD_DIR defaults to ./build. Re-running only rebuilds what changed. The
# -D options apply when BUILD_DIR is configured (its first build); --target
# builds only TARGET (and what it needs) instead of everything.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-$root/build}"
shift || true
targets=()
options=()
while [ $# -gt 0 ]; do
  case "$1" in
    --target) targets+=(--target "$2"); shift 2 ;;
    *) options+=("$1"); shift ;;
  esac
done

llvm=/usr/lib/llvm-22
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$llvm/bin/clang" \
    -DCMAKE_CXX_COMPILER="$llvm/bin/clang++" \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR="$llvm/lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm/bin/lit" \
    ${options[@]+"${options[@]}"}
fi
cmake --build "$build" ${targets[@]+"${targets[@]}"}
