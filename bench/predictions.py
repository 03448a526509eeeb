"""`python -m bench.predictions` (`make bench-predictions`): does the site's Glicko, tuned,
predict as well as the best tuned alternative, and are the chances it shows calibrated?

1. Tuning: a realistic simulated league (default 200,000 games among 2,000 players over
   a 90-day season: skills drift, players arrive and take breaks, hidden matchups) is
   stored with the ingestion service in a fresh database, and every system is tuned on
   its earlier half and scored on its later half (matches.services.tuning.tune): per
   system the tuned parameters and held-out log loss, the tuning time, and the site's
   Glicko under the reference constants (before) and under the current settings (after),
   on this league and on a league of a second seed.
2. Calibration, on that league and on a one-day league like `make run`'s live simulator
   (2,000 players, 0.2 games a second): the later half's deciles as the model says and
   as shown, through the temperature the site would have had at each game (refitted at
   every refresh on earlier predictions only), and whether every decile with at least
   200 games is within 0.02 of what happened.
3. One chance (docs/rating-model.md#one-chance), on the simulator's league with its
   hidden matchups and on one without: the later half's shown chances against the league's
   true probabilities (the share of the truth's gain over a coin flip they give up, and the
   worst decile), for the site's one chance, the same without the matchup, and the old
   shown chances (the reference model through a temperature refitted hourly).
4. With --big-database, `tune_ratings` on a stored (e.g. 1,000,000-game) database as its
   own process: wall time (that database is only read).

The bench database (default `bench_predictions`) is dropped and created for each league.
A dated section with the machine is appended to docs/benchmarks-history.md; update
its row of BENCHMARKS.md's summary table by hand (the command reminds you).

    python -m bench.predictions [--games N] [--players N] [--seed N] [--second-seed N]
        [--database NAME] [--big-database NAME] [--calibration-only] [--one-chance-only]
        [--print-only]
"""

from __future__ import annotations

import argparse
import math
import os
import time
from typing import Any

from bench import postgres
from bench.import_recompute import run_step
from bench.lab import fresh_database, store_league
from bench.report import load_line, machine_description, publish

DATABASE = "bench_predictions"
LIVE_PLAYERS, LIVE_RATE = 2_000, 0.2  # the simulator source's defaults (make run)
LIVE_REFRESH_SECONDS = 120.0  # make run's CELERY_REFRESH_SECONDS (Makefile)
CALIBRATION_TOLERANCE = 0.02
CALIBRATION_MIN_GAMES = 200  # deciles with fewer games are too noisy to judge


def _site_glicko(**overrides: float) -> Any:
    from dataclasses import replace

    from matches.params import glicko_params
    from matches.ratings.base import ContinuousGlicko

    return ContinuousGlicko(replace(glicko_params(), **overrides), apply_counting_rule=True)


def _design_overrides() -> dict[str, float]:
    """The reference constants (GlickoParams' defaults, docs/rating-model.md) for the
    settings the tuner chooses."""
    from matches.ratings.glicko import DEFAULT_PARAMS
    from matches.services.tuning import GLICKO_SETTINGS

    return {name: getattr(DEFAULT_PARAMS, name) for name in GLICKO_SETTINGS}


def defaults_row(label: str) -> str:
    """The site's Glicko on the stored league: the reference constants against the settings."""
    from matches.services.tuning import held_out_log_loss, load_history

    history = load_history()
    before = held_out_log_loss(_site_glicko(**_design_overrides()), history)
    after = held_out_log_loss(_site_glicko(), history)
    return f"| {label} | {before:.5f} | {after:.5f} | {before - after:+.5f} |"


def tuning_section(players: int, games: int, seed: int, second_seed: int, database: str):
    from matches.params import glicko_params
    from matches.services.tuning import GLICKO_SETTINGS, glicko_settings, tune

    fresh_database(database)
    print(f"[tune] storing {games:,} games among {players:,} players (seed {seed}) ...", flush=True)
    store_league(players, games, seed)
    started = time.perf_counter()
    history, results = tune()
    seconds = time.perf_counter() - started
    rows = [
        f"| {r.name} | {r.search.loss:.5f} | {r.search.start_loss:.5f} | "
        + " ".join(f"{name}={value:.4g}" for name, value in r.search.best.items())
        + f" | {r.search.evaluations} |"
        for r in sorted(results, key=lambda r: r.search.loss)
    ]
    site = next(r for r in results if r.name == "glicko")
    best_other = min((r for r in results if r.name != "glicko"), key=lambda r: r.search.loss)
    verdict = "≤" if site.search.loss <= best_other.search.loss else "> (NOT met)"
    design = _design_overrides()
    current = glicko_params()
    settings_rows = [
        f"| `{setting}` | {design[name]:g} | {getattr(current, name):g} | "
        f"{glicko_settings(site.search.best)[setting]:.4g} |"
        for name, setting in GLICKO_SETTINGS.items()
    ]
    defaults = [defaults_row(f"seed {seed}")]
    fresh_database(database)
    print(f"[tune] second seed {second_seed}: the site's defaults before and after ...", flush=True)
    store_league(players, games, second_seed)
    defaults.append(defaults_row(f"seed {second_seed}"))
    return history, [
        f"### Tuning on a simulated league: {games:,} games, {players:,} players, 90 days "
        f"(seed {seed})",
        "",
        f"Each system tuned on the first {history.training:,} games and scored on the next "
        f"{history.held_out:,} (held-out log loss; coordinate search with golden-section "
        f"steps, `matches.services.tuning.tune`, in {seconds:.0f} s including reading the "
        "history).",
        "",
        "| system | held-out log loss, tuned | with its defaults | tuned parameters | passes |",
        "|---|---:|---:|---|---:|",
        *rows,
        "",
        f"The tuned site Glicko ({site.search.loss:.5f}) {verdict} the best tuned alternative "
        f"({best_other.name}, {best_other.search.loss:.5f}).",
        "",
        "The site's Glicko settings: the reference constants (`GlickoParams`), the site's "
        "defaults now, and the tuned values:",
        "",
        "| setting | reference | site default | tuned |",
        "|---|---:|---:|---:|",
        *settings_rows,
        "",
        "Held-out log loss of the site's Glicko with the reference constants (before) and the "
        "site's default settings (after), on this league and one of another seed:",
        "",
        "| league | before | after | gain |",
        "|---|---:|---:|---:|",
        *defaults,
        "",
    ]


def _decile_rows(before: list, after: list) -> tuple[list[str], float]:
    """The decile table's Markdown rows, and the largest |predicted - observed| after
    calibration over the deciles with enough games."""
    rows, worst = [], 0.0
    for old, new in zip(before, after, strict=True):
        cells = []
        for bin_ in (old, new):
            if bin_.count:
                gap = bin_.mean_predicted - bin_.observed
                cells.append(
                    f"{bin_.count:,} | {bin_.mean_predicted:.3f} | {bin_.observed:.3f} | {gap:+.3f}"
                )
            else:
                cells.append("0 | | |")
        if new.count >= CALIBRATION_MIN_GAMES:
            worst = max(worst, abs(new.mean_predicted - new.observed))
        rows.append(f"| {old.low:.1f}-{old.high:.1f} | {' | '.join(cells)} |")
    return rows, worst


def calibration_lines(title: str, history, refit_every: float) -> list[str]:
    """The shown chances of the later half, each calibrated as the site would have shown
    it: the temperature refitted at every refresh on the latest earlier predictions."""
    from matches.services.tuning import held_out_calibration

    result = held_out_calibration(_site_glicko(), history, refit_every=refit_every)
    rows, worst = _decile_rows(result.model.calibration(), result.shown.calibration())
    verdict = "met" if worst <= CALIBRATION_TOLERANCE else "NOT met"
    first, last = result.temperatures
    return [
        f"#### {title}",
        "",
        f"Temperature refitted every {refit_every:g} s: {first:.3f} at the first later game, "
        f"{last:.3f} at the last. Later half ({result.model.count:,} games): log loss "
        f"{result.model.log_loss:.5f} as the model says, {result.shown.log_loss:.5f} as shown "
        f"(a coin flip: {math.log(2):.5f}). Worst decile with at least "
        f"{CALIBRATION_MIN_GAMES} games as shown: {worst:.3f} (target ≤ "
        f"{CALIBRATION_TOLERANCE}: {verdict}). One temperature for the whole later half, "
        f"chosen in hindsight, would be {result.hindsight.temperature:.3f}.",
        "",
        "| decile | games | predicted | observed | gap | games (shown) | predicted | observed "
        "| gap |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
    ]


ONE_CHANCE_GAMES = 120_000
ONE_CHANCE_REFIT_SECONDS = 86_400.0  # the table's refit here; the site refits it hourly
GIVE_UP_TARGET = 0.07  # of the truth's gain over a coin flip (issue 28)


def _scored(replays: list[dict], chances: list[float], truth: list[float]) -> dict:
    """Log loss and worst decile of the later half's `chances`, and the share of the true
    probabilities' gain over a coin flip they give up."""
    from matches.ratings.metrics import PredictionMetrics

    half = len(replays) // 2
    shown, true = PredictionMetrics(), PredictionMetrics()
    for game, p, q in zip(replays[half:], chances[half:], truth[half:], strict=True):
        score = 1.0 if game["winner"] == 1 else 0.0
        shown.add(p, score)
        true.add(q, score)
    worst = max(
        (abs(b.mean_predicted - b.observed) for b in shown.calibration() if b.count >= 2000),
        default=0.0,
    )
    coin = math.log(2)
    return {
        "log_loss": shown.log_loss,
        "true": true.log_loss,
        "gives_up": (shown.log_loss - true.log_loss) / (coin - true.log_loss),
        "worst": worst,
        "games": shown.count,
    }


ONE_CHANCE_LEAGUES = (
    # label, players, shape, skill drift, matchup deviation (None: the simulator's)
    ("textbook, hidden matchups", 800, "TEXTBOOK", False, None),
    ("textbook, no matchups", 800, "TEXTBOOK", False, 0.0),
    ("live-like, hidden matchups", 2_000, "LIVE", True, None),
)


def one_chance_lines(seed: int) -> list[str]:
    """The shown chances of simulated leagues' later halves against their truth: issue 28's
    textbook league with and without matchups (the targets), and a live-like one."""
    from dataclasses import replace

    from django.conf import settings

    from matches.params import glicko_params
    from matches.ratings.calibration import RollingCalibration
    from matches.ratings.chance_replay import replay_chances
    from matches.simulation.league import TEXTBOOK, LeagueShape, LeagueSimulator, as_game

    shapes = {"TEXTBOOK": TEXTBOOK, "LIVE": LeagueShape()}
    site = glicko_params()
    models = {
        "site: one chance, matchup in": (site, settings.MATCHUP_PRIOR_DEVIATION),
        "one chance, no matchup": (site, None),
    }
    reference = replace(site, one_chance=False, update_damping=0.0)
    rows = []
    for label, players, shape, drift, matchups in ONE_CHANCE_LEAGUES:
        options = {} if matchups is None else {"matchup_deviation": matchups}
        league = LeagueSimulator(
            players,
            seed,
            rate=ONE_CHANCE_GAMES / (90 * 86400),
            shape=shapes[shape],
            skill_drift=drift,
            **options,
        )
        print(f"[one chance] {ONE_CHANCE_GAMES:,} games, {label} ...", flush=True)
        replays = list(league.games(ONE_CHANCE_GAMES))
        truth = [league.win_probability(game) for game in replays]
        games = [as_game(n, r) for n, r in enumerate(replays)]
        for name, (params, prior) in models.items():
            chances = [
                result.chance_a
                for _, result in replay_chances(
                    games,
                    params,
                    refit_every=ONE_CHANCE_REFIT_SECONDS,
                    prior_deviation=prior or 1.0,
                    matchups=prior is not None,
                )
            ]
            rows.append((label, name, _scored(replays, chances, truth)))
        rolling, chances = RollingCalibration(settings.CELERY_REFRESH_SECONDS), []
        for game, result in replay_chances(
            games, reference, refit_every=ONE_CHANCE_REFIT_SECONDS, prior_deviation=1.0
        ):
            rolling.at(game.played_at)
            chances.append(rolling.shown(result.chance_a))
            rolling.learn(result.chance_a, 1.0 if game.a_won else 0.0)
        old = _scored(replays, chances, truth)
        rows.append((label, "old: reference through a temperature", old))
    table = [
        f"| {label} | {name} | {r['log_loss']:.5f} | {r['true']:.5f} | "
        f"{100 * r['gives_up']:.1f}% | {r['worst']:.3f} |"
        for label, name, r in rows
    ]
    site_rows = {label: r for label, name, r in rows if name.startswith("site")}
    old_rows = {label: r for label, name, r in rows if name.startswith("old")}
    target = site_rows["textbook, hidden matchups"]
    plain = "textbook, no matchups"
    without = site_rows[plain]["log_loss"] - old_rows[plain]["log_loss"]
    live = site_rows["live-like, hidden matchups"]
    live_old = old_rows["live-like, hidden matchups"]
    return [
        "### One chance: the shown chances against the truth",
        "",
        f"Simulated leagues of {ONE_CHANCE_GAMES:,} games over 90 days (seed {seed}); the "
        "later half scored against the league's true probabilities. Textbook "
        "(`matches.simulation.league.TEXTBOOK`, the league issue 28 measured on): 800 "
        "players of fixed skill, one character each among 8, random pairings, even "
        "activity. Live-like: the simulator's defaults (2,000 players, matchmaking by skill, "
        "secondary characters, drifting skills, breaks and late arrivals). The matchup table "
        f"is refitted every {ONE_CHANCE_REFIT_SECONDS / 3600:g} h on the counted games before "
        "it (`matches.ratings.chance_replay`); the old shown chances went through a "
        f"temperature refitted every {settings.CELERY_REFRESH_SECONDS:g} s. Gives up: the "
        "share of the truth's gain over a coin flip the shown chances lose. Worst decile: "
        "deciles of 2,000+ games.",
        "",
        "| league | shown chances | log loss | truth | gives up | worst decile |",
        "|---|---|---:|---:|---:|---:|",
        *table,
        "",
        f"Textbook league with hidden matchups: the site's chances give up "
        f"{100 * target['gives_up']:.1f}% (target ≤ {100 * GIVE_UP_TARGET:.0f}%: "
        f"{'met' if target['gives_up'] <= GIVE_UP_TARGET else 'NOT met'}), worst decile "
        f"{target['worst']:.3f} (target ≤ {CALIBRATION_TOLERANCE}: "
        f"{'met' if target['worst'] <= CALIBRATION_TOLERANCE else 'NOT met'}). Without "
        f"matchups, against the old shown chances: {without:+.5f} log loss (target ≤ +0.001: "
        f"{'met' if without <= 0.001 else 'NOT met'}). On the live-like league the truth "
        f"gains only {math.log(2) - live['true']:.3f} over a coin flip (matchmaking pairs "
        "near equals), so young and drifting ratings lose a large share of it: the site "
        f"gives up {100 * live['gives_up']:.1f}%, the old chances "
        f"{100 * live_old['gives_up']:.1f}%.",
        "",
    ]


def live_day_history(seed: int, database: str):
    from matches.services.tuning import load_history

    fresh_database(database)
    games = int(LIVE_RATE * 86400)
    print(f"[calibration] a one-day league: {games:,} games, {LIVE_PLAYERS:,} players", flush=True)
    store_league(LIVE_PLAYERS, games, seed, days=1.0)
    return load_history()


def big_section(database: str) -> list[str]:
    from matches.services.tuning import SYSTEM_NAMES

    url = postgres.url(database)
    games = postgres.psql(database, "SELECT count(*) FROM matches_match")
    print(f"[big] tune_ratings on {database} ({games} games) ...", flush=True)
    load = os.getloadavg()[0]
    step = run_step(["tune_ratings"], url)
    print(step.output, flush=True)
    verdict = "within" if step.seconds <= 600 else "OVER"
    return [
        f"### `tune_ratings` on {int(games):,} stored games ({database})",
        "",
        f"All {len(SYSTEM_NAMES)} systems ({', '.join(SYSTEM_NAMES)}), held-out half, as its "
        f"own `manage.py` process: wall time {step.seconds:.0f} s ({verdict} the 10-minute "
        f"target), peak memory {step.peak_mb:,.0f} MB; load average (1 min) when it "
        f"started: {load:.1f}.",
        "",
        "```",
        step.output,
        "```",
        "",
    ]


def league_sections(options: argparse.Namespace) -> list[str]:
    """Tuning on the simulated league, then calibration on it and on a one-day league."""
    from django.conf import settings

    from matches.services.tuning import load_history

    if options.calibration_only:
        fresh_database(options.database)
        print(f"[calibration] {options.games:,} games (seed {options.seed}) ...", flush=True)
        store_league(options.players, options.games, options.seed)
        history, sections = load_history(), []
    else:
        history, sections = tuning_section(
            options.players, options.games, options.seed, options.second_seed, options.database
        )
    return [
        *sections,
        "### Calibration of the chances the site shows",
        "",
        "The site's Glicko (default settings) predicts every game before it learns it. As on "
        "the site, the temperature is refitted at every refresh (`CELERY_REFRESH_SECONDS`) on "
        "the latest predictions so far (10%, at least 2,000 games: "
        "`matches.ratings.calibration.RollingCalibration`), so no game is shown through a fit "
        "that saw it. The later half is scored: deciles of the predicted P(A wins) as the "
        "model says and as shown (gap = predicted - observed).",
        "",
        *calibration_lines(
            f"The {options.games:,}-game league (seed {options.seed})",
            history,
            settings.CELERY_REFRESH_SECONDS,
        ),
        *calibration_lines(
            f"A one-day live league like `make run`'s ({LIVE_PLAYERS:,} players, {LIVE_RATE} "
            f"games/s, a refresh every {LIVE_REFRESH_SECONDS:g} s)",
            live_day_history(options.seed, options.database),
            LIVE_REFRESH_SECONDS,
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--second-seed", type=int, default=2027)
    parser.add_argument("--database", default=DATABASE, help="dropped and created per league")
    parser.add_argument("--big-database", help="a stored league to time tune_ratings on")
    parser.add_argument(
        "--big-only", action="store_true", help="only time tune_ratings on --big-database"
    )
    parser.add_argument(
        "--calibration-only", action="store_true", help="skip the tuning: only the calibration"
    )
    parser.add_argument(
        "--one-chance-only", action="store_true", help="only the one-chance section"
    )
    parser.add_argument(
        "--print-only", action="store_true", help="print the section, record nothing"
    )
    options = parser.parse_args()

    os.environ["DATABASE_URL"] = postgres.url(options.database)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings")
    import django

    django.setup()

    load_before = os.getloadavg()[0]
    if options.big_only:
        if not options.big_database:
            parser.error("--big-only needs --big-database")
        sections = big_section(options.big_database)
    elif options.one_chance_only:
        sections = one_chance_lines(options.seed)
    else:
        sections = league_sections(options) + one_chance_lines(options.seed)
        if options.big_database:
            sections += big_section(options.big_database)
    lines = [
        machine_description(),
        load_line(load_before),
        "",
        *sections,
    ]
    title = "Predictions: tuned systems and calibrated chances (`make bench-predictions`)"
    publish(title, lines, print_only=options.print_only)


if __name__ == "__main__":
    main()
