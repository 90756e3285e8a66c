"""The workspace's WARC files and raw bodies, the only copy of the pages collie fetched
(issues 33, 45, 55), in one package as warcio keeps its writer, reader and checker
together. No other package opens a WARC file or runs the archive's SQL.

- writer.py: `WarcArchive` writes every HTTP exchange as request and response records
  (a revisit record for a payload archived before), rotates the files, cuts a torn
  record off on reopening; `write_warcinfo` heads an export.
- reader.py: where the files are, a record read back at its offset, records copied byte
  for byte, where the whole gzip members end (how damage is found and named).
- index.py: the CDXJ index pywb replays from (warc/index.cdxj).
- check.py: one file checked as `warcio check` does, digests included; repair.py: the
  files checked against the page rows that point into them (`collie check`) and
  repaired (`--repair`); pointers.py: those rows and the lost_bodies table.
- keeping.py: the keep policy (warc.keep), the files opened for a run with what they
  hold remembered, an older workspace's body cache moved in; bodycache.py: that cache
  (cache/, for a workspace that keeps no WARC files); bodies.py: a page's raw body read
  back, wherever it is kept, checked against the SHA-1 recorded at the fetch.
- journal.py: the fetch journal (journal/): every answer on disk as it comes in, until
  its page is recorded, read back by the run after a kill -9 instead of fetched again.
"""
