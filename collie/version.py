"""collie's version: one place, which pyproject.toml's `version` repeats (tests check
they agree), imported by whatever names the software (the user agent, the WARC files'
`software` field, a dataset card, the database's `created_with`)."""

__version__ = "0.1.0"
