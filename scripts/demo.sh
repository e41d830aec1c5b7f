#!/usr/bin/env bash
# The main job: reproduce every seed study in its quick form into out/reproduce/
# (tables, figures, report.html per experiment and an index report.html), then
# run the example scenarios and sweeps into out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
printf '\n=== reproduce all --quick ===\n'
.venv/bin/ecnlab reproduce all --quick --out out/reproduce || status=1
for scenario in scenarios/*.toml; do
    name=$(basename "$scenario" .toml)
    [[ $name == sweep-* || $name == emulate-* ]] && continue  # sweeps below; emulation needs root namespaces
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
[[ $status == 0 ]] && printf '\nreport: out/reproduce/report.html\n'
exit $status
