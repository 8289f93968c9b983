#!/usr/bin/env bash
# Sets up, builds and runs every test: a normal build, then the same tests under AddressSanitizer
# and UndefinedBehaviorSanitizer (any report fails the run), then a short run of every fuzz target
# (20 s each; any crash fails the run).
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/setup.sh

jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"

cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DBREAKWATER_SANITIZE=ON
cmake --build build-asan -j "$jobs"
ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs"

fuzz/run.sh 20
