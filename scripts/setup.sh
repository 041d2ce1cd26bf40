#!/usr/bin/env bash
# Installs everything OrchestraOS needs to build and test, idempotently:
#   1. the Debian packages below (packages already present are left alone; `apt-get update` runs
#      at most once per invocation);
#   2. the Python virtual environment ./.venv (ignored by git), made from Debian's python3 with
#      --system-site-packages (Debian's numpy, onnx, PyTorch 1.13 and torchvision stay the
#      exporter and the reference) plus the pinned PyPI packages of requirements/test.txt.
#
#   scripts/setup.sh            what the build and the test suite need (CI runs this)
#   scripts/setup.sh --bench    also the benchmark peers of requirements/bench.txt (ONNX Runtime,
#                               OpenVINO, IREE, TVM); never needed by the tests
#   scripts/setup.sh --torch2   also PyTorch 2.x (about 4 GB, a CUDA build) in its own
#                               environment ./.venv-torch2 for the torch.compile peer
# The environment is re-made from its requirement files only when they changed (a stamp holds
# their checksum).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
want_bench=0
want_torch2=0
for arg in "$@"; do
  case "$arg" in
    --bench) want_bench=1 ;;
    --torch2) want_bench=1; want_torch2=1 ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "setup: unknown option '$arg' (see --help)" >&2; exit 2 ;;
  esac
done

PACKAGES=(
  # Build tooling.
  cmake ninja-build g++ clang-format clang-tidy
  # LLVM/MLIR 22 (CMake config under /usr/lib/llvm-22/lib/cmake/mlir; lit + FileCheck in tools).
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 lld-22
  # OpenMP runtime the CPU kernels run their parallel loops on.
  libomp-22-dev
  # Sanitizer runtimes for ORCHESTRA_ENABLE_SANITIZERS builds.
  libclang-rt-22-dev
  # Unit tests.
  libgtest-dev
  # ONNX importer: protobuf classes and op schemas; the ONNX backend test suite.
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata
  # The feedback service (orchestra-jit-server) and its client library: gRPC's C++ library and
  # protoc plugin.
  libgrpc++-dev protobuf-compiler-grpc
  # Test references (numpy is generated at test time by Debian's python3); ONNX models built
  # by the importer tests (python3-onnx) and exported from PyTorch (real-model tests).
  python3 python3-numpy python3-onnx python3-torch python3-torchvision
  # The virtual environment of the PyPI packages (requirements/).
  python3-venv
  # The benchmarks' peers: OpenBLAS (without it Debian's PyTorch falls back
  # to the reference BLAS and its matmuls run ten times slower) and oneDNN
  # (bench/gemm).
  libopenblas-dev libdnnl-dev
  # The AMD backend: the device libraries (ocml, ockl bitcode) its kernels'
  # math calls link with; Debian's HIP runtime, which the `hip` driver's
  # tests load to check its refusal on a machine without an AMD GPU.
  rocm-device-libs libamdhip64-5
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} Debian packages present"
else
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# make_venv DIR SYSTEM REQUIREMENT_FILE...: creates DIR (once; with Debian's site packages when
# SYSTEM is 1, and then held to their versions by requirements/constraints.txt) and installs the
# pinned requirement files into it unless the stamp says they are installed already.
make_venv() {
  local dir="$1" system="$2"
  shift 2
  local stamp="$dir/.orchestra-requirements"
  local flags=() pins=()
  if [ "$system" -eq 1 ]; then
    flags=(--system-site-packages)
    pins=(-c "$root/requirements/constraints.txt")
  fi
  local sum
  sum="$(cd "$root" && cat requirements/constraints.txt "$@" | sha256sum | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
    echo "setup: $(basename "$dir") up to date ($*)"
    return
  fi
  if [ ! -x "$dir/bin/python3" ]; then
    /usr/bin/python3 -m venv "${flags[@]}" "$dir"
  fi
  local reqs=()
  for file in "$@"; do reqs+=(-r "$root/$file"); done
  echo "setup: installing $* into $(basename "$dir")"
  "$dir/bin/python3" -m pip install -q --disable-pip-version-check \
    "${pins[@]}" "${reqs[@]}"
  echo "$sum" > "$stamp"
}

venv_files=(requirements/test.txt)
if [ "$want_bench" -eq 1 ]; then venv_files=(requirements/bench.txt); fi
# A bench environment holds the test requirements already: do not downgrade it to test-only.
if [ "$want_bench" -eq 0 ] && [ -f "$root/.venv/.orchestra-bench" ]; then
  venv_files=(requirements/bench.txt)
fi
make_venv "$root/.venv" 1 "${venv_files[@]}"
if [ "$want_bench" -eq 1 ]; then touch "$root/.venv/.orchestra-bench"; fi
# StableHLO's parser (the bridge) and XLA's CPU plugin (the pjrt driver's header and the device
# StableHLO tasks run on here), in their own environment: they need numpy 2.
make_venv "$root/.venv-xla" 0 requirements/xla.txt
if [ "$want_torch2" -eq 1 ]; then
  # Its own environment: PyTorch 2.x must not hide Debian's 1.13, the exporter and reference.
  make_venv "$root/.venv-torch2" 0 requirements/torch2.txt
fi
