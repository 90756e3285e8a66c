"""The corpus: export, report, review."""
