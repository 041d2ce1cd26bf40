#!/usr/bin/env bash
# Runs the schedule-quality benchmark: the synthetic workloads and the four
# real models (exported from PyTorch with random weights) on the shipped
# topologies. Writes the Markdown report to $1 (default:
# build/sched-bench.md) and prints it.
#
#   bench/run-sched-bench.sh [REPORT.md] [BUILD_DIR]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
report="${1:-$root/build/sched-bench.md}"
build="${2:-$root/build}"
models="$(mktemp -d)"
trap 'rm -rf "$models"' EXIT
python=/usr/bin/python3
args=()
for model in resnet18 mobilenet_v2 transformer_encoder_layer mlp; do
  echo "exporting $model..." >&2
  "$python" "$root/test/e2e/onnx/Inputs/torch_models.py" export "$model" "$models/$model" >/dev/null
  args+=(--model "$models/$model/model.onnx")
done
"$build/bin/orchestra-sched-bench" "${args[@]}" --markdown "$report"
