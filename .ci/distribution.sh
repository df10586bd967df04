#!/usr/bin/env bash
# The pip and pre-commit routes on this platform: builds the wheel with maturin, installs it into a
# fresh virtual environment and runs the CLI from it, then runs the `dldoctor-check` pre-commit hook
# from this checkout against a small git repository. Python 3.8+ is the only other requirement.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
TOOLS="$TARGET/dist-tools"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
MATURIN_VERSION=1.16.0
PRE_COMMIT_VERSION=4.7.0

fail() {
    echo "distribution: $*" >&2
    exit 1
}

# Runs a command and checks its exit code (the CLI exits 1 when it has findings).
expect_exit() {
    local want=$1
    shift
    local got=0
    "$@" >"$WORK/out" 2>&1 || got=$?
    if [[ $got != "$want" ]]; then
        cat "$WORK/out" >&2
        fail "'$*' exited $got, expected $want"
    fi
}

if ! "$TOOLS/bin/maturin" --version 2>/dev/null | grep -q "$MATURIN_VERSION" ||
    ! "$TOOLS/bin/pre-commit" --version 2>/dev/null | grep -q "$PRE_COMMIT_VERSION"; then
    python3 -m venv "$TOOLS"
    "$TOOLS/bin/pip" install -q "maturin==$MATURIN_VERSION" "pre-commit==$PRE_COMMIT_VERSION"
fi

echo "-- wheel"
rm -rf "$TARGET/wheels"
(cd "$ROOT" && "$TOOLS/bin/maturin" build --release --locked --out "$TARGET/wheels")
wheels=("$TARGET"/wheels/dldoctor-*.whl)
[[ ${#wheels[@]} == 1 ]] || fail "expected one wheel, found: ${wheels[*]}"

echo "-- pip install into a fresh virtual environment"
python3 -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q "${wheels[0]}"
bin="$WORK/venv/bin/dldoctor"
[[ -x "$bin" ]] || fail "the wheel put no dldoctor in the environment's bin/"
crate_version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/Cargo.toml" | head -n1)
expect_exit 0 "$bin" --version
grep -qx "dldoctor $crate_version" "$WORK/out" || fail "dldoctor --version says $(cat "$WORK/out"), the crate is $crate_version"
expect_exit 0 "$WORK/venv/bin/python" -m dldoctor --version
grep -qx "dldoctor $crate_version" "$WORK/out" || fail "python -m dldoctor --version says $(cat "$WORK/out")"
expect_exit 1 "$bin" check "$ROOT/examples/"
grep -q "DL" "$WORK/out" || fail "dldoctor check examples/ printed no finding"
expect_exit 0 "$bin" explain "$ROOT/tests/corpus/fd-limit-1024.txt"
grep -q "pytorch/too-many-open-files" "$WORK/out" || fail "dldoctor explain gave no diagnosis: $(cat "$WORK/out")"

echo "-- pre-commit hook dldoctor-check"
# pre-commit clones the hook repository at `rev` and pip-installs it, which builds the crate with
# maturin: the shared target folder keeps that to one crate's compile.
export CARGO_TARGET_DIR="$TARGET" PRE_COMMIT_HOME="$TARGET/pre-commit-cache"
repo="$WORK/project"
mkdir -p "$repo"
git -C "$repo" init -q
cat >"$repo/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $ROOT
    rev: $(git -C "$ROOT" rev-parse HEAD)
    hooks:
      - id: dldoctor-check
YAML
cat >"$repo/clean.py" <<'PY'
from torch.utils.data import DataLoader


def make_loader(dataset):
    return DataLoader(dataset, batch_size=32, shuffle=True, num_workers=0)
PY
git -C "$repo" add .pre-commit-config.yaml clean.py
(cd "$repo" && expect_exit 0 "$TOOLS/bin/pre-commit" run --files clean.py)
grep -q "dldoctor check.*Passed" "$WORK/out" || fail "the hook did not pass on a clean file: $(cat "$WORK/out")"
cp "$ROOT/examples/eval_loader.py" "$repo/risky.py"
git -C "$repo" add risky.py
(cd "$repo" && expect_exit 1 "$TOOLS/bin/pre-commit" run --files risky.py)
grep -q "DL" "$WORK/out" || fail "the hook failed without a finding: $(cat "$WORK/out")"
echo "distribution: wheel, python -m, check, explain and the pre-commit hook work"
