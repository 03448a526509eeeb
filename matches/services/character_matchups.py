"""Character matchups (DESIGN.md section 4.5), rebuilt whole from the stored games.

For each bracket, one SQL aggregate over the counted games groups them by character
pair and by a narrow bin of the rating difference; the offset of each pair is then
fitted in Python (matches.ratings.matchup_offset.fit_offset). Sums over games do not
depend on the order the games were played in, and games of players flagged hidden or
cheater since they were rated drop out at the next rebuild.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from django.conf import settings
from django.db import connection, transaction

from matches.models import CharacterMatchup, Match, MatchRating
from matches.ratings.matchup_offset import DifferenceBin, fit_offset
from matches.services.locks import RATING_WRITER_LOCK, acquire_transaction_lock
from players.models import Player
from players.selectors.rankings import top_rated_keys

# Games whose rating differences fall within this many points share a bin: the fit
# sees a few dozen bins per pair instead of every game, at no visible cost in accuracy.
DIFFERENCE_BIN_POINTS = 8
BRACKET_LIMITS: dict[str, int | None] = {
    CharacterMatchup.Bracket.ALL: None,
    CharacterMatchup.Bracket.TOP1000: 1000,
    CharacterMatchup.Bracket.TOP100: 100,
}
# The top-N brackets' members, for the aggregate to join (a temporary table).
_MEMBERS = "character_matchup_members"


def _aggregate_sql(*, members_only: bool) -> str:
    """(character X, character Y, games, X wins, mean difference, X's expected wins) per
    (X, Y, difference bin) over the counted games between unflagged players of two
    different characters; X is side A, the difference is A's pre-game value minus B's."""
    matches, ratings, players = (
        Match._meta.db_table,
        MatchRating._meta.db_table,
        Player._meta.db_table,
    )
    members = (
        f"JOIN {_MEMBERS} ta ON ta.player_id = m.player_a_id "
        "AND ta.character_id = m.character_a_id AND ta.rank <= %(limit)s "
        f"JOIN {_MEMBERS} tb ON tb.player_id = m.player_b_id "
        "AND tb.character_id = m.character_b_id AND tb.rank <= %(limit)s"
        if members_only
        else ""
    )
    # A few flagged players among very many: a small hashed set, not two joins.
    flagged = f"SELECT id FROM {players} WHERE hidden OR cheater"
    return f"""
        SELECT m.character_a_id, m.character_b_id,
               COUNT(*),
               SUM(CASE WHEN m.winner = %(a)s THEN 1 ELSE 0 END),
               AVG(r.value_a - r.value_b),
               SUM(1.0 / (1.0 + POWER(10.0, (r.value_b - r.value_a) / 400.0)))
        FROM {ratings} r
        JOIN {matches} m ON m.id = r.match_id
        {members}
        WHERE r.counted AND m.character_a_id <> m.character_b_id
          AND m.player_a_id NOT IN ({flagged}) AND m.player_b_id NOT IN ({flagged})
        GROUP BY m.character_a_id, m.character_b_id,
                 ROUND((r.value_a - r.value_b) / %(bin)s)
    """


def matchup_rows(
    bracket: str, groups: Iterable[tuple], prior_deviation: float
) -> Iterator[CharacterMatchup]:
    """Both orientations of every pair in a bracket from rows of the aggregate: (X, Y)
    holds the fitted offset m, (Y, X) holds -m with the same standard error."""
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
            character_id=y,
            opponent_id=x,
            wins=losses,
            losses=wins,
            expected_wins=games - expected_wins,
            offset=-offset.value,
            standard_error=offset.standard_error,
        )


@transaction.atomic
def rebuild_character_matchups() -> int:
    """Replace every character matchup by a fit over the counted games of now-unflagged
    players (top-N brackets: both players ranked that high on their character now);
    returns how many rows it wrote. The caller bumps the cache generation.

    It holds the rating writer's lock, so it reads no half-rated batch and no table a
    recompute has emptied, and two rebuilds never interleave (a recompute, which holds
    the lock already, calls it too)."""
    acquire_transaction_lock(RATING_WRITER_LOCK, wait=True)
    largest = max(limit for limit in BRACKET_LIMITS.values() if limit is not None)
    members = top_rated_keys(largest)
    prior_deviation = settings.MATCHUP_PRIOR_DEVIATION
    rows: list[CharacterMatchup] = []
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMPORARY TABLE {_MEMBERS} "
            "(player_id varchar(64), character_id integer, rank integer, "
            "PRIMARY KEY (player_id, character_id))"
        )
        cursor.executemany(
            f"INSERT INTO {_MEMBERS} VALUES (%s, %s, %s)",
            [(player, character, rank) for (player, character), rank in members.items()],
        )
        # Without statistics the planner guesses the members' size and scans every game
        # for each top bracket instead of probing the few games of its members.
        cursor.execute(f"ANALYZE {_MEMBERS}")
        for bracket, limit in BRACKET_LIMITS.items():
            cursor.execute(
                _aggregate_sql(members_only=limit is not None),
                {"a": Match.Winner.A, "bin": float(DIFFERENCE_BIN_POINTS), "limit": limit},
            )
            rows += matchup_rows(bracket, cursor.fetchall(), prior_deviation)
        # A failure before this rolls the creation back with the rest.
        cursor.execute(f"DROP TABLE {_MEMBERS}")
    CharacterMatchup.objects.all().delete()
    CharacterMatchup.objects.bulk_create(rows)
    return len(rows)
