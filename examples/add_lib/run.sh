#!/usr/bin/env bash
# Configures Kiln, builds add_lib_demo and runs it.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$root/build/demo"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target add_lib_demo
"$build/examples/add_lib/add_lib_demo"
