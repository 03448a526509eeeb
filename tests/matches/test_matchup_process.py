"""The recompute's matchup process: its failures reach the recompute, which rolls back,
and it never outlives the process that started it."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from matches.ratings.ledger import Game, GameResult, MatchupLedger
from matches.replays.readers import iter_replay_payloads
from matches.services.ingest import file_import_source, store_replays
from matches.services.matchup_process import MatchupProcess, MatchupProcessFailed
from matches.services.rating import recompute
from players.models import PlayerMatchup, Rating, RatingSnapshot
from tests import databases
from tests.factories import random_league

ROOT = Path(__file__).resolve().parents[2]
GAME = Game(1, 86_400.0, "1", 1, "2", 2, True)
RESULT = GameResult(1, 1500.0, 350.0, 1500.0, 350.0, 1662.2, 290.2, 1337.8, 290.2, True)


@pytest.fixture(autouse=True)
def _pure_ledgers(monkeypatch):
    """The matchup process serves the pure ledgers' recompute, which runs where numba
    is missing; where it is installed the compiled kernel would take its place."""
    monkeypatch.setattr("matches.ratings.kernel.COMPILED", False)


def _table_state() -> tuple:
    return (
        sorted(Rating.objects.values_list("player_id", "character_id", "value", "deviation")),
        RatingSnapshot.objects.count(),
        PlayerMatchup.objects.count(),
    )


@databases.postgres_only("the matchup process runs beside recomputes on PostgreSQL")
@pytest.mark.django_db
def test_a_failing_matchup_process_fails_the_recompute_and_keeps_the_old_ratings(monkeypatch):
    store_replays(source=file_import_source(), replays=iter_replay_payloads(random_league(60)))
    recompute.recompute_all_ratings()
    before = _table_state()
    assert before[1] > 0 and before[2] > 0
    real_number_ratings = recompute.number_ratings

    def ids_missing_from_the_process(ledger):
        real_number_ratings(ledger)
        return {}  # the child then meets a rating it has no id for

    monkeypatch.setattr(recompute, "number_ratings", ids_missing_from_the_process)
    with pytest.raises(MatchupProcessFailed, match="KeyError"):
        recompute.recompute_all_ratings()
    assert _table_state() == before


# Waiting on a dead child forever is the failure; the mark turns a hang into a failure.
@pytest.mark.timeout(120)
def test_a_matchup_process_that_dies_is_reported_not_waited_for():
    with MatchupProcess(MatchupLedger(), {}, {}) as process:
        process.record([GAME], [RESULT])
        (child,) = multiprocessing.active_children()
        child.kill()
        process.close({})
        with pytest.raises(MatchupProcessFailed, match="died"):
            list(process.encoded_files())


def _state(pid: int) -> str:
    """A process's state letter from /proc ('' once it is gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return ""


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads process states from /proc")
def test_the_matchup_process_exits_when_the_recompute_is_killed():
    script = (
        "import multiprocessing, time\n"
        "from matches.ratings.ledger import MatchupLedger\n"
        "from matches.services.matchup_process import MatchupProcess\n"
        "if __name__ == '__main__':\n"
        "    ledger = MatchupLedger()\n"
        "    with MatchupProcess(ledger, {}, {}):\n"
        "        print(multiprocessing.active_children()[0].pid, flush=True)\n"
        "        time.sleep(60)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    try:
        child = int(parent.stdout.readline())
        assert _state(child) not in ("", "Z")
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 120  # a bound on the wait, not a measured duration
        while _state(child) not in ("", "Z") and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _state(child) in ("", "Z")
    finally:
        parent.kill()
        parent.wait(timeout=10)


@databases.postgres_only("the matchup process runs beside recomputes on PostgreSQL")
@pytest.mark.django_db
def test_a_daemonic_process_recomputes_without_a_child(monkeypatch):
    """Daemonic processes, such as Celery's pool workers, may not start children."""
    store_replays(source=file_import_source(), replays=iter_replay_payloads(random_league(30)))
    monkeypatch.setattr(multiprocessing.current_process(), "daemon", True)
    monkeypatch.setattr(recompute, "MatchupProcess", None)  # starting one would fail
    recompute.recompute_all_ratings()
    assert RatingSnapshot.objects.exists() and PlayerMatchup.objects.exists()
