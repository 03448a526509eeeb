"""The benchmark commands append their run to the history and rewrite only their own row
of the summary table in BENCHMARKS.md."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.report import HISTORY_HEADER, Figure, append_section, with_summary_row
from bench.scale import targets_met
from bench.web import figure as web_figure
from bench.web import median_interval, metrics_figure, metrics_summary

SUMMARY = """# Benchmarks

Intro.

| benchmark | current figure | target | machine | date (UTC) |
|---|---|---|---|---|
| `make bench`: import | 1 replays/s | ≥ 2 | old box | 2026-01-01 00:00 |
| `make bench-live`: lag | p95 9 s | | old box | 2026-01-01 00:00 |
| by hand: something | 3 s | | old box | 2026-01-01 00:00 |

Commands: `make bench`.
"""


def _row(text: str, start: str) -> list[str]:
    return [line for line in text.split("\n") if line.startswith(start)]


def test_the_command_s_row_is_replaced_and_no_other_line_changes():
    rewritten = with_summary_row(
        SUMMARY, "make bench", "| `make bench`: import | 5 | ≥ 2 | b | d |"
    )

    assert _row(rewritten, "| `make bench`") == ["| `make bench`: import | 5 | ≥ 2 | b | d |"]
    before, after = SUMMARY.split("\n"), rewritten.split("\n")
    assert len(before) == len(after)
    assert [i for i, (old, new) in enumerate(zip(before, after, strict=True)) if old != new] == [6]


def test_a_command_without_a_row_gets_one_at_the_end_of_the_table():
    row = "| `make bench-web`: pages | 1.2x | ≤ 1.5x | b | d |"

    rewritten = with_summary_row(SUMMARY, "make bench-web", row)

    lines = rewritten.split("\n")
    assert lines[lines.index(row) - 1].startswith("| by hand")
    assert lines[lines.index(row) + 1] == ""
    assert with_summary_row(rewritten, "make bench-web", row) == rewritten


def test_append_section_adds_the_run_to_the_history_and_rewrites_the_row(tmp_path: Path):
    history, summary = tmp_path / "history.md", tmp_path / "BENCHMARKS.md"
    summary.write_text(SUMMARY)
    figure = Figure("make bench-live", "lag", "p95 0.35 s", "every game once")

    append_section("Live worker", ["first run"], figure, history=history, summary=summary)
    append_section("Live worker", ["second run"], history=history, summary=summary)

    assert history.read_text() == (
        HISTORY_HEADER + "\n## Live worker\n\nfirst run\n" + "\n## Live worker\n\nsecond run\n"
    )
    (row,) = _row(summary.read_text(), "| `make bench-live`")
    assert row.startswith("| `make bench-live`: lag | p95 0.35 s | every game once | ")
    assert "2026-01-01" not in row
    assert _row(summary.read_text(), "| `make bench`:") == _row(SUMMARY, "| `make bench`:")


def test_pipes_in_a_figure_do_not_split_its_cell(tmp_path: Path):
    history, summary = tmp_path / "history.md", tmp_path / "BENCHMARKS.md"
    summary.write_text(SUMMARY)

    append_section("Run", [], Figure("make bench", "a | b", "c"), history=history, summary=summary)

    (row,) = _row(summary.read_text(), "| `make bench`:")
    assert row.startswith("| `make bench`: a \\| b | c |  | ")


def _page(
    median: float, cached: float, rounds: list[float] | None = None, kilobytes: float = 40.0
) -> dict:
    """A page at one size: its uncached median with each round's, its cached median and
    its size."""
    return {
        "off": {"median": median, "rounds": rounds or [median] * 5},
        "on": {"median": cached},
        "bytes": kilobytes * 1000,
    }


def test_the_web_figure_names_the_worst_growth_from_each_size_and_the_slowest_cached_page():
    runs = {
        10_000: {
            "trivial view": _page(0.2, 0.1),
            "top": _page(2.0, 0.2, kilobytes=5.0),  # a few rows of the hundred
            "search": _page(4.0, 0.3),
        },
        100_000: {
            "trivial view": _page(0.2, 0.1),
            "top": _page(2.8, 0.2),
            "search": _page(4.2, 0.3),
        },
        1_000_000: {
            "trivial view": _page(0.2, 0.1),
            "top": _page(3.0, 0.2, [2.9, 3.0, 3.0, 3.1, 3.2]),
            "search": _page(4.4, 0.25),
        },
    }

    figure = web_figure(runs)

    assert figure.command == "make bench-web"
    # The rounds' ratios: 1.45, 1.5, 1.5, 1.55, 1.6 from 10,000; five rounds give 95% only
    # between the smallest and largest. The top's few rows at 10,000 are not its hundred.
    assert figure.figure == (
        "uncached, worst median to 1,000,000 games: 1.50x (95% interval 1.45 to 1.60) from "
        "10,000 (top), 1.10x over the 1 pages of the same size at both (search); 1.07x (95% "
        "interval 1.04 to 1.14) from 100,000 (top), 1.07x over the 2 pages of the same size "
        "at both (top); cached: every page within 2.50x the trivial view (0.25 ms, search); "
        "uncached pages take 15.0x to 22x the trivial view"
    )
    assert "(the same rows): met;" in figure.target and "--metrics-only" in figure.target


def test_the_web_figure_is_not_met_when_a_page_of_the_same_rows_grows_past_the_ratio():
    runs = {
        games: {"trivial view": _page(0.2, 0.1), "top": _page(median, 0.2)}
        for games, median in ((10_000, 2.0), (1_000_000, 3.2))
    }

    assert "(the same rows): not met;" in web_figure(runs).target


def test_the_median_s_interval_is_the_order_statistics_binomial_coverage_gives():
    values = [float(value) for value in reversed(range(1, 31))]

    # 30 values: 1 - 2 P(Binomial(30, 1/2) <= 9) = 0.957 between the 10th and 21st.
    assert median_interval(values) == (15.5, 10.0, 21.0)
    # Five values cannot give 95%: the smallest and largest.
    assert median_interval([3.0, 1.0, 2.0, 5.0, 4.0]) == (3.0, 1.0, 5.0)


def _metrics_cell(cpu_ratios: list[float]) -> dict:
    """A page in one cache mode whose rounds took 10 ms of CPU without metrics (5 requests)
    and the given ratio more with them; wall clock twice the CPU time on both sides."""
    rounds = [[0.02 * ratio, 0.01 * ratio, 0.02, 0.01] for ratio in cpu_ratios]
    return metrics_summary(rounds, requests=5)


def test_the_metrics_cost_is_judged_by_the_top_of_each_page_s_cpu_interval():
    steady = _metrics_cell([1.01] * 7)
    close = _metrics_cell([1.0, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07])

    assert steady["cpu"] == pytest.approx((1.01, 1.01, 1.01))
    assert steady["cpu ms"] == pytest.approx(2.0)
    assert steady["added µs"] == pytest.approx(20.0)
    met = metrics_figure({"top": {"off": steady, "on": steady}}, 10_000, False, "load 1")
    assert met.command == "make bench-web ARGS=--metrics-only"
    assert met.target.endswith(": met")
    # The median (1.04) is under the target, the top of its interval (1.07) is not.
    missed = metrics_figure({"top": {"off": steady, "on": close}}, 10_000, True, "load 1")
    assert met.command != missed.command
    assert missed.target.endswith(": not met")
    assert "highest top of a 95% interval 1.070 (top, cached; median 1.040)" in missed.figure


def test_scale_names_the_targets_it_missed():
    targets = [("recompute fast", "1", True), ("refresh ≤ 60 s", "90 s", False)]

    assert targets_met(targets[:1]) == "all 1 targets met"
    assert targets_met(targets) == "1 of 2 targets met (not: refresh ≤ 60 s)"
