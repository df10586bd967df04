#!/usr/bin/env bash
# Runs every fuzz target for a bounded time: `fuzz/run.sh SECONDS` shares SECONDS among the
# targets. Installs cargo-fuzz if it is missing. Builds without a sanitizer, which needs no
# nightly toolchain: the code is safe Rust, and what the targets look for are panics, failed
# assertions, hangs and runaway memory. A crash leaves its input in fuzz/artifacts/TARGET/ and
# ends the run with a non-zero status.
set -euo pipefail
cd "$(dirname "$0")"

total="${1:?usage: fuzz/run.sh SECONDS}"
targets=(analyze_fix explain server)
per_target=$(( total / ${#targets[@]} ))
if (( per_target < 1 )); then
    per_target=1
fi

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --version 0.13.2 --locked
fi

export CARGO_TARGET_DIR="${FUZZ_TARGET_DIR:-$PWD/target}"
cargo fuzz build --sanitizer none 2>&1 | tail -n 3
for target in "${targets[@]}"; do
    # New inputs go to a scratch corpus; the seeds written for each target stay as they are.
    corpus="corpus/$target"
    mkdir -p "$corpus"
    echo "== fuzz $target for ${per_target}s"
    cargo fuzz run --sanitizer none "$target" "$corpus" "seeds/$target" -- \
        -max_total_time="$per_target" -timeout=30 -rss_limit_mb=4096 -max_len=65536 \
        -print_final_stats=1 2>&1 |
        # The summary lines, and a panic's message (the lines after "panicked at").
        awk '/panicked/ { print; shown = 4; next }
             shown > 0 { print; shown-- ; next }
             /^(stat::number_of_executed_units|stat::new_units_added|==|INFO: (Seed|Loaded)|Error:)|ERROR|SUMMARY/' || true
    # A crash is an artifact, whatever grep let through.
    if compgen -G "artifacts/$target/*" >/dev/null; then
        echo "fuzz $target: crash inputs in fuzz/artifacts/$target/" >&2
        exit 1
    fi
done
