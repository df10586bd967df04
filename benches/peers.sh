#!/usr/bin/env bash
# Times `dldoctor check` against `ruff check` on the same tree of Python training scripts with
# hyperfine. ruff is installed from PyPI into a virtualenv outside the repository; hyperfine
# comes from apt when it is missing.
#
#   bash benches/peers.sh [COPIES]     # COPIES of examples/ (default 500, about 120k lines)
set -euo pipefail
cd "$(dirname "$0")/.."

copies="${1:-500}"
work="${PEERS_DIR:-${TMPDIR:-/tmp}/dldoctor-peers}"
venv="$work/venv"
tree="$work/tree"

if ! command -v hyperfine >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq hyperfine
fi
if [[ ! -x "$venv/bin/ruff" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q ruff
fi
cargo build --release -q

rm -rf "$tree"
mkdir -p "$tree"
for i in $(seq 1 "$copies"); do
    cp -r examples "$tree/copy$i"
done
files=$(find "$tree" -name '*.py' | wc -l)
lines=$(find "$tree" -name '*.py' -exec cat {} + | wc -l)
echo "tree: $files files, $lines lines; ruff $("$venv/bin/ruff" --version)"

hyperfine --warmup 2 --runs 10 \
    --command-name "dldoctor check" \
    "target/release/dldoctor check --exit-zero --assume-cpus 8 --assume-shm 16GiB $tree >/dev/null" \
    --command-name "ruff check (default rules, no cache)" \
    "$venv/bin/ruff check --exit-zero --no-cache --isolated --quiet $tree"
