"""Character matchups (docs/rating-model.md#matchups), refitted from the stored games.

The counted games are summed by patch, character pair and a narrow bin of the rating
difference: for the whole field, kept sums (CharacterMatchupSum) to which each rebuild
adds the games rated since its mark, as the season counts are kept (counted afresh when
what they were summed under changed: the unrated players, the patches, a recompute);
for the top-N brackets, whose members change with every game, an aggregate over the
games between two top-rated players, found from those players. The offset of each pair
is then fitted in Python (matches.ratings.matchup_offset.fit_offset). A
compiled recompute sums the same from the games in its ledger (`aggregate_from_ledger`). All-time
sums are the patches' sums added up. Sums over games do not depend on the order the
games were played in, and games of players flagged hidden or cheater since they were
rated drop out at the next rebuild.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

import numpy as np
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.db.models import F, Min, Sum

from matches.dbfunctions import expected_sql
from matches.models import (
    BRACKET_LIMITS,
    PROPORTIONAL_BRACKET_SIZE,
    CharacterMatchup,
    CharacterMatchupSum,
    Match,
    MatchRating,
    Patch,
    SiteStatistic,
)
from matches.ratings.matchup_offset import DIFFERENCE_BIN_POINTS, DifferenceBin, fit_offset
from matches.services.locks import RATING_WRITER_LOCK, acquire_transaction_lock, rated_through
from matches.services.patches import ASSIGNED_THROUGH
from matches.services.site_statistic import ids_digest, store_statistic
from players import rules
from players.models import Rating
from players.selectors.rankings import top_rated_keys

if TYPE_CHECKING:  # the compiler loads only where a recompute runs
    from matches.ratings.array_ledger import ArrayLedger

# The top-N brackets' members, for the aggregate to join (a temporary table).
_MEMBERS = "character_matchup_members"


# Internal (a SiteStatistic row, not shown): up to which rating time, and under what,
# the kept sums were added up.
SUMS_MARK = "character_matchup_sums"


def _sums_sql() -> str:
    """The aggregate's columns after its grouping: the difference bin, games, X's wins,
    the sum of differences and X's expected wins."""
    return f"""ROUND((r.value_a - r.value_b) / %(bin)s),
               COUNT(*),
               SUM(CASE WHEN m.winner = %(a)s THEN 1 ELSE 0 END),
               SUM(r.value_a - r.value_b),
               SUM({expected_sql("r.value_a - r.value_b")})"""


def _counted_sql() -> str:
    """The counted games between players whose games count (not unrated) of two different
    characters, both settled before the game (pre-game deviations below
    RATING_LOW_DEVIATION: games of new or spare accounts, which anyone can make by the
    thousand, move no matchup; issue 35). A few unrated players among very many: a small
    hashed set, not two joins."""
    unrated = rules.unrated_ids_sql()
    return f"""r.counted AND m.character_a_id <> m.character_b_id
          AND GREATEST(r.deviation_a, r.deviation_b) < %(settled)s
          AND m.player_a_id NOT IN ({unrated}) AND m.player_b_id NOT IN ({unrated})"""


def _add_sums_sql() -> str:
    """Add the games rated after %(since)s up to %(through)s to the kept sums (X is side A,
    the difference A's pre-game value minus B's): an upsert, which the ORM cannot say."""
    matches, ratings = Match._meta.db_table, MatchRating._meta.db_table
    table = CharacterMatchupSum._meta.db_table
    return f"""
        INSERT INTO {table} AS t (patch, character_a, character_b, difference_bin, games,
                                  wins, difference_sum, expected_wins)
        SELECT COALESCE(m.patch_id, 0), m.character_a_id, m.character_b_id, {_sums_sql()}
        FROM {ratings} r JOIN {matches} m ON m.id = r.match_id
        WHERE {_counted_sql()} AND r.rated_at > %(since)s AND r.rated_at <= %(through)s
        GROUP BY 1, 2, 3, 4
        ON CONFLICT (patch, character_a, character_b, difference_bin) DO UPDATE SET
            games = t.games + EXCLUDED.games,
            wins = t.wins + EXCLUDED.wins,
            difference_sum = t.difference_sum + EXCLUDED.difference_sum,
            expected_wins = t.expected_wins + EXCLUDED.expected_wins
    """


def _tiered_sql() -> str:
    """(patch, character X, character Y, tier, proportional, difference bin, games, X wins,
    sum of differences, X's expected wins) per group of the counted games (_counted_sql)
    between two members of the top-N brackets, found from the members through the side
    index, each with its tier, the smallest bracket both sides belong to, and whether
    both are members of the proportional bracket. The patch
    (docs/rating-model.md#patches) is one more column of the grouping, so a patch's table
    costs no other pass over the games."""
    matches, ratings = Match._meta.db_table, MatchRating._meta.db_table
    reach = "GREATEST(ta.rank, tb.rank)"
    limits = sorted(limit for limit in BRACKET_LIMITS.values() if limit is not None)
    tier = " ".join(f"WHEN {reach} <= {limit} THEN {limit}" for limit in limits)
    return f"""
        SELECT m.patch_id, m.character_a_id, m.character_b_id, CASE {tier} END,
               ta.proportional AND tb.proportional, {_sums_sql()}
        FROM {_MEMBERS} ta
        JOIN {matches} m ON m.player_a_id = ta.player_id AND m.character_a_id = ta.character_id
        JOIN {_MEMBERS} tb ON tb.player_id = m.player_b_id
             AND tb.character_id = m.character_b_id
        JOIN {ratings} r ON r.match_id = m.id
        WHERE {_counted_sql()}
        GROUP BY 1, 2, 3, 4, 5, 6
    """


def _sums_basis() -> dict[str, object]:
    """What the kept sums were added up under: a change to any of it (a player unrated or
    rated again, the settled deviation, the bins, the patches or games placed in another
    patch than when they were summed) counts them afresh."""
    placed = SiteStatistic.objects.filter(key=ASSIGNED_THROUGH).values_list("data", flat=True)
    return json.loads(
        json.dumps(
            {
                "unrated": ids_digest(rules.unrated_ids_sql()),
                "settled": rules.low_deviation(),
                "bin": DIFFERENCE_BIN_POINTS,
                "patches": list(
                    Patch.objects.order_by("id").values_list("id", "live_at", "versions")
                ),
                "moved": (placed.first() or {}).get("moved_at"),
            },
            cls=DjangoJSONEncoder,
        )
    )


def add_matchup_sums(parameters: dict[str, object]) -> None:
    """Bring the kept sums up to the games rated so far: those rated since the mark, or
    all of them when counted afresh. The caller holds the rating writer's lock, so every
    later batch is stamped after the new mark. A game rated before its patch was placed
    (stored since the last placement) waits for the next rebuild with every game rated
    after it: summed now, it would stay under no patch."""
    through = rated_through()
    basis = _sums_basis()
    mark = SiteStatistic.objects.filter(key=SUMS_MARK).values_list("data", flat=True).first()
    since = datetime.min.replace(tzinfo=UTC)
    if mark is not None and mark["basis"] == basis:
        since = datetime.fromisoformat(mark["through"])
    else:
        CharacterMatchupSum.objects.all().delete()
    if Patch.objects.exists():
        placed = SiteStatistic.objects.filter(key=ASSIGNED_THROUGH).values_list("data", flat=True)
        unplaced = (
            MatchRating.objects.filter(
                rated_at__gt=since,
                rated_at__lte=through,
                match_id__gt=(placed.first() or {}).get("match_id", 0),
            )
            .order_by()
            .aggregate(first=Min("rated_at"))["first"]
        )
        if unplaced is not None:
            through = unplaced - timedelta(microseconds=1)
    with connection.cursor() as cursor:
        cursor.execute(_add_sums_sql(), {**parameters, "since": since, "through": through})
    store_statistic(SUMS_MARK, {"basis": basis, "through": through.isoformat()})


def forget_matchup_sums() -> None:
    """Sum every game afresh at the next rebuild: the rated games were rewritten."""
    CharacterMatchupSum.objects.all().delete()
    SiteStatistic.objects.filter(key=SUMS_MARK).delete()


def _kept_sums() -> list[tuple]:
    """The kept sums as the whole field's aggregate rows: (patch or None, X, Y, difference
    bin, games, X wins, sum of differences, X's expected wins)."""
    return [
        (patch or None, *row)
        for patch, *row in CharacterMatchupSum.objects.values_list(
            "patch",
            "character_a",
            "character_b",
            "difference_bin",
            "games",
            "wins",
            "difference_sum",
            "expected_wins",
        )
    ]


def aggregate_from_ledger(ledger: ArrayLedger, rank: np.ndarray, limit: float) -> list[tuple]:
    """The sums of `_add_sums_sql` and `_tiered_sql` over the games a compiled recompute's
    ledger counted, between two characters whose ratings both rank within `limit` (`rank`
    per rating number), as matchup_rows reads it: (character X, character Y, games, X wins,
    mean difference, X's expected wins) per (X, Y, difference bin), X being side A.
    Counted games never involve excluded players, which the SQL leaves out."""
    a, b, a_won, expected_a, difference = ledger.counted_games()
    character = ledger.character
    character_a, character_b = character[a], character[b]
    keep = (character_a != character_b) & (ledger.counted_deviations() < rules.low_deviation())
    if np.isfinite(limit):
        keep &= (rank[a] <= limit) & (rank[b] <= limit)
    if not keep.any():
        return []
    difference, a_won, expected_a = difference[keep], a_won[keep], expected_a[keep]
    # Ties go to the even bin, as PostgreSQL's round() of a double does.
    bins = np.round(difference / DIFFERENCE_BIN_POINTS).astype(np.int64)
    # Groups numbered densely (characters and bins are few): counted, not sorted.
    low, width = int(bins.min()), int(character.max()) + 1
    span = int(bins.max()) - low + 1
    group = (character_a[keep] * width + character_b[keep]) * span + (bins - low)
    games = np.bincount(group)
    present = np.flatnonzero(games)
    pair = present // span

    def sums(weights: np.ndarray) -> np.ndarray:
        return np.bincount(group, weights=weights, minlength=len(games))[present]

    return list(
        zip(
            (pair // width).tolist(),
            (pair % width).tolist(),
            games[present].tolist(),
            sums(a_won).astype(np.int64).tolist(),
            (sums(difference) / games[present]).tolist(),
            sums(expected_a).tolist(),
            strict=True,
        )
    )


def _mean_difference(rows: Iterable[tuple]) -> list[tuple]:
    """Aggregate rows (X, Y, difference bin, games, wins, sum of differences, expected
    wins) as matchup_rows reads them: (X, Y, games, wins, mean difference, expected)."""
    return [
        (a, b, games, wins, differences / games, expected)
        for a, b, _, games, wins, differences, expected in rows
    ]


def by_patch(rows: Iterable[tuple], key_width: int) -> dict[int | None, list[tuple]]:
    """Aggregate rows led by their patch id, without it, per patch; under None, every
    patch's rows summed per key (the first `key_width` columns after the patch): all
    time, which also holds the games of no patch (before the first)."""
    per_patch: defaultdict[int | None, list[tuple]] = defaultdict(list)
    every: dict[tuple, list[float]] = {}
    for patch, *row in rows:
        key = tuple(row[:key_width])
        if patch is not None:
            per_patch[patch].append((*row,))
        total = every.setdefault(key, [0, 0, 0.0, 0.0])
        for position, value in enumerate(row[key_width:]):
            total[position] += value
    per_patch[None] = [(*key, *total) for key, total in every.items()]
    return per_patch


def bracket_groups(everyone: Iterable[tuple], tiered: Iterable[tuple]) -> dict[str, list[tuple]]:
    """Rows of the aggregates for each bracket, as matchup_rows reads them: the whole
    field from `everyone`; each top-N bracket from the `tiered` rows (X, Y, tier,
    proportional, bin, ...) of the tiers it takes, and the proportional bracket from
    those between two of its members, merged per (X, Y, difference bin)."""
    sums: dict[str, dict[tuple, list[float]]] = {
        bracket: {} for bracket, limit in BRACKET_LIMITS.items() if limit is not None
    }
    sums[CharacterMatchup.Bracket.PROPORTIONAL] = {}
    for a, b, tier, proportional, difference_bin, *row in tiered:
        brackets = [
            bracket
            for bracket, limit in BRACKET_LIMITS.items()
            if limit is not None and tier is not None and tier <= limit
        ]
        if proportional:
            brackets.append(CharacterMatchup.Bracket.PROPORTIONAL)
        for bracket in brackets:
            total = sums[bracket].setdefault((a, b, difference_bin), [0, 0, 0.0, 0.0])
            for i, value in enumerate(row):
                total[i] += value
    return {
        CharacterMatchup.Bracket.ALL: _mean_difference(everyone),
        **{
            bracket: _mean_difference((*key, *total) for key, total in groups.items())
            for bracket, groups in sums.items()
        },
    }


def matchup_rows(
    bracket: str, groups: Iterable[tuple], prior_deviation: float, patch_id: int | None = None
) -> Iterator[CharacterMatchup]:
    """Both orientations of every pair in a bracket (of a patch, None: all time) from rows
    of the aggregate: (X, Y) holds the fitted offset m, (Y, X) holds -m with the same
    standard error."""
    bins: defaultdict[tuple[int, int], list[DifferenceBin]] = defaultdict(list)
    totals: defaultdict[tuple[int, int], list[float]] = defaultdict(lambda: [0, 0, 0.0])
    for a, b, games, wins, mean_difference, expected_wins in groups:
        # Each pair once, from its lower character id's side.
        if a > b:
            a, b = b, a
            wins, mean_difference, expected_wins = (
                games - wins,
                -mean_difference,
                games - expected_wins,
            )
        bins[(a, b)].append(DifferenceBin(mean_difference, games, wins))
        total = totals[(a, b)]
        total[0] += games
        total[1] += wins
        total[2] += expected_wins
    for (x, y), pair_bins in bins.items():
        games, wins, expected_wins = totals[(x, y)]
        offset = fit_offset(pair_bins, prior_deviation)
        losses = games - wins
        yield CharacterMatchup(
            bracket=bracket,
            patch_id=patch_id,
            character_id=x,
            opponent_id=y,
            wins=wins,
            losses=losses,
            expected_wins=expected_wins,
            offset=offset.value,
            standard_error=offset.standard_error,
        )
        yield CharacterMatchup(
            bracket=bracket,
            patch_id=patch_id,
            character_id=y,
            opponent_id=x,
            wins=losses,
            losses=wins,
            expected_wins=games - expected_wins,
            offset=-offset.value,
            standard_error=offset.standard_error,
        )


@transaction.atomic
def rebuild_character_matchups(
    groups_of: Callable[[dict[tuple[str, int], int], int | None], Iterable[tuple]] | None = None,
) -> int:
    """Replace every character matchup by a fit over the counted games of now-unflagged
    players (top-N brackets: both players ranked that high on their character now), for
    all time and for each patch; returns how many rows it wrote. The caller bumps the
    cache generation.

    The games are summed by SQL (the kept sums and `_tiered_sql`), or, for all time, by
    `groups_of(members, limit)`, which gives a bracket's rows from games already in
    memory (a compiled recompute's), `members` being the top ratings' ranks and `limit`
    the bracket's; the patches' tables then come from SQL, when there are patches.

    It holds the rating writer's lock, so it reads no half-rated batch and no table a
    recompute has emptied, and two rebuilds never interleave (a recompute, which holds
    the lock already, calls it too)."""
    acquire_transaction_lock(RATING_WRITER_LOCK, wait=True)
    largest = max(PROPORTIONAL_BRACKET_SIZE, *(limit for limit in BRACKET_LIMITS.values() if limit))
    members = top_rated_keys(largest)
    proportional = proportional_members(members)
    prior_deviation = settings.MATCHUP_PRIOR_DEVIATION
    if groups_of is None:
        rows = _fit_from_sql(members, proportional, prior_deviation, all_time=True)
    else:
        rows = [
            row
            for bracket, limit in BRACKET_LIMITS.items()
            for row in matchup_rows(bracket, groups_of(members, limit), prior_deviation)
        ]
        rows += matchup_rows(
            CharacterMatchup.Bracket.PROPORTIONAL,
            groups_of(proportional, largest),
            prior_deviation,
        )
        if Patch.objects.exists():
            rows += _fit_from_sql(members, proportional, prior_deviation, all_time=False)
    CharacterMatchup.objects.all().delete()
    CharacterMatchup.objects.bulk_create(rows)
    return len(rows)


def character_shares_of_play() -> dict[int, float]:
    """Each character's share of play: its ratings' games over every rating's, flagged
    players' left out (one aggregate over the ratings)."""
    games = dict(
        Rating.objects.filter(~rules.flagged("player__"))
        .values("character_id")
        .annotate(games=Sum(F("wins") + F("losses")))
        .values_list("character_id", "games")
    )
    total = sum(games.values())
    return {character: count / total for character, count in games.items()} if total else {}


def proportional_members(members: dict[tuple[str, int], int]) -> dict[tuple[str, int], int]:
    """The members of the proportional bracket among the top-rated `members` (their ranks
    within their character): those ranked within PROPORTIONAL_BRACKET_SIZE times their
    character's share of play."""
    shares = character_shares_of_play()
    return {
        (player, character): rank
        for (player, character), rank in members.items()
        if rank <= PROPORTIONAL_BRACKET_SIZE * shares.get(character, 0.0)
    }


def _fit_from_sql(
    members: dict[tuple[str, int], int],
    proportional: dict[tuple[str, int], int],
    prior_deviation: float,
    *,
    all_time: bool,
) -> list[CharacterMatchup]:
    """Every patch's tables, and with `all_time` the all-time ones, from one aggregate."""
    rows: list[CharacterMatchup] = []
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMPORARY TABLE {_MEMBERS} "
            "(player_id varchar(64), character_id integer, rank integer, "
            "proportional boolean, PRIMARY KEY (player_id, character_id))"
        )
        cursor.executemany(
            f"INSERT INTO {_MEMBERS} VALUES (%s, %s, %s, %s)",
            [
                (player, character, rank, (player, character) in proportional)
                for (player, character), rank in members.items()
            ],
        )
        # Statistics, so that the planner hashes the few members rather than guess.
        cursor.execute(f"ANALYZE {_MEMBERS}")
        parameters = {
            "a": Match.Winner.A,
            "bin": float(DIFFERENCE_BIN_POINTS),
            "settled": rules.low_deviation(),
        }
        add_matchup_sums(parameters)
        everyone = by_patch(_kept_sums(), key_width=3)
        cursor.execute(_tiered_sql(), parameters)
        tiered = by_patch(cursor.fetchall(), key_width=5)
        # A deleted patch's games keep its id until their re-placement: all time only.
        tables = {*Patch.objects.values_list("id", flat=True), *([None] if all_time else [])}
        for patch in everyone.keys() & tables:
            for bracket, groups in bracket_groups(everyone[patch], tiered.get(patch, [])).items():
                rows += matchup_rows(bracket, groups, prior_deviation, patch)
        # A failure before this rolls the creation back with the rest.
        cursor.execute(f"DROP TABLE {_MEMBERS}")
    return rows
