"""The weekly spread of active settled ratings (/stats, /api/v1/stats/), held to a
computation in Python from the snapshots."""

from __future__ import annotations

import bisect
import math
from collections import defaultdict
from datetime import UTC, timedelta

import numpy as np
import pytest

from matches.models import Patch, SiteStatistic
from matches.services.flags import set_player_flags
from matches.services.rating.incremental import rate_pending_matches
from matches.services.rating.recompute import recompute_all_ratings
from matches.services.refresh import refresh_derived_tables
from matches.services.statistics import HISTORY_KEY
from players import rules
from players.models import Player, RatingSnapshot
from tests.factories import BASE_TIME, random_league, replay
from tests.matches.test_rating_pipeline import store

pytestmark = pytest.mark.django_db


def independent_inflation() -> list[dict]:
    """Each Monday-to-Sunday week: the last snapshot of each rating played in it, kept when
    settled and of a player not flagged; numpy's linear percentiles of their values."""
    last: dict[tuple, tuple] = {}
    for snap in RatingSnapshot.objects.select_related("rating__player").order_by("day"):
        monday = snap.day - timedelta(days=snap.day.weekday())
        last[(snap.rating_id, monday)] = (snap.value, snap.deviation, snap.rating.player)
    weeks: dict = defaultdict(list)
    for (_, monday), (value, deviation, player) in last.items():
        if rules.is_settled(deviation) and not rules.is_flagged(player):
            weeks[monday].append(value)
    return [
        {
            "week": monday.isoformat(),
            "ratings": len(values),
            "p10": float(np.percentile(values, 10)),
            "median": float(np.percentile(values, 50)),
            "p90": float(np.percentile(values, 90)),
        }
        for monday, values in sorted(weeks.items())
    ]


def test_the_weekly_percentiles_are_those_of_the_active_settled_ratings(client):
    store(random_league(1200))  # about four weeks
    rate_pending_matches()
    set_player_flags(Player.objects.order_by("id").first(), cheater=True, by="test")
    refresh_derived_tables(BASE_TIME + timedelta(days=40))
    shown = client.get("/api/v1/stats/").json()["inflation"]
    expected = independent_inflation()
    assert len(expected) >= 3 and {row["ratings"] for row in expected} != {0}
    assert [row["week"] for row in shown] == [row["week"] for row in expected]
    for got, want in zip(shown, expected, strict=True):
        assert got["ratings"] == want["ratings"]
        for key in ("p10", "median", "p90"):
            assert got[key] == pytest.approx(want[key], abs=1e-6)
    page = client.get("/stats").content.decode()
    assert f"{expected[-1]['median']:.0f}" in page and "Does the scale drift?" in page


def independent_patch_distributions() -> dict[str, dict[int, int]]:
    """Per patch: the last snapshot of each rating on a day the patch was the latest live
    (from its UTC day to the next one's), kept when settled and of a player not flagged,
    counted per 50 points of value."""
    patches = sorted(Patch.objects.all(), key=lambda patch: patch.live_at)
    starts = [patch.live_at.astimezone(UTC).date() for patch in patches]
    last: dict[tuple, tuple] = {}
    for snap in RatingSnapshot.objects.select_related("rating__player").order_by("day"):
        index = bisect.bisect_right(starts, snap.day) - 1
        if index >= 0:
            last[(snap.rating_id, patches[index].name)] = (snap, snap.rating.player)
    counts: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for (_, name), (snap, player) in last.items():
        if rules.is_settled(snap.deviation) and not rules.is_flagged(player):
            counts[name][math.floor(snap.value / 50)] += 1
    return counts


def test_each_patch_has_the_rating_distribution_its_time_left(client):
    Patch.objects.create(name="1.0", versions=[], live_at=BASE_TIME - timedelta(days=1))
    Patch.objects.create(name="1.1", versions=[], live_at=BASE_TIME + timedelta(days=14, hours=6))
    store(random_league(1200))  # about four weeks: two in each patch
    rate_pending_matches()
    set_player_flags(Player.objects.order_by("id").first(), cheater=True, by="test")
    refresh_derived_tables(BASE_TIME + timedelta(days=40))
    expected = independent_patch_distributions()
    assert set(expected) == {"1.0", "1.1"}
    for name, counts in expected.items():
        shown = client.get(f"/api/v1/stats/?patch={name}").json()["patch_rating_distribution"]
        got = {int(row["from"]) // 50: row["count"] for row in shown["bins"] if row["count"]}
        assert got == counts and sum(got.values()) >= 4
    # The two patches' ratings differ, and all time is the ranked ratings of now.
    assert expected["1.0"] != expected["1.1"]
    answer = client.get("/api/v1/stats/?patch=all").json()
    assert answer["patch_rating_distribution"] == answer["rating_distribution"]
    page = client.get("/stats?patch=1.0").content.decode()
    assert "Ratings in patch 1.0" in page and 'id="patch-rating-distribution"' in page
    assert "Ratings in patch" not in client.get("/stats?patch=all").content.decode()


def stored_history() -> dict:
    rows = SiteStatistic.objects.filter(key__in=("inflation", "patch_rating_distribution"))
    return dict(rows.values_list("key", "data"))


def test_past_weeks_and_ended_patches_kept_between_refreshes_equal_a_count_from_scratch(client):
    """Fed in batches (late games of an ended patch and a past week among them), with a
    flag change and a recompute in between: after each refresh the weekly percentiles
    and the per-patch distributions, partly kept from the refresh before, are those
    computed anew from every snapshot."""
    Patch.objects.create(name="1.0", versions=[], live_at=BASE_TIME - timedelta(days=1))
    Patch.objects.create(name="1.1", versions=[], live_at=BASE_TIME + timedelta(days=10))
    Patch.objects.create(name="1.2", versions=[], live_at=BASE_TIME + timedelta(days=20))
    league = random_league(1200)  # 40 games a day
    late = [
        replay(900_000 + n, *players, played_at=BASE_TIME + timedelta(days=3, minutes=n))
        for n, players in enumerate(
            [("100000000000000001", "100000000000000002")] * 20
            + [("100000000000000003", "100000000000000004")] * 20
        )
    ]
    batches = [league[:400], league[400:700] + late, league[700:900], league[900:]]
    for number, batch in enumerate(batches):
        if number == 2:
            set_player_flags(Player.objects.order_by("id").first(), cheater=True, by="test")
        if number == 3:
            recompute_all_ratings()
        store(batch)
        rate_pending_matches()
        refresh_derived_tables(BASE_TIME + timedelta(days=31))
        kept = stored_history()
        expected = independent_patch_distributions()
        for name, counts in expected.items():
            bins = kept["patch_rating_distribution"][name]["bins"]
            assert {int(row["from"]) // 50: row["count"] for row in bins if row["count"]} == counts
        assert set(kept["patch_rating_distribution"]) == set(expected)
        want = independent_inflation()
        assert [row["week"] for row in kept["inflation"]] == [row["week"] for row in want]
        for got, row in zip(kept["inflation"], want, strict=True):
            assert got["ratings"] == row["ratings"]
            assert got["median"] == pytest.approx(row["median"], abs=1e-6)
        SiteStatistic.objects.filter(key=HISTORY_KEY).delete()  # nothing kept: from scratch
        refresh_derived_tables(BASE_TIME + timedelta(days=31))
        assert stored_history() == kept
    assert len(kept["inflation"]) >= 4 and set(kept["patch_rating_distribution"]) == {
        "1.0", "1.1", "1.2"
    }  # fmt: skip
