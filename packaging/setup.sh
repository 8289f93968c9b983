#!/usr/bin/env bash
# Installs the Debian 12 packages Breakwater needs to build, run, test and package. Safe to run
# again: it installs only what is missing, as root or through sudo. Recommends are never installed,
# so every package the build needs is named here (packaging/fresh-machine.sh proves it).
set -euo pipefail

packages=(
    build-essential cmake ninja-build
    qt6-base-dev qt6-base-dev-tools qt6-httpserver-dev
    qt6-websockets-dev      # find_package(Qt6 HttpServer) fails without it, though nothing pulls it in
    qt6-charts-dev qt6-svg-dev libqt6sql6-sqlite qt6-qpa-plugins
    libqt6opengl6-dev       # find_package(Qt6 Charts) needs Qt6OpenGL; only a Recommends of qt6-charts-dev
    fonts-dejavu-core xvfb xauth
    fonts-noto-cjk          # the Chinese screenshots (LANGUAGE=zh_CN dashboard_screenshots): CJK glyphs, not boxes
    qt6-l10n-tools qt6-tools-dev   # lupdate/lrelease and their CMake package (Qt6LinguistTools): .ts built to .qm
    qt6-translations-l10n   # Qt's own translations (qtbase_zh_CN.qm), for its dialogs
    libcurl4-openssl-dev libssl-dev   # the upstream engine (libcurl multi, OpenSSL as Qt's TLS backend)
    libhiredis-dev pkg-config   # the fleet's Redis client (--shared-state; hiredis 0.14)
    redis-server            # the fleet tests start their own (tst_fleet)
    nghttp2-server          # nghttpd: the HTTP/2 test upstream (tst_curlengine, breakwater-bench engine)
    prometheus              # promtool, to check the /metrics text in the tests
    libxml2-utils           # xmllint: tst_exec and tst_drillreport validate `breakwater exec --junit` XML
    dpkg-dev file           # CPack's .deb: dpkg-shlibdeps computes the runtime dependencies
    desktop-file-utils appstream lintian   # the packaging test validates what ships
    clang-14 libclang-rt-14-dev   # fuzz/run.sh; libFuzzer and the sanitizer runtimes are only Recommends
    llvm-14                 # llvm-symbolizer: fuzz crash reports with file and line
)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all ${#packages[@]} packages present"
    exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
