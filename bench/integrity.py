"""`python -m bench.integrity` (`make bench-integrity`): suspected alternate accounts and the
fast track (issue 31, docs/integrity.md) on simulated leagues with planted accounts.

Per seed (1 to 10 by default), a league (by default 200,000 games among 2,000 players
over a 90-day season, with 40 planted alternate accounts:
`LeagueSimulator(alternates=...)`) is rated in memory by the site's ledger
(`RatingLedger` with the site's settings, `matches.params`), with the fast track and
without; the planted truth is read only to score:

- detection (fast track on, as the site runs): recall over the planted accounts that
  played at least 30 games, and precision over every flagged player; the test reads only
  a rating's first 30 games, so a flag always comes within them;
- per planted account, the games its main character's rating needs to come within 100
  points of its true skill (its whole count when it never does: the medians say so), and
  the rating points its honest opponents lose to it over the league (their net change
  in its games);
- the log loss of the shown chances over the later half's games without a planted
  account, with the fast track and without (held out: every chance is shown before its
  game is rated), and the paired standard error of the difference (the same games
  rated both ways); over all seeds, the pooled difference and its standard error;
- the same figures with the fast track's flagged stage alone (its early stage off), to
  show what the early stage adds;
- the same figures with the give-back at the flag (INTEGRITY_GIVE_BACK) added to the
  fast track, when the site's settings do not already give back.

    python -m bench.integrity [--games N] [--players N] [--alternates N] [--seeds 1 2 ...]
        [--print-only]
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from bench.report import Figure, load_line, machine_description, publish

CLOSE_POINTS = 100.0
WINDOW_GAMES = 30


@dataclass(frozen=True)
class LeagueRun:
    """One rating of a league: what the bench scores."""

    flagged_players: frozenset[str]
    games_to_close: dict[str, int]  # per planted account; its game count when never close
    never_close: int
    points_lost: float  # by honest opponents, net, over all planted accounts' games
    log_loss: float  # the later half's games without a planted account
    held_out_games: int
    game_losses: list[float]  # each of those games' log loss, in order


def _league(players: int, games: int, seed: int, alternates: int):
    from matches.simulation.league import DEFAULT_START, LeagueSimulator, as_game

    rate = games / (90 * 86400)
    league = LeagueSimulator(players, seed, DEFAULT_START, rate=rate, alternates=alternates)
    replays = list(league.games(games))
    ids = league.character_index
    return league, [as_game(number, replay, ids) for number, replay in enumerate(replays, 1)]


def _rate(league, games, params, played: dict[str, int]) -> LeagueRun:
    from matches.ratings.ledger import RatingLedger

    planted = {alternate.player_id for alternate in league.alternates}
    mains = {
        alternate.player_id: league._players[league._index[alternate.player_id]].characters[0]
        for alternate in league.alternates
    }
    truth_by_week: dict[int, dict] = {}
    ledger = RatingLedger(params=params)
    main_games = dict.fromkeys(planted, 0)
    close_at: dict[str, int] = {}
    points_lost = 0.0
    losses: list[float] = []
    half = len(games) // 2
    for number, game in enumerate(games):
        result = ledger.apply(game)
        a_planted, b_planted = game.player_a in planted, game.player_b in planted
        if not (a_planted or b_planted):
            if number >= half:
                p = min(max(result.chance_a, 1e-12), 1 - 1e-12)
                losses.append(-math.log(p if game.a_won else 1.0 - p))
            continue
        if a_planted != b_planted:
            # The honest side's change: what the planted account took from (or gave) it.
            points_lost -= result.change_b if a_planted else result.change_a
        for player, character, value in (
            (game.player_a, game.character_a, result.new_value_a),
            (game.player_b, game.character_b, result.new_value_b),
        ):
            if player not in planted or character != mains[player] or player in close_at:
                continue
            main_games[player] += 1
            week = int((game.played_at - league.start.timestamp()) // (7 * 86400))
            if week not in truth_by_week:
                truth_by_week[week] = league.true_skills(
                    datetime.fromtimestamp(game.played_at, UTC)
                )
            if abs(value - truth_by_week[week][(player, character)]) <= CLOSE_POINTS:
                close_at[player] = main_games[player]
    for game in games:
        for player in (game.player_a, game.player_b):
            if player in planted:
                played[player] = played.get(player, 0) + 1
    # What the fast track gave back to the opponents at a planted account's flag.
    points_lost -= sum(points for key, points in ledger.given_back.items() if key[0] in planted)
    to_close = {player: close_at.get(player, main_games[player]) for player in planted}
    return LeagueRun(
        frozenset(key[0] for key in ledger.suspects),
        to_close,
        len(planted) - len(close_at),
        points_lost,
        math.fsum(losses) / max(len(losses), 1),
        len(losses),
        losses,
    )


def paired_difference(losses: list[float], baseline: list[float]) -> tuple[float, float]:
    """The mean of the per-game differences of two ratings of the same games and its
    standard error: a paired comparison, far tighter than the two log losses' own."""
    differences = [loss - base for loss, base in zip(losses, baseline, strict=True)]
    if len(differences) < 2:
        return (differences[0] if differences else 0.0), math.inf
    mean = math.fsum(differences) / len(differences)
    return mean, statistics.stdev(differences) / math.sqrt(len(differences))


def _seed_lines(players: int, games: int, seed: int, alternates: int, params) -> tuple:
    started = time.perf_counter()
    league, league_games = _league(players, games, seed, alternates)
    planted = {alternate.player_id for alternate in league.alternates}
    played: dict[str, int] = {}
    on = _rate(league, league_games, params, played)
    off = _rate(league, league_games, replace(params, fast_track_deviation=0.0), {})
    # The give-back (INTEGRITY_GIVE_BACK) beside the site's settings, when they do not.
    giving = (
        on if params.give_back else _rate(league, league_games, replace(params, give_back=True), {})
    )
    # The flagged stage alone: what the early stage adds.
    flag_only = (
        _rate(league, league_games, replace(params, early_fast_track_games=0), {})
        if params.early_fast_track_games > 0
        else on
    )
    difference, error = paired_difference(on.game_losses, off.game_losses)
    eligible = {player for player in planted if played.get(player, 0) >= WINDOW_GAMES}
    true_flags = on.flagged_players & planted
    recall = len(true_flags & eligible) / max(len(eligible), 1)
    precision = len(true_flags) / max(len(on.flagged_players), 1)
    median_on = statistics.median(on.games_to_close[player] for player in eligible)
    median_off = statistics.median(off.games_to_close[player] for player in eligible)
    lines = [
        f"### Seed {seed}: {games:,} games, {players:,} players, {len(planted)} planted "
        f"alternate accounts ({len(eligible)} with at least {WINDOW_GAMES} games)",
        "",
        f"- Flagged: {len(on.flagged_players)} players, {len(true_flags)} of them planted: "
        f"recall {recall:.3f}, precision {precision:.3f} (targets 0.8 and 0.9).",
        f"- Games of the main character to come within {CLOSE_POINTS:.0f} points of the true "
        f"skill, median: {median_on:g} with the fast track, {median_off:g} without "
        f"(never within the league: {on.never_close} and {off.never_close}, counted at "
        "their game count); ratio "
        f"{median_on / max(median_off, 1):.2f} (target ≤ 0.5).",
        f"- Rating points honest opponents lost to them, net: {on.points_lost:,.0f} with the "
        f"fast track, {off.points_lost:,.0f} without; ratio "
        f"{on.points_lost / off.points_lost:.2f} (target ≤ 0.5).",
        f"- Log loss of the later half's {on.held_out_games:,} games without a planted "
        f"account: {on.log_loss:.5f} with the fast track, {off.log_loss:.5f} without "
        f"(difference {difference:+.6f}, paired standard error {error:.6f}; target ≤ 0).",
        f"- With the give-back at the flag: points lost {giving.points_lost:,.0f} (ratio "
        f"{giving.points_lost / off.points_lost:.2f}), games to within {CLOSE_POINTS:.0f} "
        f"points {statistics.median(giving.games_to_close[p] for p in eligible):g}, log loss "
        f"{giving.log_loss:.5f} (difference {giving.log_loss - off.log_loss:+.6f}).",
        f"- The flagged stage alone (early stage off): games to within {CLOSE_POINTS:.0f} "
        f"points {statistics.median(flag_only.games_to_close[p] for p in eligible):g}, points "
        f"lost {flag_only.points_lost:,.0f} (ratio {flag_only.points_lost / off.points_lost:.2f}"
        f"), log loss difference {flag_only.log_loss - off.log_loss:+.6f}.",
        f"- {time.perf_counter() - started:.0f} s for the seed (simulation and the ratings).",
        "",
    ]
    met = (
        recall >= 0.8
        and precision >= 0.9
        and median_on <= 0.5 * median_off
        and on.points_lost <= 0.5 * off.points_lost
        and difference <= 0.0
    )
    summary = (
        f"seed {seed}: recall {recall:.2f}, precision {precision:.2f}, games to within 100 "
        f"{median_on:g} vs {median_off:g}, points lost {on.points_lost:,.0f} vs "
        f"{off.points_lost:,.0f}, log loss {difference:+.6f} (±{error:.6f}); with the "
        f"give-back points lost {giving.points_lost:,.0f}, log loss "
        f"{giving.log_loss - off.log_loss:+.6f}"
    )
    return lines, met, summary, (on.game_losses, off.game_losses)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200_000)
    parser.add_argument("--players", type=int, default=2_000)
    parser.add_argument("--alternates", type=int, default=40)
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(1, 11)))
    parser.add_argument("--print-only", action="store_true")
    options = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings")
    import django

    django.setup()
    from matches.params import glicko_params

    params = glicko_params()
    if params.fast_track_deviation <= 0.0:
        raise SystemExit("INTEGRITY_FAST_TRACK is off: nothing to compare")
    load_before = os.getloadavg()[0]
    lines = [
        machine_description(),
        f"Settings: window {params.surprise_window} games, threshold "
        f"{params.surprise_threshold} standard deviations after {params.surprise_min_games} "
        f"games, fast track floor {params.fast_track_deviation} while the recent surprise "
        f"(memory {params.surprise_memory}) is at least {params.fast_track_margin}; early "
        f"stage floor {params.early_fast_track_deviation} within the first "
        f"{params.early_fast_track_games} counted games while the test stands at "
        f"{params.early_fast_track_threshold} standard deviations.",
        "",
    ]
    summaries, all_met = [], True
    pooled_on: list[float] = []
    pooled_off: list[float] = []
    for seed in options.seeds:
        seed_lines, met, summary, (losses_on, losses_off) = _seed_lines(
            options.players, options.games, seed, options.alternates, params
        )
        lines += seed_lines
        summaries.append(summary)
        all_met &= met
        pooled_on += losses_on
        pooled_off += losses_off
    pooled, pooled_error = paired_difference(pooled_on, pooled_off)
    lines += [
        f"Log loss over all {len(options.seeds)} seeds' {len(pooled_on):,} held-out games: "
        f"difference {pooled:+.6f} with the fast track (standard error {pooled_error:.6f}).",
        "",
        load_line(load_before),
    ]
    verdict = "met" if all_met else "not all met"
    figure = Figure(
        "make bench-integrity",
        f"planted alternate accounts, {options.games:,}-game leagues, {len(options.seeds)} seeds",
        "; ".join(summaries) + f"; pooled log loss {pooled:+.6f} (±{pooled_error:.6f})",
        "issue 31: recall ≥ 0.8, precision ≥ 0.9 within 30 games; fast track halves games "
        f"to within 100 points and points lost; log loss not worse: {verdict}",
    )
    publish(
        f"make bench-integrity (alternate accounts), {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        lines,
        figure,
        print_only=options.print_only,
    )


if __name__ == "__main__":
    main()
