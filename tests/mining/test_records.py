"""mining/records.py: what a loop counts, and the run's time limit."""

from __future__ import annotations

from collie.mining.records import OFFLINE_STOP, Deadline, LoopReport, RunReport
from collie.models import PageOutcome


def test_a_page_counted_and_taken_out_again_leaves_no_zero_counts() -> None:
    report = LoopReport(1)
    short = PageOutcome(1, "a.example", "dropped", "too-short", lang="zul")
    report.count(short)
    assert report.pages == {"dropped": 1} and report.reasons == {"too-short": 1}
    report.count(short, -1)
    report.count(PageOutcome(1, "a.example", "kept", lang="zul"))
    assert report.pages == {"kept": 1} and not report.reasons
    assert report.languages == {"zul": 1}
    assert "1 pages fetched: 1 target documents" in report.line()


def test_a_deadline_of_zero_never_passes_and_says_its_limit() -> None:
    assert not Deadline(0).passed()
    assert Deadline(1e-9).passed()
    assert Deadline(90).describe() == "the run's time limit (90 s) was reached"


def test_the_line_of_a_loop_finished_without_broken_hosts_names_five_of_them() -> None:
    report = LoopReport(3, held=8)
    report.held_hosts = {f"http://h{i}.example": "http-500" for i in range(7)}
    line = report.given_up_line()
    assert line.startswith("loop 3: finished without the 7 host(s) whose robots.txt could not")
    assert "http://h0.example (http-500), " in line and "http://h4.example (http-500)" in line
    assert "h5.example" not in line and line.endswith(" and 2 more; a later loop asks them again")


def test_only_a_run_stopped_for_want_of_any_answer_is_offline() -> None:
    """A time limit met while two unreachable hosts' pages wait is no failed run (the
    sweep's `run --loops 2 --max-time 5` exited 1 with no error line, issue 58)."""
    waiting = LoopReport(2, held=2, held_hosts={"https://example.org": "no answer"})
    timed = RunReport([waiting], stopped="the run's time limit (5 s) was reached")
    assert not timed.offline
    down = RunReport([waiting], stopped=f"{OFFLINE_STOP} 2 host(s) met (no answer 2)")
    assert down.offline
    waiting.pages["kept"] = 1
    assert not down.offline
