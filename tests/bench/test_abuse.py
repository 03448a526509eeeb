"""`make bench-abuse` at a tiny scale: every figure of issue 35's audit is measured, against
the served site and the database, and reads as it should."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bench import postgres
from bench.abuse import CONNECTIONS, UPSETS, WIN_TRADING, fill_urls, short_names

ROOT = Path(__file__).resolve().parents[2]


def test_the_fill_sends_new_values_of_four_known_parameters():
    urls = fill_urls(2000)
    assert len(urls) == len(set(urls)) == 2000
    assert [sum(url.startswith(p) for url in urls) for p in ("/?per=", "/?page=", "/?active=")] == [
        500,
        500,
        500,
    ]
    assert urls[-1].startswith("/search?name=qj%20")


def test_the_search_load_never_repeats_a_name_pair():
    names = short_names()
    pairs = [next(names) for _ in range(3000)]
    assert len(set(pairs)) == 3000
    assert all(len(a.strip()) == len(b) == 2 for a, b in pairs)


@pytest.mark.skipif(not postgres.psql("postgres", "SELECT 1"), reason="needs PostgreSQL")
@pytest.mark.timeout(1200)  # a league built, cloned and served five times: minutes
def test_a_tiny_run_measures_every_figure(tmp_path: Path):
    database = f"test_abuse_{os.getpid()}"
    figures_path = tmp_path / "abuse.json"
    log = tmp_path / "bench.log"
    # In a session of its own: the servers it starts end with it, whatever happens.
    with log.open("w") as output:
        bench = subprocess.Popen(
            [sys.executable, "-m", "bench.abuse", "--games", "3000", "--players", "300",
             "--database", database, "--load-seconds", "2", "--quiet-requests", "10",
             "--fill", "200", "--print-only", "--json", str(figures_path)],
            cwd=ROOT, stdout=output, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    try:
        assert bench.wait() == 0, log.read_text()[-3000:]
        figures = json.loads(figures_path.read_text())
    finally:
        if bench.poll() is None:
            os.killpg(bench.pid, signal.SIGKILL)
            bench.wait()
        for name in (database, f"{database}_base"):
            postgres.psql("postgres", f"DROP DATABASE IF EXISTS {name}")

    for attack, (spares, games) in zip(figures["win_trading"], WIN_TRADING, strict=True):
        assert (attack["spares"], attack["games_each"]) == (spares, games)
        # Every attack game is stored and rated on the attacker's rating.
        assert attack["games"] == spares * games
        assert attack["rank"] is None or attack["rank"] >= 1
        assert (attack["rank"] is None) == (attack["unranked_reason"] is not None)
        assert attack["deviation"] > 0

    steps = figures["upsets"]["steps"]
    assert [step["upsets"] for step in steps] == [0, *UPSETS]
    for step in steps:
        assert 0.5 < step["shown"] < 1 and 0.5 <= step["calibrated"] < 1
    pair = figures["upsets"]["pair"]
    assert pair["strong"]["value"] > pair["weak"]["value"]
    assert figures["upsets"]["served_calibrated"] == pytest.approx(
        steps[-1]["calibrated"], abs=0.001
    )

    for load in figures["search_load"].values():
        assert load["about_statuses"] == {"200": load["about_requests"]}
        quiet = sorted((load["quiet_before_ms"], load["quiet_after_ms"]))
        assert 0 < quiet[0] <= load["quiet_ms"] <= quiet[1] and load["loaded_ms"] > 0
        assert load["calculator_requests"] >= CONNECTIONS
        assert sum(load["calculator_statuses"].values()) == load["calculator_requests"]

    for fill in figures["cache_fill"].values():
        assert sum(fill["statuses"].values()) == fill["requests"] == 200
        assert fill["keys_added"] >= 0
