#!/usr/bin/env bash
# Run every example scenario into out/demo/<name>/ and print each report; sweeps also write report.html.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for scenario in scenarios/*.toml; do
    name=$(basename "$scenario" .toml)
    [[ $name == sweep-* ]] && continue  # sweep files: below
    printf '\n=== %s ===\n' "$name"
    .venv/bin/ecnlab run "$scenario" --out "out/demo/$name" || status=1
done
# Sweeps (docs/sweeps.md): run the grid, then write out/demo/<name>/report.html.
for sweep in scenarios/sweep-*.toml; do
    name=$(basename "$sweep" .toml)
    printf '\n=== %s ===\n' "$name"
    if .venv/bin/ecnlab sweep "$sweep" --out "out/demo/$name"; then
        .venv/bin/ecnlab report "out/demo/$name" || status=1
    else
        status=1
    fi
done
exit $status
