#!/usr/bin/env bash
# Exports a small CNN and a transformer block with kiln.export, builds a lean runner for each,
# runs them and compares against PyTorch and ExecuTorch's runtime (see demo.py).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
python3 "$root/examples/programs/demo.py" --build-dir "$root/build/programs-demo" "$@"
