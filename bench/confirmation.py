"""`python -m bench.confirmation`: what ranking only confirmed ratings (issue 35, item 1:
docs/rating-model.md#ratings-and-what-is-shown) costs honest players and attackers, in
memory through the rating ledger (matches.ratings.ledger) with the site's default
constants, no database.

1. An honest simulated league (default 200,000 games among 2,000 players over a 90-day
   season, the shape of `make bench-predictions`): the ratings ranked at its end (settled,
   and for RANKED_MIN_OPPONENTS = N, met N different opponents who were settled when
   they played it) for several N against N = 0 (the rule before), and the held-out log
   loss of the shown chances (the later half's games) under N = 0 and the default N,
   which must be equal: the rating update does not read the rule.
2. The cost of reaching the top 100 of that league by fixed games: one new account and k
   spare accounts; the spares first settle by trading games among themselves (each
   alternately winning), then the account beats them in turn until it is ranked above
   the 100th ranked rating, or a whole round counts no game (it cannot get there). With
   N = 0 (before), fresh spares that only lose are enough.

    python -m bench.confirmation [--games N] [--players N] [--seed N] [--minimum N]
"""

from __future__ import annotations

import argparse
import copy
import math
from dataclasses import replace
from datetime import UTC, datetime

from matches.ratings.glicko import GlickoParams
from matches.ratings.ledger import Game, RatingLedger
from matches.simulation.league import LeagueSimulator

START = datetime(2026, 1, 5, tzinfo=UTC)
DAYS = 90.0
MINUTE = 60.0
# site/settings.py's defaults for the constants the update reads.
SITE = GlickoParams(decay_constant=1.6, update_damping=0.3, one_chance=True)
ACCOUNT = "900000000000000000"
TOP = 100
MAX_GAMES = 200_000  # an attack still short after this many games is called unreachable


def honest_league(players: int, games: int, seed: int) -> list[Game]:
    league = LeagueSimulator(players, seed, START, rate=games / (DAYS * 86400))
    codes: dict[str, int] = {}
    out = []
    for n, replay in enumerate(league.games(games), start=1):
        a, b = replay["players"]
        moment = datetime.fromisoformat(replay["played_at"]).timestamp()
        ca = codes.setdefault(a["character"], len(codes))
        cb = codes.setdefault(b["character"], len(codes))
        out.append(Game(n, moment, a["id"], ca, b["id"], cb, replay["winner"] == 1))
    return out


def rate(games: list[Game], params: GlickoParams) -> tuple[RatingLedger, list[float]]:
    ledger = RatingLedger(params=params)
    return ledger, [ledger.apply(game).chance_a for game in games]


def ranked_values(ledger: RatingLedger, at: float, minimum: int) -> list[float]:
    """The values of the ratings ranked at `at` (decayed to it), best first."""
    values = []
    for state in ledger.ratings.values():
        shown = copy.copy(state)
        shown.decay_to(at, ledger.params)
        if shown.deviation < ledger.params.low_deviation and state.confirmations >= minimum:
            values.append(shown.value)
    return sorted(values, reverse=True)


def log_loss(games: list[Game], chances: list[float]) -> float:
    later = range(len(games) // 2, len(games))
    return -sum(math.log(chances[i] if games[i].a_won else 1.0 - chances[i]) for i in later) / len(
        later
    )


def attack(
    ledger: RatingLedger, spares: int, minimum: int, bar: float, at: float
) -> tuple[int, int, bool]:
    """(games played, of which spares settling, reached the top 100) for one account and
    `spares` spare accounts after the honest league, a game a minute."""
    ledger = copy.deepcopy(ledger)
    params = ledger.params
    ids = [f"9100000000000{n:05d}" for n in range(spares)]
    moment, match_id, played = at, 10**9, 0

    def play(winner: str, loser: str) -> bool:
        nonlocal moment, match_id, played
        moment += MINUTE
        match_id += 1
        played += 1
        return ledger.apply(Game(match_id, moment, winner, 0, loser, 0, True)).counted

    settling = 0
    if minimum:
        # The spares settle among themselves: each plays its neighbour, winning and losing
        # in turn, until every one is below the low deviation.
        turn = 0
        while any(ledger.rating((s, 0)).deviation >= params.low_deviation for s in ids):
            a, b = ids[turn % spares], ids[(turn + 1) % spares]
            play(a, b) if (turn // spares) % 2 == 0 else play(b, a)
            turn += 1
        settling = played
    while played < MAX_GAMES:
        counted = [play(ACCOUNT, spare) for spare in ids]
        account = ledger.rating((ACCOUNT, 0))
        if (
            account.deviation < params.low_deviation
            and account.confirmations >= minimum
            and account.value > bar
        ):
            return played, settling, True
        if not any(counted):
            break
    return played, settling, False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minimum", type=int, default=10, help="RANKED_MIN_OPPONENTS")
    options = parser.parse_args()
    games = honest_league(options.players, options.games, options.seed)
    end = games[-1].played_at
    print(f"honest league: {len(games):,} games, {options.players:,} players, {DAYS:g} days")

    before, before_chances = rate(games, replace(SITE, ranked_min_opponents=0))
    after, after_chances = rate(games, replace(SITE, ranked_min_opponents=options.minimum))
    # Counts for every smaller minimum from one run: confirmations are capped at the
    # minimum, and counting them does not depend on it below that.
    wide, _ = rate(games, replace(SITE, ranked_min_opponents=30))
    ranked_before = len(ranked_values(before, end, 0))
    print(f"ranked with no minimum (before): {ranked_before:,}")
    print("| RANKED_MIN_OPPONENTS | ranked | change |")
    print("|---|---|---|")
    for minimum in (3, 5, 8, 10, 12, 15, 20, 30):
        ranked = len(ranked_values(wide, end, minimum))
        change = 100.0 * (ranked - ranked_before) / ranked_before
        print(f"| {minimum} | {ranked:,} | {change:+.2f}% |")
    same = before_chances == after_chances
    print(
        f"held-out log loss (later half): minimum 0 {log_loss(games, before_chances):.6f}, "
        f"minimum {options.minimum} {log_loss(games, after_chances):.6f}; every shown "
        f"chance identical: {same}"
    )

    bar_after = ranked_values(after, end, options.minimum)[TOP - 1]
    bar_before = ranked_values(before, end, 0)[TOP - 1]
    print(f"the {TOP}th ranked rating: {bar_after:.0f} (before: {bar_before:.0f})")
    print("| rule | spare accounts | games in all | of which spares settling | top 100 |")
    print("|---|---|---|---|---|")
    for spares in (1, 5, 10, 20, 22, 50):
        played, _, reached = attack(before, spares, 0, bar_before, end)
        print(f"| before (no minimum) | {spares} | {played:,} | 0 | {reached} |")
    for spares in (options.minimum, 15, 20, 30, 50):
        played, settling, reached = attack(after, spares, options.minimum, bar_after, end)
        print(f"| minimum {options.minimum} | {spares} | {played:,} | {settling:,} | {reached} |")


if __name__ == "__main__":
    main()
