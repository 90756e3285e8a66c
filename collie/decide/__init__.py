"""What a page is: a target document or not (classify), a near-duplicate or not (dedup)."""
