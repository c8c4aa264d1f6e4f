#!/usr/bin/env bash
# Installs what Kiln needs on a fresh machine (compiler, CMake, Ninja, torch CPU, build deps) and
# Kiln itself, editable, with its dev extras. Safe to re-run: finished steps are quick no-ops.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}

missing=()
command -v g++ >/dev/null || missing+=(g++)
command -v cmake >/dev/null || missing+=(cmake)
command -v ninja >/dev/null || missing+=(ninja-build)
command -v nm >/dev/null || missing+=(binutils)
# GoogleTest, for the native tests (KILN_BUILD_TESTS=ON, which pytest builds).
[ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
# FlatBuffers: flatc generates the .pte reader at build time, against these headers.
command -v flatc >/dev/null || missing+=(flatbuffers-compiler)
[ -f /usr/include/flatbuffers/flatbuffers.h ] || missing+=(libflatbuffers-dev)
# pthreadpool: the intra-op thread pool (KILN_THREADS); without it Kiln builds single-threaded.
[ -f /usr/include/pthreadpool.h ] || missing+=(libpthreadpool-dev)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing ${missing[*]}; install them (as root: apt-get install ${missing[*]})" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The CPU build of torch first: an unpinned torch would pull the CUDA build.
"$PYTHON" -m pip install -q torch==2.13.0
"$PYTHON" -m pip install -q "scikit-build-core>=0.10" "pybind11>=2.12" "pyyaml>=6"
# No build isolation: the build must see the installed torch instead of fetching another.
# The `executorch` extra holds the light packages ExecuTorch 1.5.1 needs to export and run; the
# `mindspore` extra is MindSpore (CPU) for tests/test_mindspore.py.
"$PYTHON" -m pip install -q --no-build-isolation -e ".[dev,executorch,mindspore]"
# ExecuTorch 1.5.1 itself, the reference the compatibility tests export and run with. Its hard
# requirements include heavy packages it does not need for that (torchao, coremltools, pandas,
# scikit-learn), so it goes in without them.
"$PYTHON" -m pip install -q --no-deps executorch==1.5.1
# torchao, without its dependencies, for ExecuTorch's PT2E quantizer (XNNPACKQuantizer), with which
# the tests write int8 programs as ExecuTorch users do; ExecuTorch 1.5.1 asks for 0.18.
"$PYTHON" -m pip install -q --no-deps torchao==0.18.0
