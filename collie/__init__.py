"""collie: mine the web for clean text corpora in resource-scarce languages."""

__version__ = "0.1.0"
