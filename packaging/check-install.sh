#!/usr/bin/env bash
# check-install.sh BUILD_DIR: what ships is what `cmake --install` installs, and the .deb is exactly
# that. Installs into a staging folder (DESTDIR), checks every shipped file is there and valid
# (desktop-file-validate, appstreamcli, the man page lists every option), then builds the .deb with
# CPack, compares its contents with the staging folder and runs lintian on it (errors fail).
set -euo pipefail
build=$(cd "${1:?usage: check-install.sh BUILD_DIR}" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
fail() { echo "check-install: $*" >&2; exit 1; }

DESTDIR="$stage" cmake --install "$build" --prefix /usr >/dev/null
id=io.github.breakwater.Breakwater
expected=(
    usr/bin/breakwater
    usr/bin/breakwater-bench
    usr/share/applications/$id.desktop
    usr/share/metainfo/$id.metainfo.xml
    usr/share/icons/hicolor/scalable/apps/$id.svg
    usr/share/icons/hicolor/scalable/status/$id-closed.svg
    usr/share/icons/hicolor/scalable/status/$id-half-open.svg
    usr/share/icons/hicolor/scalable/status/$id-open.svg
    usr/share/breakwater/prices.json
    usr/share/man/man1/breakwater.1.gz
    usr/share/man/man1/breakwater-bench.1.gz
    usr/share/doc/breakwater/copyright
    usr/share/doc/breakwater/changelog.gz
    usr/lib/systemd/user/breakwater.service
)
for size in 16 22 24 32 48 64 128 256; do
    expected+=(usr/share/icons/hicolor/${size}x${size}/apps/$id.png)
done
for file in "${expected[@]}"; do
    [[ -s $stage/$file ]] || fail "not installed: /$file"
done
for size in 16 256; do   # rendered at the size its folder claims
    png=$stage/usr/share/icons/hicolor/${size}x${size}/apps/$id.png
    read -r w h < <(od -An -tu1 -j16 -N8 "$png" | awk '{print $3*256+$4, $7*256+$8}')
    [[ $w == "$size" && $h == "$size" ]] || fail "$png is ${w}x${h}, not ${size}x${size}"
done
unexpected=$(cd "$stage" && find . -type f | sed 's|^\./||' | sort | comm -13 <(printf '%s\n' "${expected[@]}" | sort) -)
[[ -z $unexpected ]] || fail "installed but not in the list of shipped files: $unexpected"

desktop-file-validate "$stage/usr/share/applications/$id.desktop"
appstreamcli validate --no-net --explain "$stage/usr/share/metainfo/$id.metainfo.xml" >/dev/null \
    || appstreamcli validate --no-net "$stage/usr/share/metainfo/$id.metainfo.xml"

# The man page documents every option that --help lists.
man=$(zcat "$stage/usr/share/man/man1/breakwater.1.gz" | sed 's/\\-/-/g')
for option in $("$build/app/breakwater" --help | grep -oE '^  --[a-z-]+'); do
    grep -qe "$option" <<<"$man" || fail "the man page does not document $option"
done

# The .deb, from the same install rules.
rm -rf "$build/package"
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/package/breakwater_*_amd64.deb)
packaged=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\./||' | sort)
[[ $packaged == "$(printf '%s\n' "${expected[@]}" | sort)" ]] \
    || fail "the .deb's files differ from the install: $(diff <(echo "$packaged") <(printf '%s\n' "${expected[@]}" | sort) || true)"
depends=$(dpkg-deb -f "$deb" Depends)
[[ $depends != *-dev* ]] || fail "the .deb depends on a -dev package: $depends"
[[ $depends == *libqt6sql6-sqlite* ]] || fail "the .deb misses the SQLite driver: $depends"
lintian --fail-on error "$deb"
echo "check-install: ${#expected[@]} files installed and packaged in $(basename "$deb"); Depends: $depends"
