"""Operators' list pages stay at a fixed number of queries however many rows they show."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from matches.models import Match
from matches.replays.readers import iter_replay_payloads
from matches.services.file_import import file_import_source
from matches.services.ingest import store_replays
from matches.services.rating.incremental import rate_pending_matches
from tests.factories import replay
from web.paginators import EstimatedCountPaginator

pytestmark = pytest.mark.django_db

LIST_PAGES = [
    "/admin/matches/match/",
    "/admin/matches/charactermatchup/",
    "/admin/matches/ingestrun/",
    "/admin/matches/rejectedreplay/",
    "/admin/matches/playerflagchange/",
    "/admin/players/player/",
    "/admin/players/rating/",
    "/admin/players/playername/",
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


def count_queries(context: CaptureQueriesContext) -> list[str]:
    return [query["sql"] for query in context.captured_queries if "COUNT(" in query["sql"]]


def test_the_match_list_never_counts_the_whole_table(admin_client):
    store_league(80)
    with CaptureQueriesContext(connection) as context:
        html = admin_client.get("/admin/matches/match/").content.decode()
    assert "80 matches" in html
    # Counted, if at all, up to a bound: never a COUNT(*) over the whole table.
    assert count_queries(context)
    assert all("LIMIT 10001" in sql for sql in count_queries(context))
    assert not any("MIN(" in query["sql"] for query in context.captured_queries)
    with CaptureQueriesContext(connection) as context:
        response = admin_client.get("/admin/matches/match/?rating__counted__exact=1")
    assert response.status_code == 200
    assert all("LIMIT 10001" in sql for sql in count_queries(context))


def test_a_large_match_list_takes_the_planners_estimate(admin_client, monkeypatch):
    store_league(80)
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Match._meta.db_table}")
    # As if the table had more matches than are ever counted.
    monkeypatch.setattr(EstimatedCountPaginator, "count_bound", 20)
    with CaptureQueriesContext(connection) as context:
        html = admin_client.get("/admin/matches/match/").content.decode()
    assert count_queries(context) == []
    assert "80 matches" in html
    assert Match.objects.count() == 80


def test_the_paginator_counts_exactly_below_its_bound(db, monkeypatch):
    store_league(30)
    matches = Match.objects.order_by("-id")
    assert EstimatedCountPaginator(matches, 10).count == Match.objects.count()
    monkeypatch.setattr(EstimatedCountPaginator, "count_bound", 5)
    # A bounded count: one more than the bound says "more" without counting them all.
    assert EstimatedCountPaginator(matches.filter(floor=10), 10).count == 6
