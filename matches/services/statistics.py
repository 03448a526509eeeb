"""The site statistics, recomputed by the periodic refresh
(docs/architecture.md#from-a-replay-to-a-page, step 3; matches.services.refresh).

Pages read what this writes (SiteStatistic rows) and never aggregate millions of rows
per request.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.db.models import (
    Case,
    CharField,
    Count,
    DateField,
    F,
    Func,
    IntegerField,
    Min,
    Q,
    Subquery,
    Sum,
    Value,
    When,
    Window,
)
from django.db.models.functions import Floor

from matches.models import GameCount, Match, Patch, SiteStatistic
from matches.selectors.monitoring import LAST_RECOMPUTE
from matches.selectors.notable_games import NOTABLE_GAMES_KEY
from matches.selectors.patches import ALL_TIME
from matches.services.locks import rated_through
from matches.services.notable_games import notable_games
from matches.services.patches import assign_patches
from matches.services.site_statistic import ids_digest, store_statistic
from players import rules
from players.models import Character, Player, Rating
from players.selectors.rankings import ranked_count, ranked_ratings
from web.moment import one_moment

RATING_BIN_WIDTH = 50
GAMES_PER_DAY_WINDOW = timedelta(days=90)
# Rating brackets for character popularity: (key, label, lowest value or None).
POPULARITY_BRACKETS: tuple[tuple[str, str, float | None, float | None], ...] = (
    ("below1400", "Below 1400", None, 1400.0),
    ("1400", "1400-1600", 1400.0, 1600.0),
    ("1600", "1600-1800", 1600.0, 1800.0),
    ("1800", "1800+", 1800.0, None),
)
# Popularity compares the games of the latest period with those of the one before.
POPULARITY_PERIOD = timedelta(days=7)
# The ranked ratings' percentile table: the rating it takes to be in the top p%.
TOP_PERCENTS = (1, 5, 10, 25, 50)
# Floors a player can reach: 1-10, then Celestial.
FLOORS = (*range(1, 11), 99)
# Internal: what the kept history of the statistics below was computed under, and up to
# which rating time (_history_changed_from).
HISTORY_KEY = "statistics_history"
# How many players and games the stats page counts in each recent window.
ACTIVITY_WINDOWS = {"hour": timedelta(hours=1), "day": timedelta(days=1), "week": timedelta(days=7)}


def _games_by_day(now: datetime) -> dict[date | None, int]:
    """Visible games by UTC day over the games-per-day window's days, the older ones
    under None, from the kept counts (GameCount): no pass over the games."""
    first_day = (now - GAMES_PER_DAY_WINDOW).astimezone(UTC).date()
    rows = (
        GameCount.objects.annotate(
            shown=Case(When(day__gte=first_day, then=F("day")), output_field=DateField())
        )
        .values_list("shown")
        .annotate(games=Sum("games"))
        .order_by()
    )
    return dict(rows)


def _patch_popularity() -> dict[str, dict[str, Any]]:
    """Each character's share of the games of each patch (both sides count), by patch
    name, and of every game under `all` (docs/rating-model.md#patches), from the kept
    counts (GameCount)."""
    names = dict(Patch.objects.values_list("id", "name"))
    sides: dict[str, dict[int, int]] = {}
    rows = (
        GameCount.objects.values_list("patch", "character_a", "character_b")
        .annotate(games=Sum("games"))
        .order_by()
    )
    for patch, *characters, games in rows:
        keys = [ALL_TIME] if patch not in names else [ALL_TIME, names[patch]]
        for key in keys:
            counts = sides.setdefault(key, {})
            for character in characters:
                counts[character] = counts.get(character, 0) + games
    codes = dict(Character.objects.values_list("id", "code"))
    return {
        key: {
            "games": sum(counts.values()) // 2,
            "shares": {
                codes[character]: count / sum(counts.values())
                for character, count in counts.items()
            },
        }
        for key, counts in sides.items()
    }


def _totals(now: datetime, games_by_day: dict[date | None, int]) -> dict[str, int]:
    return {
        "games": sum(games_by_day.values()),
        "players": Player.objects.visible().count(),
        "ratings": Rating.objects.filter(~rules.hidden("player__")).count(),
        "ranked": ranked_count(),
        "games_24h": Match.objects.visible()
        .filter(played_at__gte=now - timedelta(hours=24))
        .count(),
    }


def _games_per_day(now: datetime, games_by_day: dict[date | None, int]) -> list[dict[str, Any]]:
    games = {day: count for day, count in games_by_day.items() if day is not None}
    if not games:
        return []
    # Every day from the first with games to today, quiet ones at zero, so that the bars
    # are evenly spaced in time and the chart ends today.
    first, last = min(games), max(now.date(), *games)
    return [
        {"day": day.isoformat(), "games": games.get(day, 0)}
        for day in (first + timedelta(days=i) for i in range((last - first).days + 1))
    ]


def _rating_bins(counts: dict[int, int]) -> dict[str, Any]:
    """Counts per RATING_BIN_WIDTH of value ({bin number: count}) as the stored
    distribution: every bin from the lowest to the highest, empty ones at zero, so that
    the bars are evenly spaced in rating (a lone rating far above the rest stands apart,
    not beside the last crowded bin)."""
    bins = range(min(counts), max(counts) + 1) if counts else range(0)
    return {
        "bin_width": RATING_BIN_WIDTH,
        "bins": [
            {
                "from": float(n * RATING_BIN_WIDTH),
                "to": float((n + 1) * RATING_BIN_WIDTH),
                "count": counts.get(n, 0),
            }
            for n in bins
        ],
    }


def _rating_distribution() -> dict[str, Any]:
    """Ranked ratings per RATING_BIN_WIDTH of value."""
    counts = {
        int(row["bin"]): row["count"]
        for row in ranked_ratings()
        .order_by()
        .annotate(bin=Floor(F("value") / RATING_BIN_WIDTH))
        .values("bin")
        .annotate(count=Count("id"))
    }
    return _rating_bins(counts)


# Each patch's ratings as its time left them: the last snapshot of each rating played
# while the patch was the latest live (from its UTC day to the next patch's), settled then,
# of players not flagged. A snapshot's patch is its day's bucket among the patches' first
# days (width_bucket; 0 before the first), and each rating's last day in a patch a hashed
# max, read back by the primary key: a third of the time of a DISTINCT ON that sorts every
# snapshot (BENCHMARKS.md). Hand-written: width_bucket over an array has no ORM form.
_PATCH_DISTRIBUTION_SQL = """
WITH patch_end AS (
    SELECT rating_id, width_bucket(day, %(first_days)s::date[]) AS patch, max(day) AS day
    FROM players_ratingsnapshot
    WHERE day >= %(from_day)s
    GROUP BY 1, 2
)
SELECT e.patch, floor(s.value / %(bin_width)s)::integer, count(*)
FROM patch_end e
JOIN players_ratingsnapshot s ON s.rating_id = e.rating_id AND s.day = e.day
JOIN players_rating r ON r.id = e.rating_id
WHERE e.patch > 0 AND r.player_id NOT IN ({flagged}) AND {settled}
GROUP BY 1, 2
"""


def _patch_rating_distributions(
    kept: dict[str, dict[str, Any]], changed_from: date | None
) -> dict[str, dict[str, Any]]:
    """Per patch name, its settled ratings per RATING_BIN_WIDTH of value as the patch's
    time left them (docs/rating-model.md#patches); a patch without any is absent. Those of
    the patches over before `changed_from` are `kept`'s (None: nothing is kept)."""
    patches = sorted(Patch.objects.all(), key=lambda patch: patch.live_at)
    if not patches:
        return {}
    first_days = [patch.live_at.astimezone(UTC).date() for patch in patches]
    # The first patch still running on `changed_from` and every later one are counted anew.
    fresh = 0
    if changed_from is not None:
        fresh = sum(1 for day in first_days[1:] if day <= changed_from)
    sql = _PATCH_DISTRIBUTION_SQL.format(
        flagged=rules.flagged_ids_sql(), settled=rules.settled_sql("s.deviation")
    )
    parameters = {
        **rules.sql_params(),
        "bin_width": RATING_BIN_WIDTH,
        "first_days": first_days,
        "from_day": first_days[fresh] if fresh else date.min,
    }
    counts: dict[str, dict[int, int]] = {}
    with connection.cursor() as cursor:
        cursor.execute(sql, parameters)
        for bucket, number, count in cursor.fetchall():
            # Patches going live on one day share it: the later one takes it.
            counts.setdefault(patches[bucket - 1].name, {})[number] = count
    ended = {patch.name for patch in patches[:fresh]}
    return {
        **{name: bins for name, bins in kept.items() if name in ended},
        **{name: _rating_bins(bins) for name, bins in counts.items()},
    }


def _percentiles() -> list[dict[str, Any]]:
    """The rating at the top 1, 5, 10, 25 and 50% of ranked ratings (the rating at the
    top p% is the one ranked ceil(p% of them), read at its place in the ranking)."""
    ranked = ranked_count()
    if not ranked:
        return []
    ranks = {percent: max(1, math.ceil(percent * ranked / 100)) for percent in TOP_PERCENTS}
    in_order = ranked_ratings().values_list("value", flat=True)
    values = {rank: value for rank in ranks.values() for value in in_order[rank - 1 : rank]}
    return [
        {"top": percent, "rank": rank, "value": values[rank]}
        for percent, rank in ranks.items()
        if rank in values
    ]


# Each week's active settled ratings: the last snapshot of each rating played that week
# (DISTINCT ON, and percentile_cont WITHIN GROUP: neither has an ORM form), settled then,
# of players not flagged; weeks from Monday (UTC), the current one so far.
_INFLATION_SQL = """
WITH week_end AS (
    SELECT DISTINCT ON (s.rating_id, date_trunc('week', s.day))
        date_trunc('week', s.day)::date AS week, s.value, s.deviation
    FROM players_ratingsnapshot s
    JOIN players_rating r ON r.id = s.rating_id
    WHERE r.player_id NOT IN ({flagged}) AND s.day >= %(from_day)s
    ORDER BY s.rating_id, date_trunc('week', s.day), s.day DESC
)
SELECT week, count(*),
    percentile_cont(ARRAY[0.1, 0.5, 0.9]) WITHIN GROUP (ORDER BY value)
FROM week_end WHERE {settled}
GROUP BY week ORDER BY week
"""


def _inflation(kept: list[dict[str, Any]], changed_from: date | None) -> list[dict[str, Any]]:
    """Per week over the site's history, the 10th, 50th and 90th percentiles of the active
    settled ratings (linearly interpolated), so that a drift of the scale shows. The weeks
    over before `changed_from` are `kept`'s (None: nothing is kept)."""
    first_fresh = date.min
    if changed_from is not None:
        first_fresh = changed_from - timedelta(days=changed_from.weekday())
    sql = _INFLATION_SQL.format(flagged=rules.flagged_ids_sql(), settled=rules.settled_sql())
    with connection.cursor() as cursor:
        cursor.execute(sql, {**rules.sql_params(), "from_day": first_fresh})
        rows = cursor.fetchall()
    return [row for row in kept if row["week"] < first_fresh.isoformat()] + [
        {"week": week.isoformat(), "ratings": count, "p10": p10, "median": p50, "p90": p90}
        for week, count, (p10, p50, p90) in rows
    ]


# What the kept history (the distributions of patches over, the percentiles of weeks
# over) was computed under: anything else rewrites or reweighs the snapshots it reads.
def _history_basis() -> dict[str, Any]:
    flagged = ids_digest(rules.flagged_ids_sql())
    recompute = SiteStatistic.objects.filter(key=LAST_RECOMPUTE).values_list(
        "computed_at", flat=True
    )
    return json.loads(
        json.dumps(
            {
                "flagged": flagged,
                "rules": rules.sql_params(),
                "recompute": recompute.first(),
                "patches": list(Patch.objects.order_by("live_at").values_list("name", "live_at")),
            },
            cls=DjangoJSONEncoder,
        )
    )


def _history_changed_from(history: dict[str, Any] | None, basis: dict[str, Any]) -> date | None:
    """The first day whose daily snapshots may differ from what `history` was computed
    on: that of the earliest game rated since (date.max if none), or None when the kept
    history does not apply (none yet, or computed under another basis)."""
    if not history or history["basis"] != basis:
        return None
    first = (
        Match.objects.filter(rating__rated_at__gt=datetime.fromisoformat(history["through"]))
        .order_by()
        .aggregate(first=Min("played_at"))["first"]
    )
    return date.max if first is None else first.astimezone(UTC).date()


def _activity(now: datetime) -> dict[str, dict[str, int]]:
    """Players seen and games played in the last hour, day and week."""
    since = {name: now - window for name, window in ACTIVITY_WINDOWS.items()}
    oldest = min(since.values())
    games = (
        Match.objects.visible()
        .filter(played_at__gte=oldest, played_at__lte=now)
        .aggregate(**{n: Count("id", filter=Q(played_at__gte=t)) for n, t in since.items()})
    )
    players = (
        Player.objects.visible()
        .filter(last_seen__gte=oldest, last_seen__lte=now)
        .aggregate(**{n: Count("id", filter=Q(last_seen__gte=t)) for n, t in since.items()})
    )
    return {name: {"players": players[name], "games": games[name]} for name in ACTIVITY_WINDOWS}


def _floor_distribution() -> list[dict[str, int]]:
    rows = (
        Player.objects.visible()
        .filter(floor__isnull=False)
        .values("floor")
        .annotate(players=Count("id"))
        .order_by("floor")
    )
    players = {row["floor"]: row["players"] for row in rows}
    return [{"floor": floor, "players": players.get(floor, 0)} for floor in FLOORS]


def _window_games(now: datetime) -> list[dict[str, Any]]:
    """(period, each side's bracket and character, games) rows of the rated games of the
    latest two popularity periods; period 0 is the latest. One pass for both sides, from
    the matches of the window (found by played_at's index) to their ratings, never
    through every rating stored: the ratings are read from the window's first match id on
    (exact, as every game of the window has an id at least that; fast, as ids follow
    arrival and the ratings lie in game order)."""
    since = now - 2 * POPULARITY_PERIOD
    window = Match.objects.filter(played_at__gte=since, played_at__lte=now)
    # "+ 0": the lowest id among the window's games (its index), not the first id of the
    # primary key's walk that falls in the window (most of the table before it).
    first_id = window.order_by().values(first=Func(F("id") + 0, function="MIN"))
    return list(
        window.visible()
        .filter(rating__match_id__gte=Subquery(first_id))
        .annotate(
            period=Case(
                When(played_at__gte=now - POPULARITY_PERIOD, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            ),
            bracket_a=_bracket_case("rating__value_a"),
            bracket_b=_bracket_case("rating__value_b"),
        )
        .values("period", "bracket_a", "character_a", "bracket_b", "character_b")
        .annotate(games=Count("id"))
    )


def _bracket_case(field: str) -> Case:
    return Case(
        *[
            When(
                Q(**{f"{field}__gte": low})
                if high is None
                else Q(**{f"{field}__lt": high})
                if low is None
                else Q(**{f"{field}__gte": low, f"{field}__lt": high}),
                then=Value(key),
            )
            for key, _, low, high in POPULARITY_BRACKETS
        ],
        output_field=CharField(),
    )


def _popularity(now: datetime) -> dict[str, Any]:
    """Each character's share of the games played in the latest period (a week) by the
    ratings in each bracket (the rating before the game), and its change from the period
    before. Both sides of a game count, each in its own bracket."""
    games: dict[tuple[int, str, int], int] = {}
    for row in _window_games(now):
        for side in ("a", "b"):
            for key in ("all", row[f"bracket_{side}"]):
                slot = (row["period"], key, row[f"character_{side}"])
                games[slot] = games.get(slot, 0) + row["games"]
    keys = ["all", *(key for key, *_ in POPULARITY_BRACKETS)]
    totals = {
        (period, key): sum(n for (p, k, _), n in games.items() if (p, k) == (period, key))
        for period in (0, 1)
        for key in keys
    }

    def share(period: int, key: str, character: int) -> float:
        total = totals[(period, key)]
        return games.get((period, key, character), 0) / total if total else 0.0

    return {
        "period_days": POPULARITY_PERIOD.days,
        "brackets": [{"key": "all", "label": "All"}]
        + [{"key": key, "label": label} for key, label, *_ in POPULARITY_BRACKETS],
        "rows": [
            {
                "character": character.code,
                "name": character.name,
                "shares": {key: share(0, key, character.id) for key in keys},
                # None where the period before had no games in the bracket to compare with.
                "changes": {
                    key: share(0, key, character.id) - share(1, key, character.id)
                    if totals[(1, key)] and totals[(0, key)]
                    else None
                    for key in keys
                },
            }
            for character in Character.objects.all()
        ],
    }


def _fraud_index_deltas() -> list[tuple[int, float, float]]:
    """(character, value, value minus the mean value of the player's other characters)
    for every ranked rating with FRAUD_INDEX_MINIMUM_GAMES games or more whose player has
    two or more such ratings; the other characters' mean comes from the player's sum and
    count over a window, in one pass."""
    player = {"partition_by": [F("player_id")]}
    eligible = (
        Rating.objects.filter(rules.ranked())
        .annotate(games=F("wins") + F("losses"))
        .filter(games__gte=settings.FRAUD_INDEX_MINIMUM_GAMES)
        .annotate(characters=Window(Count("id"), **player), total=Window(Sum("value"), **player))
        .filter(characters__gte=2)
        .values_list("character_id", "value", "total", "characters")
    )
    return [
        (character, value, value - (total - value) / (characters - 1))
        for character, value, total, characters in eligible.order_by()
    ]


def _fraud_index() -> dict[str, Any]:
    """Per character, how far players rate above (or below) their own other characters:
    the mean difference and its player count, over every eligible rating and over those
    at or above each of FRAUD_INDEX_FLOORS (the rating on that character)."""
    floors = sorted(settings.FRAUD_INDEX_FLOORS)
    brackets = [("all", "All", None)] + [(f"{floor:g}", f"{floor:g}+", floor) for floor in floors]
    sums: dict[tuple[str, int], list[float]] = {}
    for character, value, delta in _fraud_index_deltas():
        for key, _, floor in brackets:
            if floor is None or value >= floor:
                total = sums.setdefault((key, character), [0, 0.0])
                total[0] += 1
                total[1] += delta
    rows = [
        {
            "character": character.code,
            "name": character.name,
            "cells": {
                key: {"players": int(total[0]), "offset": total[1] / total[0]}
                if (total := sums.get((key, character.id)))
                else {"players": 0, "offset": None}
                for key, *_ in brackets
            },
        }
        for character in Character.objects.all()
    ]
    # The characters players rate highest on, compared with their others, first.
    offsets = [row["cells"]["all"]["offset"] for row in rows]
    order = sorted(range(len(rows)), key=lambda i: (offsets[i] is None, -(offsets[i] or 0.0)))
    rows = [rows[i] for i in order]
    return {
        "minimum_games": settings.FRAUD_INDEX_MINIMUM_GAMES,
        "brackets": [
            {"key": key, "label": label, "floor": floor} for key, label, floor in brackets
        ],
        "rows": rows,
    }


def recompute_site_statistics(now: datetime) -> None:
    """Recompute every site statistic as of `now`, all read at one moment (so that the
    ranked total, the distribution and the percentiles count the same ratings), and store
    them in one transaction. The caller bumps the cache generation."""
    # Every game stored so far counted (GameCount), placed in its patch as the refresh's
    # step before this one does (a no-op then).
    assign_patches()
    # Every game rated up to `through` is in what the moment below reads.
    through = rated_through()
    kept = dict(
        SiteStatistic.objects.filter(
            key__in=(HISTORY_KEY, "patch_rating_distribution", "inflation")
        ).values_list("key", "data")
    )
    with one_moment():
        basis = _history_basis()
        changed_from = _history_changed_from(kept.get(HISTORY_KEY), basis)
        games_by_day = _games_by_day(now)
        statistics = {
            "totals": _totals(now, games_by_day),
            "games_per_day": _games_per_day(now, games_by_day),
            "rating_distribution": _rating_distribution(),
            "floor_distribution": _floor_distribution(),
            "popularity": _popularity(now),
            "patch_popularity": _patch_popularity(),
            "patch_rating_distribution": _patch_rating_distributions(
                kept.get("patch_rating_distribution", {}), changed_from
            ),
            "percentiles": _percentiles(),
            "activity": _activity(now),
            "fraud_index": _fraud_index(),
            NOTABLE_GAMES_KEY: notable_games(now),
            "inflation": _inflation(kept.get("inflation", []), changed_from),
            HISTORY_KEY: {"basis": basis, "through": through.isoformat()},
        }
    with transaction.atomic():
        for key, data in statistics.items():
            store_statistic(key, data)
