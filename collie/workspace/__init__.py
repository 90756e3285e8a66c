"""The workspace folder: finding, creating, locking it, its settings and seed documents."""
