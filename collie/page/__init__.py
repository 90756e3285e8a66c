"""A fetched page to text: encoding, the parsed page's main text (extract, maintext), the
boilerplate rules, and process (one response -> one Page)."""
