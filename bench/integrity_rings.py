"""`python -m bench.integrity_rings` (part of `make bench-integrity`): does the ring test
find planted win-trading rings, and is it cheap?

For each seed, a simulated league (default 200,000 games among 2,000 players over 90
days) with planted rings (matches.simulation.league.PlantedRings) is stored in a fresh
database (NAME_<seed>, kept for inspection) and rated by `recompute_ratings`, as a
site's games are; the detector then runs as the refresh runs it
(matches.services.win_trading.find_rings) over the whole league, knowing nothing of the
truth, and its flags are scored against the planted rings:

- recall: the share of planted rings whose beneficiary is flagged with at least one of
  its partners;
- precision: the share of flags whose player is a planted beneficiary and whose partners
  are all of its ring.

With --timing-games N, one more league of N games (default 1,000,000) is stored and
rated, and `find_rings` is timed on it (best of three). `make bench-integrity` runs it
after bench/integrity.py (alternate accounts); the section is appended to
docs/benchmarks-history.md and the command's row of BENCHMARKS.md rewritten.

    python -m bench.integrity_rings [--games N] [--players N] [--rings N]
        [--seeds 1,2] [--timing-games N] [--database NAME] [--print-only]
"""

from __future__ import annotations

import argparse
import os
import time
from dataclasses import dataclass

from bench import postgres
from bench.import_recompute import run_step
from bench.lab import SEASON_DAYS, START, fresh_database
from bench.report import Figure, load_line, machine_description, publish

DATABASE = "bench_integrity_rings"
RECALL_TARGET, PRECISION_TARGET = 0.8, 0.9


@dataclass(frozen=True)
class RingScore:
    seed: int
    rings: int
    flags: int
    found: int  # planted rings flagged
    correct: int  # flags that name a planted ring
    detect_seconds: float
    ring_games: int  # the planted rings' games against each other

    @property
    def recall(self) -> float:
        return self.found / self.rings if self.rings else 1.0

    @property
    def precision(self) -> float:
        return self.correct / self.flags if self.flags else 1.0


def _fresh(database: str) -> str:
    """A fresh, migrated `database`, this process's from now on (bench.lab.fresh_database
    recreates it; the process's connection is pointed at it here)."""
    from django.db import connections

    url = fresh_database(database)
    connections.close_all()
    connections.databases["default"]["NAME"] = database
    return url


def _store_rated_league(players: int, games: int, seed: int, rings: int, url: str):
    """Store and rate a league with `rings` planted rings; the simulator (the truth)."""
    from matches.replays.readers import iter_replay_payloads
    from matches.services.file_import import file_import_source
    from matches.services.ingest import store_replays
    from matches.simulation.league import LeagueSimulator, PlantedRings

    league = LeagueSimulator(
        players,
        seed,
        START,
        rate=games / (SEASON_DAYS * 86400),
        rings=PlantedRings(count=rings),
    )
    result = store_replays(
        source=file_import_source(), replays=iter_replay_payloads(league.games(games))
    )
    if result.new != games:
        raise RuntimeError(f"stored {result} of {games} simulated games")
    run_step(["recompute_ratings"], url)
    # A site's autovacuum analyzes the tables; without statistics the planner guesses the
    # window's size (and may not use played_at's index for a short window).
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE matches_match, matches_matchrating")
    return league


def _detect() -> tuple[list, float]:
    """The ring test over the whole league, as the refresh runs it; best of three."""
    from datetime import timedelta

    from matches.services.win_trading import find_rings

    end = START + timedelta(days=SEASON_DAYS + 1)
    timings, suspicions = [], []
    for _ in range(3):
        started = time.perf_counter()
        suspicions = find_rings(end, days=SEASON_DAYS + 1)
        timings.append(time.perf_counter() - started)
    return suspicions, min(timings)


def score_seed(players: int, games: int, seed: int, rings: int, database: str) -> RingScore:
    url = _fresh(f"{database}_{seed}")
    print(f"[rings] seed {seed}: {games:,} games, {players:,} players, {rings} rings", flush=True)
    league = _store_rated_league(players, games, seed, rings, url)
    truth = {ring.beneficiary: set(ring.partners) for ring in league.planted_rings()}
    suspicions, seconds = _detect()
    flagged = {s.player: set(s.partners) for s in suspicions}
    found = sum(1 for b, partners in truth.items() if flagged.get(b, set()) & partners)
    correct = sum(1 for b, partners in flagged.items() if partners <= truth.get(b, set()))
    from django.db import connection

    with connection.cursor() as cursor:
        pairs = [(b, p) for b, ps in truth.items() for p in ps]
        cursor.execute(
            "SELECT count(*) FROM matches_match WHERE (player_a_id, player_b_id) IN "
            "(SELECT * FROM unnest(%s::text[], %s::text[]))",
            [[min(pair) for pair in pairs], [max(pair) for pair in pairs]],
        )
        ring_games = cursor.fetchone()[0]
    missed = [b for b, partners in truth.items() if not flagged.get(b, set()) & partners]
    wrong = [s for s in suspicions if not set(s.partners) <= truth.get(s.player, set())]
    print(f"  missed beneficiaries: {missed}", flush=True)
    for s in wrong:
        print(f"  wrong flag: {s.player} {s.partners} {s.wins}/{s.games} "
              f"exp {s.expected_wins:.1f} p {s.probability:.2g}", flush=True)  # fmt: skip
    return RingScore(seed, len(truth), len(suspicions), found, correct, seconds, ring_games)


def time_big(games: int, players: int, rings: int, database: str) -> tuple[float, int]:
    """find_rings on a stored league of `games` games: (best of three seconds, flags)."""
    url = _fresh(f"{database}_big")
    print(f"[rings] timing: storing and rating {games:,} games ...", flush=True)
    _store_rated_league(players, games, 99, rings, url)
    suspicions, seconds = _detect()
    return seconds, len(suspicions)


def rings_section(
    players: int = 2_000,
    games: int = 200_000,
    seeds: tuple[int, ...] = (1, 2),
    rings: int = 20,
    timing_games: int = 0,
    database: str = DATABASE,
) -> tuple[list[str], Figure]:
    """The section's lines and the summary figure: for bench/integrity.py to publish."""
    from matches.services.win_trading import ring_test

    test = ring_test()
    scores = [score_seed(players, games, seed, rings, database) for seed in seeds]
    lines = [
        f"Leagues of {games:,} games among {players:,} players over {SEASON_DAYS} days, "
        f"{rings} planted rings each (2 to 4 accounts, the beneficiary winning 90% of "
        "their games together); the detector reads the stored, rated games only. Test: "
        f"at least {test.min_games} games, one side winning {test.min_share:.0%}, "
        f"{test.frequency:g}x the meetings activity predicts, the ring's pooled record "
        f"probability below {test.probability:g} with its pairs' lift fading over "
        f"{test.lift_half_life_days:g} days.",
        "",
        "| seed | rings | their games | flags | rings found | flags right | recall | "
        "precision | find_rings |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for s in scores:
        lines.append(
            f"| {s.seed} | {s.rings} | {s.ring_games:,} | {s.flags} | {s.found} | {s.correct} "
            f"| {s.recall:.2f} | {s.precision:.2f} | {s.detect_seconds:.2f} s |"
        )
    recall = min(s.recall for s in scores)
    precision = min(s.precision for s in scores)
    met = recall >= RECALL_TARGET and precision >= PRECISION_TARGET
    figure_text = f"worst seed: recall {recall:.2f}, precision {precision:.2f}"
    if timing_games:
        seconds, flags = time_big(timing_games, players * 5, rings * 5, database)
        lines += [
            "",
            f"`find_rings` over {timing_games:,} stored games ({players * 5:,} players, "
            f"{rings * 5} rings, {flags} flags): {seconds:.2f} s (best of three).",
        ]
        figure_text += f"; find_rings {seconds:.1f} s at {timing_games:,} games"
    figure = Figure(
        command="python -m bench.integrity_rings",
        what=f"win-trading rings planted in {len(seeds)} leagues of {games:,} games (issue 31)",
        figure=figure_text,
        target="issue 31: recall ≥ 0.8, precision ≥ 0.9: " + ("met" if met else "not met"),
    )
    return lines, figure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=2_000)
    parser.add_argument("--rings", type=int, default=20)
    parser.add_argument("--seeds", default="1,2")
    parser.add_argument("--timing-games", type=int, default=0)
    parser.add_argument("--database", default=DATABASE)
    parser.add_argument("--print-only", action="store_true")
    args = parser.parse_args()
    # This process stores the leagues and runs the detector in the bench databases.
    os.environ["DATABASE_URL"] = postgres.url("postgres")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings")
    import django

    django.setup()
    load = os.getloadavg()[0]
    lines, figure = rings_section(
        args.players,
        args.games,
        tuple(int(seed) for seed in args.seeds.split(",")),
        args.rings,
        args.timing_games,
        args.database,
    )
    lines += ["", machine_description(), load_line(load)]
    publish(f"Win-trading rings ({time.strftime('%Y-%m-%d %H:%M')} UTC)", lines, figure,
            print_only=args.print_only)  # fmt: skip


if __name__ == "__main__":
    main()
