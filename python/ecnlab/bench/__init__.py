"""Benchmarks: ``ecnlab bench peers`` runs ecnlab, ns-2 and ns-3 side by side (docs/performance.md)."""
