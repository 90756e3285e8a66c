"""The logger names a user reads, kept while the code's loggers take their module's name.

Every module logs through `logging.getLogger(__name__)`. Run logs and `-v` lines used
to show hand-written names (`collie.fetch`, `collie.search`, `collie.pipeline`), which
users grep for; for one release those names stay what the log lines show:
`AliasFormatter` writes a record's old name in place of its module's, and leaves the
record itself alone (other handlers, pytest's caplog, see the module name). Filtering
by logger (`logging.getLogger("collie.fetch")`) follows the module names now: the
package's logger, `collie`, still holds them all.

The aliases are kept for one release, then dropped (docs/mining.md, "Logs").
"""

from __future__ import annotations

import logging

# Module name -> the name log lines showed before loggers were named by module.
LOGGER_ALIASES = {
    "collie.fetch.fetcher": "collie.fetch",
    "collie.search.base": "collie.search",
    "collie.search.google": "collie.search",
    "collie.page.maintext": "collie.maintext",
    "collie.api.mine": "collie.runlog",  # the run's own lines, in logs/ only
    "collie.mining.loop": "collie.pipeline",
    "collie.mining.examine": "collie.examine",
    "collie.archive.bodies": "collie.bodies",
    "collie.mining.scan": "collie.scan",
    "collie.archive.keeping": "collie.archive",
    "collie.mining.relatives": "collie.relatives",
}


def shown_name(name: str) -> str:
    """The logger name a log line shows for the logger `name`."""
    return LOGGER_ALIASES.get(name, name)


class AliasFormatter(logging.Formatter):
    """A Formatter whose `%(name)s` is the logger's user-facing name (`shown_name`)."""

    def format(self, record: logging.LogRecord) -> str:
        name = record.name
        record.name = shown_name(name)
        try:
            return super().format(record)
        finally:
            record.name = name
