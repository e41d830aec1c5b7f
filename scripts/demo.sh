#!/usr/bin/env bash
# Run every example scenario into out/demo/<name>/ and print each report.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for scenario in scenarios/*.toml; do
    name=$(basename "$scenario" .toml)
    printf '\n=== %s ===\n' "$name"
    .venv/bin/ecnlab run "$scenario" --out "out/demo/$name" || status=1
done
exit $status
