"""`make bench`: simulate a league, import it and recompute all ratings on PostgreSQL.

Each step runs as its own `manage.py` process against a fresh database, timed from
outside and measured for peak memory (with the processes it starts). The bare Glicko
update loop runs in this process for comparison. The run is appended to
docs/benchmarks-history.md and its row of BENCHMARKS.md rewritten.

    python -m bench.import_recompute [--games N] [--players N] [--seed N]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from bench import postgres
from bench.report import Figure, append_section, machine_description
from matches.ratings.glicko import rate_game

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"


@dataclass
class Step:
    seconds: float
    peak_mb: float
    output: str


def _resident_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (FileNotFoundError, ProcessLookupError):
        pass
    return 0


def _tree_resident_kb(root: int) -> int:
    """Resident memory of a process and all its descendants, summed (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                # The parent pid is the second field after the parenthesised command.
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    total, pending = 0, [root]
    while pending:
        pid = pending.pop()
        total += _resident_kb(pid)
        pending += children.get(pid, [])
    return total


def run_step(arguments: list[str], database_url: str) -> Step:
    """Run one manage.py command; its wall time, and its peak memory: the resident sets
    of the command and the processes it starts, summed, sampled every 0.1 s (and never
    below the command's own peak)."""
    environment = {**os.environ, "DATABASE_URL": database_url}
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "manage.py"), *arguments],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    peak_kb = 0
    finished = threading.Event()

    def sample() -> None:
        nonlocal peak_kb
        while not finished.wait(0.1):
            peak_kb = max(peak_kb, _tree_resident_kb(process.pid))

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    finished.set()
    sampler.join()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(arguments)} failed:\n{output}")
    return Step(seconds, max(peak_kb, usage.ru_maxrss) / 1024, output.strip())


def bare_update_loop(games: int) -> float:
    """Games/s of the update alone (docs/rating-model.md#the-update), on plain floats."""
    rng = random.Random(1)
    states = [(rng.gauss(1500, 200), rng.uniform(30, 350)) for _ in range(1000)]
    pairs = [(rng.randrange(1000), rng.randrange(1000), rng.random() < 0.5) for _ in range(games)]
    started = time.perf_counter()
    for a, b, a_won in pairs:
        ra, da = states[a]
        rb, db = states[b]
        ra, da, rb, db = rate_game(ra, da, rb, db, 1.0 if a_won else 0.0)
        states[a] = (ra, da)
        states[b] = (rb, db)
    return games / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=2026)
    options = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    url = postgres.recreate("bench_ratings")

    league = OUT / f"league-{options.players}-{options.games}-{options.seed}.jsonl.gz"
    if not league.exists():
        print(f"simulating {options.games} games among {options.players} players ...", flush=True)
        simulate = run_step(
            [
                "simulate_league",
                "--players",
                str(options.players),
                "--games",
                str(options.games),
                "--seed",
                str(options.seed),
                "--out",
                str(league),
            ],
            url,
        )
        print(f"  {simulate.seconds:.1f} s", flush=True)

    run_step(["migrate", "--no-input", "-v0"], url)
    print("importing ...", flush=True)
    imported = run_step(["import_replays", str(league)], url)
    print(f"  {imported.output.splitlines()[-1]} in {imported.seconds:.1f} s", flush=True)
    print("recomputing ...", flush=True)
    recomputed = run_step(["recompute_ratings"], url)
    print(f"  {recomputed.output.splitlines()[-1]}", flush=True)
    import_rate = options.games / imported.seconds
    recompute_rate = options.games / recomputed.seconds
    loop = bare_update_loop(options.games)
    print(f"bare update loop: {loop:,.0f} games/s")
    append_section(
        f"Import and recompute: {options.games:,} games, {options.players:,} players",
        [
            machine_description(),
            "",
            "Command: `make bench` (`python -m bench.import_recompute`). Each step is a separate "
            "`manage.py` process on a fresh PostgreSQL database; time is wall time of the whole "
            "command (start-up included), memory the peak of its resident set and those of the "
            "processes it starts (an import's reading process), summed.",
            "",
            "| import replays/s | import peak MB | recompute games/s | recompute peak MB |",
            "|---:|---:|---:|---:|",
            f"| {import_rate:,.0f} | {imported.peak_mb:,.0f} "
            f"| {recompute_rate:,.0f} | {recomputed.peak_mb:,.0f} |",
            "",
            f"Bare update loop (docs/rating-model.md#the-update) in the same run: "
            f"{loop:,.0f} games/s.",
        ],
        Figure(
            "make bench",
            f"import and recompute, {options.games:,} games among {options.players:,} "
            "players, each step its own process",
            f"import {import_rate:,.0f} replays/s (peak {imported.peak_mb:,.0f} MB), "
            f"recompute {recompute_rate:,.0f} games/s (peak {recomputed.peak_mb:,.0f} MB)",
            "issue 2, on PostgreSQL: import ≥ 20,000 replays/s, recompute ≥ 20,000 games/s, "
            "under 2 GB: "
            + (
                "met"
                if min(import_rate, recompute_rate) >= 20_000
                and max(imported.peak_mb, recomputed.peak_mb) < 2048
                else "NOT met"
            ),
        ),
    )


if __name__ == "__main__":
    main()
