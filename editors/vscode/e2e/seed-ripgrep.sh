#!/usr/bin/env bash
# @vscode/ripgrep (a code-server dependency) downloads rg from GitHub in its postinstall, which is
# unreachable here: seed its download cache with Debian's rg so the install stays offline.
set -euo pipefail
RG=$(command -v rg)
CACHE="$(node -p 'require("os").tmpdir()')/vscode-ripgrep-cache-1.15.11"
ASSET="$CACHE/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
[ -f "$ASSET" ] && exit 0
STAGE=$(mktemp -d)
mkdir -p "$CACHE"
cp "$RG" "$STAGE/rg"
tar czf "$ASSET" -C "$STAGE" rg
rm -rf "$STAGE"
