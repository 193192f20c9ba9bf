#!/usr/bin/env bash
# Builds and packages the extension into dist/mpiscope.vsix, then checks what went in: the package
# must hold the bundles, the shim's sources and the finding docs, and none of node_modules, tests,
# TypeScript sources or the e2e tools.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="dist/mpiscope.vsix"

node scripts/build.mjs

# vsce asks interactively when there is no LICENSE file; the license is declared in package.json.
license_flag=()
compgen -G "LICENSE*" >/dev/null || license_flag=(--skip-license)

rm -f "$OUT"
# The project has no public repository URL to name; the extension does not need one.
npx --no-install vsce package --no-dependencies --allow-missing-repository --no-rewrite-relative-links "${license_flag[@]}" -o "$OUT" </dev/null

listing="$(unzip -Z1 "$OUT")"
fail=0
require() {
  if ! grep -qE "$1" <<<"$listing"; then
    echo "package: $OUT lacks $2" >&2
    fail=1
  fi
}
forbid() {
  local hit
  hit="$(grep -E "$1" <<<"$listing" | head -3 || true)"
  if [ -n "$hit" ]; then
    echo "package: $OUT must not contain $2, but has: $(tr '\n' ' ' <<<"$hit")" >&2
    fail=1
  fi
}
require '^extension/package\.json$' 'package.json'
require '^extension/dist/extension\.js$' 'dist/extension.js (the bundled extension)'
[ -f server/src/lsp/main.ts ] && require '^extension/dist/server\.js$' 'dist/server.js (the language server)'
[ -f webview/src/main.ts ] && require '^extension/dist/webview\.js$' 'dist/webview.js (the timeline)'
[ -d native-shim/src ] && require '^extension/native-shim/src/' 'the shim sources (native-shim/src)'
require '^extension/native-shim/spec/' 'the shim spec (native-shim/spec)'
[ -d docs/findings ] && require '^extension/docs/findings/' 'docs/findings'
[ -f README.md ] && require '^extension/readme\.md$|^extension/README\.md$' 'README.md'
forbid '/node_modules/' 'node_modules'
forbid '^extension/(test|dist/test|dist/types|\.tools|server|webview/src|extension/src)/' 'tests, sources or tools'
forbid '^extension/native-shim/build/' 'native-shim/build (machine-specific build output)'
forbid '\.ts$' 'TypeScript sources'
[ "$fail" -eq 0 ] || exit 1

echo "package: $OUT ($(du -k "$OUT" | cut -f1) KiB, $(grep -c '^extension/' <<<"$listing") files)"
