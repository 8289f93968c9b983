#!/usr/bin/env bash
# fresh-machine.sh [--out DIR] [--with FILE]... [COMMAND]
#
# Runs COMMAND (default: packaging/run-tests.sh, the README's test command) on a clean clone of this
# repository's committed HEAD inside a brand-new minimal Debian 12 root: what a newcomer's machine
# has, nothing installed by hand. A set-up step that works here only because a package is already
# installed fails here instead of for a user. Needs root (debootstrap, chroot, mounts).
#
#   --out DIR    DIR is mounted at /root/out inside the root, for what COMMAND wants to hand back
#   --with FILE  FILE is copied into the root's /root/ first (repeatable)
#
# The minimal base (debootstrap --variant=minbase, from the apt mirror this machine already uses) is
# made once and cached as a tarball in $BREAKWATER_FRESH_CACHE (default /var/cache/breakwater-fresh);
# every run unpacks a new copy and throws it away afterwards (BREAKWATER_FRESH_KEEP=1 keeps it).
set -euo pipefail
out= with=()
while [[ $# -gt 0 ]]; do
    case $1 in
        --out) out=$(realpath "$2"); shift 2 ;;
        --with) with+=("$(realpath "$2")"); shift 2 ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) break ;;
    esac
done
command=${1:-packaging/run-tests.sh}
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
cache=${BREAKWATER_FRESH_CACHE:-/var/cache/breakwater-fresh}
base=$cache/bookworm-minbase.tar
say() { echo "fresh-machine: $*"; }
[[ $(id -u) -eq 0 ]] || { say "needs root (debootstrap, chroot, mount)" >&2; exit 2; }

if [[ ! -s $base ]]; then
    if ! command -v debootstrap >/dev/null; then
        say "installing debootstrap on this machine"
        DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends debootstrap >/dev/null
    fi
    # The mirror this machine's apt already uses (deb822 sources first, then the classic list).
    mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    [[ -n $mirror ]] || mirror=$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
    [[ -n $mirror ]] || { say "no apt mirror configured on this machine" >&2; exit 2; }
    mkdir -p "$cache"
    staging=$(mktemp -d "$cache/debootstrap.XXXXXX")
    say "creating a minimal Debian 12 root from $mirror (once; cached in $cache)"
    if ! debootstrap --variant=minbase bookworm "$staging" "$mirror" >"$cache/debootstrap.log" 2>&1; then
        rm -rf "$staging"
        say "debootstrap failed; see $cache/debootstrap.log" >&2
        exit 2
    fi
    tar -C "$staging" -cf "$base.part" . && mv "$base.part" "$base"
    rm -rf "$staging"
fi

root=$(mktemp -d /tmp/breakwater-fresh.XXXXXX)
cleanup() {
    for mount in root/out dev/shm dev/pts dev sys proc; do
        if mountpoint -q "$root/$mount"; then umount -l "$root/$mount"; fi
    done
    if [[ ${BREAKWATER_FRESH_KEEP:-0} == 1 ]]; then say "kept $root"; else rm -rf --one-file-system "$root"; fi
}
trap cleanup EXIT
tar -C "$root" -xf "$base"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t tmpfs shm "$root/dev/shm"
git clone -q "$repo" "$root/root/breakwater"
for file in "${with[@]}"; do cp "$file" "$root/root/"; done
if [[ -n $out ]]; then
    mkdir -p "$out" "$root/root/out"
    mount --bind "$out" "$root/root/out"
fi

say "running '$command' on a clone of $(git -C "$repo" rev-parse --short HEAD) in a new Debian 12 root"
started=$SECONDS
set +e
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 CI="${CI:-}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c "cd /root/breakwater && $command" </dev/null
status=$?
set -e
say "exit status $status after $((SECONDS - started)) s"
exit $status
