"""The ring test for win-trading and boosting (docs/integrity.md#win-trading-rings): pure
math over pairs of accounts and their games against each other, no Django.

A beneficiary and its partners are suspect when all of these hold:

- they met at least `min_games` times, and one side won at least `min_share` of those
  games (one-sided results);
- they meet far more often than their activity predicts: `frequency` times the meetings
  expected if each of a's games drew its opponent in proportion to the opponents' games
  (a's games x b's games / (2 x all games));
- the side that won most has a record, over all such pairs of its own (below), that is
  improbable under the ratings once the pairs' own games are taken out of them: below
  `probability`. Ratings absorb thrown games, so the chances shown
  before a ring's later games already expect the beneficiary to win; each game's chance
  is therefore moved back by what the pair's earlier games gave each side (the sum of
  their rating changes, fading with a half-life as other games pull the ratings back,
  as a shift of the chance's logit), and the record is read against those chances
  exactly (a sum of unequal Bernoulli trials).

The record read is the ring's, not one pair's: a beneficiary's candidate pairs (those
that pass the first two conditions, seen from the side that won most) are pooled, and
the beneficiary's wins over their games are read against their chances. A ring is one
hypothesis (these partners throw games to this account), and a partner who throws a few
games adds its evidence to the others' instead of each pair having to be improbable
alone. The pairs pooled are those, most improbable alone first, whose pooled record is
most improbable (`ring_record`): as many records read per beneficiary as the pairwise
test read, and a frequent partner who plays honestly stays out of the ring. A strong
player who beats a weak one as often as their ratings say is not suspect, and rivals who
meet often with mixed results are not either. A suspect beneficiary makes one suspicion
(one ring): its pooled pairs' losers are the partners, its probability the ring's.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from matches.ratings.integrity import Suspicion, SuspicionKind

# A rating point as a shift of a chance's logit (ratings are on a base-10, 400-point scale).
LOGIT_PER_POINT = math.log(10) / 400


@dataclass(frozen=True, slots=True)
class PairRecord:
    """Two accounts' counted games against each other in the window read (side A has the
    smaller id), each account's counted games against anyone there, and all of them."""

    a: str
    b: str
    games: int
    a_wins: int
    a_games: int
    b_games: int
    all_games: int


@dataclass(frozen=True, slots=True)
class PairGame:
    """One counted game of a pair, in the order played: the chance shown to side A and
    both sides' rating changes."""

    match_id: int
    played_at: float  # epoch seconds
    a_won: bool
    chance_a: float
    change_a: float
    change_b: float


@dataclass(frozen=True, slots=True)
class RingTest:
    """The thresholds of the test (settings.INTEGRITY_RING_*)."""

    min_games: int = 15
    min_share: float = 0.7
    frequency: float = 60.0
    probability: float = 1e-6
    lift_half_life_days: float = 15.0
    # A settled rating's deviation (RATING_LOW_DEVIATION): see `lasting_change`.
    settled_deviation: float = 75.0


@dataclass(frozen=True, slots=True)
class PairSide:
    """A candidate pair seen from its beneficiary (the side that won most): its record
    and its chances in each game with the pair's lift taken out (`delifted_chances`)."""

    beneficiary: str
    partner: str
    wins: int
    chances: tuple[float, ...]
    match_ids: tuple[int, ...]

    @property
    def games(self) -> int:
        return len(self.chances)


def expected_meetings(record: PairRecord) -> float:
    """How often the pair would meet if opponents were drawn by activity alone."""
    return record.a_games * record.b_games / (2 * max(record.all_games, 1))


def is_candidate(record: PairRecord, test: RingTest) -> bool:
    """Often enough, one-sided enough, and far more often than activity predicts."""
    top_wins = max(record.a_wins, record.games - record.a_wins)
    return (
        record.games >= test.min_games
        and top_wins >= test.min_share * record.games
        and record.games >= test.frequency * expected_meetings(record)
    )


def lasting_change(change: float, settled_deviation: float) -> float:
    """What of a game's change counts as the pair's lift: at most what one game can move a
    settled rating (a win it had no chance of, at `settled_deviation`: LOGIT_PER_POINT
    times its square, about 32 points at 75). A larger change is an unsettled rating
    finding its level (a fresh one moves 150 points a game), which its other games would
    have found as well; taken out whole, the first games of two new accounts read as
    hundreds of points of lift and made honest pairs' later records look thrown."""
    most = LOGIT_PER_POINT * settled_deviation * settled_deviation
    return max(-most, min(most, change))


def delifted_chances(
    games: Sequence[PairGame], half_life_days: float, settled_deviation: float = 75.0
) -> list[float]:
    """Side A's chance in each game without what the pair's earlier games lastingly moved
    the two ratings (`lasting_change`), that lift fading with the half-life as other
    games pull the ratings back (see the module's docstring)."""
    chances = []
    lift = 0.0  # A's rating gained minus B's, from the pair's games so far
    last = games[0].played_at if games else 0.0
    for game in games:
        lift *= 0.5 ** ((game.played_at - last) / (half_life_days * 86400))
        last = game.played_at
        chance = min(max(game.chance_a, 1e-9), 1 - 1e-9)
        logit = math.log(chance / (1 - chance)) - LOGIT_PER_POINT * lift
        chances.append(1 / (1 + math.exp(-logit)))
        lift += lasting_change(game.change_a, settled_deviation)
        lift -= lasting_change(game.change_b, settled_deviation)
    return chances


def record_probability(chances: Sequence[float], wins: int) -> float:
    """P(at least `wins` successes) of independent trials with these chances (exact)."""
    if wins <= 0:
        return 1.0
    # distribution[k]: P(k successes so far) for k < wins; distribution[wins]: P(>= wins).
    distribution = [1.0] + [0.0] * wins
    for chance in chances:
        distribution[wins] += distribution[wins - 1] * chance
        for k in range(wins - 1, 0, -1):  # downwards: each reads k - 1 before it changes
            distribution[k] = distribution[k] * (1 - chance) + distribution[k - 1] * chance
        distribution[0] *= 1 - chance
    return min(1.0, max(0.0, distribution[wins]))


def pair_side(record: PairRecord, games: Sequence[PairGame], test: RingTest) -> PairSide | None:
    """The candidate pair from its beneficiary's side, or None when it is no candidate."""
    if not is_candidate(record, test) or not games:
        return None
    chances = delifted_chances(games, test.lift_half_life_days, test.settled_deviation)
    a_wins = sum(game.a_won for game in games)
    match_ids = tuple(game.match_id for game in games)
    if 2 * a_wins >= len(games):
        return PairSide(record.a, record.b, a_wins, tuple(chances), match_ids)
    b_chances = tuple(1 - chance for chance in chances)
    return PairSide(record.b, record.a, len(games) - a_wins, b_chances, match_ids)


def ring_record(sides: Sequence[PairSide]) -> tuple[float, list[PairSide]]:
    """A beneficiary's ring among its candidate pairs: the pairs, taken most improbable
    on their own first, whose pooled record is the most improbable, and that record's
    probability. A frequent partner who plays it honestly dilutes the record (its games
    won about as rated); it is left out, as a partner in no ring."""
    ordered = sorted(sides, key=lambda side: record_probability(side.chances, side.wins))
    best, size = 1.0, 0
    for end in range(1, len(ordered) + 1):
        chances = [chance for side in ordered[:end] for chance in side.chances]
        probability = record_probability(chances, sum(side.wins for side in ordered[:end]))
        if probability < best:
            best, size = probability, end
    return best, ordered[:size]


def ring_suspicions(sides: Iterable[PairSide], test: RingTest) -> list[Suspicion]:
    """One suspicion per beneficiary whose ring (`ring_record`) is below the test's
    probability: partners most improbable on their own first, the ring's games as the
    evidence."""
    by_beneficiary: dict[str, list[PairSide]] = defaultdict(list)
    for side in sides:
        by_beneficiary[side.beneficiary].append(side)
    suspicions = []
    for beneficiary, candidates in by_beneficiary.items():
        probability, ring = ring_record(candidates)
        if probability >= test.probability:
            continue
        chances = [chance for side in ring for chance in side.chances]
        suspicions.append(
            Suspicion(
                kind=SuspicionKind.WIN_TRADING,
                player=beneficiary,
                character=None,
                games=len(chances),
                wins=sum(side.wins for side in ring),
                expected_wins=math.fsum(chances),
                probability=probability,
                partners=tuple(side.partner for side in ring),
                match_ids=tuple(sorted(i for side in ring for i in side.match_ids)),
            )
        )
    return suspicions
