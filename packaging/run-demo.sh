#!/usr/bin/env bash
# Sets up, builds and starts Breakwater in demo mode (the built-in mock provider as upstream):
# the desktop dashboard where there is a display, headless where there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
packaging/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j "$(nproc)" --target breakwater
exec build/app/breakwater --demo "$@"   # the desktop app; headless by itself when there is no display
