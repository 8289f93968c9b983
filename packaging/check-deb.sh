#!/usr/bin/env bash
# check-deb.sh DEB: on a machine without Breakwater's build packages, install the .deb with apt
# (which must pull in only runtime packages), start `breakwater --headless --demo` on a free port
# and ask it for /healthz. Run by .ci/run inside a fresh Debian 12 root (fresh-machine.sh).
set -euo pipefail
deb=$(realpath "${1:?usage: check-deb.sh DEB}")
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q "$deb" >/tmp/apt.log 2>&1 || { cat /tmp/apt.log; exit 1; }
dev=$(dpkg-query -W -f='${binary:Package}\n' | grep -E -- '-dev(:|$)' || true)
[[ -z $dev ]] || { echo "check-deb: installing the .deb pulled in development packages: $dev" >&2; exit 1; }
echo "check-deb: installed $(dpkg-query -W -f='${Version}' breakwater) with $(dpkg-query -W | wc -l) packages in all"

log=$(mktemp)
breakwater --headless --demo --listen 127.0.0.1:0 --log-db "$(mktemp -d)/calls.sqlite" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
for _ in $(seq 100); do
    grep -q 'listening on' "$log" && break
    kill -0 $pid 2>/dev/null || { cat "$log"; exit 1; }
    sleep 0.1
done
url=$(grep -oE 'listening on http://127\.0\.0\.1:[0-9]+' "$log") || { cat "$log"; exit 1; }
port=${url##*:}
echo "check-deb: $(grep 'listening on' "$log")"
# Plain bash over /dev/tcp: the fresh root has no curl.
exec 3<>"/dev/tcp/127.0.0.1/$port"
printf 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
answer=$(timeout 3 cat <&3 || true)
exec 3>&-
grep -q '^HTTP/1.1 200' <<<"$answer" && grep -q '"status":"ok"' <<<"$answer" \
    || { echo "check-deb: /healthz did not answer 200 ok:"; echo "$answer"; exit 1; }
echo "check-deb: GET /healthz answered 200 $(tail -n1 <<<"$answer")"
