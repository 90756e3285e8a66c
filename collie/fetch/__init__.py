"""The fetch stage: polite HTTP (fetcher), per-host pacing (hostgate), the continuous
scheduler (pool), robots.txt (robots), raw bodies kept (bodycache)."""
