"""Analyses of a run's results that more than one caller shares (they read result data only)."""
