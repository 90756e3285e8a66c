"""Crawling out: links and sites (links), sitemaps and feeds (listings)."""
