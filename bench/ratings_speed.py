"""How fast each lab rating system rates games, next to the PyPI glicko2 and trueskill.

Every loop replays the same random schedule over a pool of players and does nothing
but look up both states, update them and store them back, so the figures compare
the update functions themselves.  Run ``python -m bench.ratings_speed [games]``.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable

from matches.ratings.registry import FACTORIES, create

Schedule = list[tuple[int, int, float, float]]
# Rates a schedule and returns each player's displayed rating after it, so a test can
# check that the loop timed is the loop that rated those games.
Loop = Callable[[], list[float]]


def _schedule(games: int, players: int, seed: int) -> Schedule:
    """(player a, player b, a's score, time) for each game, one game a minute."""
    rng = random.Random(seed)
    start = 1_700_000_000.0
    schedule = []
    for index in range(games):
        a, b = rng.sample(range(players), 2)
        schedule.append((a, b, 1.0 if rng.random() < 0.5 else 0.0, start + 60.0 * index))
    return schedule


def _games_per_second(loop: Loop, games: int) -> float:
    started = time.perf_counter()
    loop()
    return games / (time.perf_counter() - started)


def _system_loop(name: str, schedule: Schedule, players: int) -> Loop:
    system = create(name)

    def loop() -> list[float]:
        states = [system.initial()] * players
        update = system.update
        for a, b, score, at in schedule:
            states[a], states[b] = update(states[a], states[b], score, at)
        return [system.display(state) for state in states]

    return loop


def _pypi_glicko2_loop(schedule: Schedule, players: int) -> Loop:
    import glicko2

    def loop() -> list[float]:
        pool = [glicko2.Player() for _ in range(players)]
        for a, b, score, _ in schedule:
            player_a, player_b = pool[a], pool[b]
            rating_a, deviation_a = player_a.rating, player_a.rd
            player_a.update_player([player_b.rating], [player_b.rd], [score])
            player_b.update_player([rating_a], [deviation_a], [1.0 - score])
        return [player.rating for player in pool]

    return loop


def _pypi_trueskill_loop(schedule: Schedule, players: int) -> Loop:
    import trueskill

    def loop() -> list[float]:
        env = trueskill.TrueSkill()
        pool = [env.create_rating()] * players
        for a, b, score, _ in schedule:
            if score == 0.0:
                pool[b], pool[a] = trueskill.rate_1vs1(pool[b], pool[a], env=env)
            else:
                pool[a], pool[b] = trueskill.rate_1vs1(
                    pool[a], pool[b], drawn=score == 0.5, env=env
                )
        return [rating.mu for rating in pool]

    return loop


def loops(schedule: Schedule, players: int) -> dict[str, Loop]:
    """The loop of each registered system and of the two PyPI packages over one schedule."""
    by_name = {name: _system_loop(name, schedule, players) for name in FACTORIES}
    by_name["glicko2 (PyPI)"] = _pypi_glicko2_loop(schedule, players)
    by_name["trueskill (PyPI)"] = _pypi_trueskill_loop(schedule, players)
    return by_name


def measure(games: int, players: int = 1000, seed: int = 0) -> dict[str, float]:
    """Games per second of each registered system and of the two PyPI packages."""
    schedule = _schedule(games, players, seed)
    return {name: _games_per_second(loop, games) for name, loop in loops(schedule, players).items()}


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    print(f"| system | games/s ({count:,} games) |")
    print("|---|---:|")
    for system_name, rate in measure(count).items():
        print(f"| {system_name} | {rate:,.0f} |")
