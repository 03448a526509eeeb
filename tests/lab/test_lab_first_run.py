"""A new site's lab is filled by its first refresh, not a day later by beat."""

from __future__ import annotations

import pytest

from matches.replays.readers import iter_replay_payloads
from matches.selectors.lab import latest_lab_report
from matches.services.file_import import file_import_source
from matches.services.ingest import store_replays
from matches.services.rating.incremental import rate_pending_matches
from matches.tasks import refresh_lab, refresh_site
from tests.factories import replay

pytestmark = pytest.mark.django_db

PLAYERS = [str(100_000_000_000_000_000 + n) for n in range(4)]


def store_games(games: int) -> None:
    replays = [replay(n, PLAYERS[n % 4], PLAYERS[(n + 1) % 4]) for n in range(games)]
    store_replays(source=file_import_source(), replays=iter_replay_payloads(replays))
    rate_pending_matches()


@pytest.fixture
def lab_runs(monkeypatch) -> list[int]:
    """The games each lab evaluation the refresh sends scored, run at once as a worker
    would."""
    runs: list[int] = []

    def run_now() -> None:
        refresh_lab.apply().get()
        runs.append(latest_lab_report()["games"])

    monkeypatch.setattr(refresh_lab, "delay", run_now)
    return runs


def test_the_first_refresh_fills_the_lab_at_once(lab_runs):
    store_games(20)
    refresh_site.apply().get()
    assert lab_runs == [20]
    refresh_site.apply().get()  # the lab has its report: beat's daily run keeps it
    assert lab_runs == [20]


def test_a_lab_report_without_games_is_replaced_by_the_next_refresh(lab_runs):
    refresh_site.apply().get()  # a new site without games yet
    assert lab_runs == [0]
    store_games(3)
    refresh_site.apply().get()
    assert lab_runs == [0, 3]
