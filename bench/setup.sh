#!/usr/bin/env bash
# Installs what bench/models.py needs beyond tools/setup.sh (run that first): torchvision and
# transformers for the model definitions, torchao for ExecuTorch's XNNPACK partitioner, ONNX
# Runtime and torch.onnx's exporter. Each of them, installed with its declared dependencies,
# would replace the CPU torch or pull in heavy packages the benchmark does not use, so they go
# in with --no-deps and their light pure-Python dependencies are named here. Safe to re-run.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
pip_install() { "$PYTHON" -m pip install -q "$@"; }

# torchvision 0.28.0 pairs with torch 2.13. Its compiled ops are a CUDA build that does not load
# beside the CPU torch; bench/models.py defines the two schemas its Python side needs.
pip_install --no-deps torchvision==0.28.0 pillow
# transformers 4.57.6 and its pure-Python dependencies (the models are built from configs: no
# downloads).
pip_install --no-deps transformers==4.57.6
pip_install "huggingface-hub>=0.34,<1.0" "tokenizers>=0.22,<=0.23.0" "safetensors>=0.4.3" \
  regex tqdm filelock requests pyyaml
# ExecuTorch 1.5.1's XNNPACK partitioner imports torchao (1.5.1 asks for 0.18).
pip_install --no-deps torchao==0.18.0
# ONNX Runtime (CPU) and the packages torch.onnx.export(dynamo=True) uses.
pip_install --no-deps onnxruntime==1.32.0 onnx==1.23.2 onnxscript==0.7.2 onnx-ir==1.1.0 \
  ml_dtypes==0.7.0 protobuf
pip_install typing_extensions sympy packaging numpy flatbuffers
