#!/usr/bin/env bash
# Installs every Debian package OrchestraOS needs to build and test. Idempotent: packages already
# present are left alone, and `apt-get update` runs at most once per invocation.
set -euo pipefail

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
  # Test references (numpy is generated at test time by Debian's python3); ONNX models built
  # by the importer tests (python3-onnx) and exported from PyTorch (real-model tests).
  python3 python3-numpy python3-onnx python3-torch python3-torchvision
  # The benchmarks' peers: OpenBLAS (without it Debian's PyTorch falls back
  # to the reference BLAS and its matmuls run ten times slower) and oneDNN
  # (bench/gemm).
  libopenblas-dev libdnnl-dev
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
