#!/usr/bin/env bash
# refresh-prices.sh [VERSION]: replaces the vendored price data in third_party/genai-prices/ with a
# release of pydantic's genai-prices from npm (@pydantic/genai-prices; default: the latest one).
#
# A maintainer's tool: it needs npm and node. The build needs neither: it converts the vendored
# snapshot with tools/pricegen (C++), so commit what this script writes, then build and run
# tst_pricetable, which checks the converted table.
#
# The package does not ship its data as a JSON file: dist/index.js opens with the providers array as
# a JavaScript literal (`const E = [...]`) that the module does not export. The script loads a copy
# of that module with one more export and prints the array as JSON, checked before it replaces
# anything.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=$root/third_party/genai-prices
version=${1:-latest}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "refresh-prices: $*" >&2; exit 1; }
command -v npm >/dev/null && command -v node >/dev/null || fail "needs npm and node"

cd "$work"
tarball=$(npm pack --silent "@pydantic/genai-prices@$version")
tar xzf "$tarball"
resolved=$(node -p 'require("./package/package.json").version')
license=$(node -p 'require("./package/package.json").license')
[[ $license == MIT ]] || fail "the package's licence is now $license, not MIT: check before vendoring"
integrity=$(npm view "@pydantic/genai-prices@$resolved" dist.integrity)
today=$(date -u +%F)

binding=$(sed -nE '1s/^const ([A-Za-z_$][A-Za-z0-9_$]*) = \[$/\1/p' package/dist/index.js)
[[ -n $binding ]] || fail "dist/index.js no longer opens with the providers array; update this script"
{ cat package/dist/index.js; printf '\nexport { %s as __breakwaterProviders };\n' "$binding"; } > data.mjs

node --input-type=module - "$resolved" "$integrity" "$today" > data.json <<'JS'
const [version, integrity, fetched] = process.argv.slice(2);
const { __breakwaterProviders: providers } = await import(process.cwd() + '/data.mjs');
const ids = new Set();
if (!Array.isArray(providers)) throw new Error('the providers literal is not an array');
for (const provider of providers) {
    if (typeof provider.id !== 'string' || !Array.isArray(provider.models))
        throw new Error('a provider without id or models');
    for (const model of provider.models)
        if (typeof model.id !== 'string' || typeof model.match !== 'object' || typeof model.prices !== 'object')
            throw new Error(`${provider.id}: a model without id, match or prices`);
    ids.add(provider.id);
}
for (const needed of ['openai', 'anthropic'])
    if (!ids.has(needed)) throw new Error(`no ${needed} provider`);
const snapshot = { package: '@pydantic/genai-prices', version, integrity, fetched, providers };
process.stdout.write(JSON.stringify(snapshot, null, 2) + '\n');
JS

mkdir -p "$dest"
cp data.json "$dest/data.json"
cp package/LICENSE "$dest/LICENSE"
cat > "$dest/README.md" <<MD
# genai-prices snapshot

Price data from [genai-prices](https://github.com/pydantic/genai-prices) by Pydantic (MIT, see
LICENSE): \`@pydantic/genai-prices\` **$resolved** from npm ($integrity), fetched $today.

\`data.json\` is the package's providers array as JSON (the package embeds it in \`dist/index.js\`),
with the version and date beside it. Nothing in it is edited by hand: \`tools/refresh-prices.sh
[VERSION]\` replaces this folder, and the build converts \`data.json\` into Breakwater's price table
(\`tools/pricegen\`; what it keeps and drops is in the README's "Prices" section).
MD
echo "refresh-prices: @pydantic/genai-prices $resolved ($(du -h "$dest/data.json" | cut -f1)) -> $dest"
