"""Operators' list pages stay at a fixed number of queries however many rows they show."""

from __future__ import annotations

import pytest

from matches.replays.readers import iter_replay_payloads
from matches.services.ingest import file_import_source, store_replays
from matches.services.rating.incremental import rate_pending_matches
from tests.factories import replay

pytestmark = pytest.mark.django_db

LIST_PAGES = [
    "/admin/matches/match/",
    "/admin/matches/charactermatchup/",
    "/admin/matches/ingestrun/",
    "/admin/matches/rejectedreplay/",
    "/admin/players/player/",
    "/admin/players/rating/",
    "/admin/players/playername/",
    "/admin/players/playermatchup/",
]


def store_league(games: int) -> None:
    players = [str(100_000_000_000_000_000 + n) for n in range(12)]
    replays = [
        replay(n, players[n % 12], players[(n * 5 + 1) % 12], characters=("SO", "KY"))
        for n in range(games)
        if players[n % 12] != players[(n * 5 + 1) % 12]
    ]
    store_replays(source=file_import_source(), replays=iter_replay_payloads([*replays, {}]))
    rate_pending_matches()


@pytest.mark.parametrize("url", LIST_PAGES)
def test_list_pages_do_not_query_per_row(admin_client, django_assert_max_num_queries, url):
    store_league(80)
    with django_assert_max_num_queries(15):
        assert admin_client.get(url).status_code == 200
