"""The simulated league: reproducible, valid, resumable, and shaped like the real game."""

from __future__ import annotations

import csv
import io
import json
import math
import statistics
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

import pytest
from django.core.management import call_command

from matches.models import Season
from matches.replays import iter_replay_file
from matches.replays import parse_replay as _parse_replay
from matches.simulation import LeagueSimulator, write_league
from matches.simulation.league import CHUNK_GAMES, SET_GAP_SECONDS, TEXTBOOK
from players.seed_roster import SEED_CODES, SEED_IDS

parse_replay = partial(_parse_replay, characters=SEED_IDS)

CODE_TO_ID = {code: index for index, code in enumerate(SEED_CODES)}

CODES = {character: code for code, character in CODE_TO_ID.items()}

START = datetime(2026, 1, 5, tzinfo=UTC)
LATER = datetime(2100, 1, 1, tzinfo=UTC)
WEEK = timedelta(days=7)


@pytest.fixture(scope="module")
def league() -> LeagueSimulator:
    """A 4-week league of 1,000 players, rate chosen so 20,000 games fill 28 days."""
    return LeagueSimulator(1000, 11, START, rate=20_000 / (28 * 86400))


@pytest.fixture(scope="module")
def season(league: LeagueSimulator) -> list[dict]:
    league.seek(0)
    return list(league.games(20_000))


def played_at(game: dict) -> datetime:
    return datetime.fromisoformat(game["played_at"])


def test_same_seed_same_games_other_seed_other_games() -> None:
    first = list(LeagueSimulator(200, 5, START).games(500))
    assert list(LeagueSimulator(200, 5, START).games(500)) == first
    assert list(LeagueSimulator(200, 6, START).games(500)) != first
    later = START + 20 * WEEK
    skills = LeagueSimulator(200, 5, START).true_skills(later)
    assert LeagueSimulator(200, 5, START).true_skills(later) == skills
    assert LeagueSimulator(200, 6, START).true_skills(later) != skills


def test_drift_is_the_same_wherever_play_resumes() -> None:
    """A league resumed late in its life (the live source after a restart) draws the
    same skills and games as one that played all along."""
    moment = START + 30 * WEEK
    played = LeagueSimulator(300, 9, START, rate=0.001)
    reference = list(played.games(20_000))
    resumed = LeagueSimulator(300, 9, START, rate=0.001, position=15_000)
    assert list(resumed.games(10)) == reference[15_000:15_010]
    assert resumed.true_skills(moment) == played.true_skills(moment)


def test_every_game_is_a_valid_replay(season: list[dict]) -> None:
    for game in season:
        parsed = parse_replay(game, now=LATER)
        assert parsed.reported_at is None
    assert len({game["id"] for game in season}) == len(season)
    assert season[7]["id"] == "sim-11-7"


def test_games_are_in_time_order_and_spread_over_weeks(season: list[dict]) -> None:
    times = [played_at(game) for game in season]
    assert times == sorted(times)
    assert times[0] == START
    assert START + timedelta(days=27) < times[-1] <= START + timedelta(days=28)


def test_a_pair_never_meets_twice_in_one_second(season: list[dict]) -> None:
    keys = Counter((g["played_at"], g["players"][0]["id"], g["players"][1]["id"]) for g in season)
    assert max(keys.values()) == 1


def _closest_games(games: list[dict]) -> tuple[int, int]:
    """The shortest time between two games of one player, in seconds, and the most
    games any (second, pair) holds."""
    last: dict[str, int] = {}
    closest = 10**9
    for game in games:
        second = int(played_at(game).timestamp())
        for player in game["players"]:
            if player["id"] in last:
                closest = min(closest, second - last[player["id"]])
            last[player["id"]] = second
    moments = Counter((g["played_at"], g["players"][0]["id"], g["players"][1]["id"]) for g in games)
    return closest, max(moments.values())


# Leagues big enough for a game's length at their rate, and a small one (the live
# worker's: 40 players at 2 games a second) whose players rest as long as it allows.
@pytest.mark.parametrize(
    ("players", "rate", "minimum"),
    [(2400, 2.0, SET_GAP_SECONDS), (3000, 5.0, SET_GAP_SECONDS), (40, 2.0, 5)],
)
def test_a_player_plays_one_game_at_a_time(players: int, rate: float, minimum: int) -> None:
    """Over several chunks (and their boundaries) at high rates, no player starts a
    game while still in the previous one, so no pair meets twice in one second."""
    games = list(LeagueSimulator(players, 3, START, rate=rate).games(5 * CHUNK_GAMES))
    closest, most_per_moment = _closest_games(games)
    assert closest >= minimum
    assert most_per_moment == 1


def test_games_come_in_sets(season: list[dict]) -> None:
    last_meeting: dict[tuple[str, str], datetime] = {}
    gaps = []
    for game in season:
        pair = (game["players"][0]["id"], game["players"][1]["id"])
        when = played_at(game)
        if pair in last_meeting and when - last_meeting[pair] < timedelta(minutes=30):
            gaps.append(when - last_meeting[pair])
        last_meeting[pair] = when
    assert len(gaps) > len(season) // 5
    # Games of a set are a game's length apart; only chance re-pairings come sooner.
    too_soon = sum(gap < timedelta(seconds=SET_GAP_SECONDS) for gap in gaps)
    assert too_soon < 0.01 * len(gaps)


def test_character_popularity_is_skewed(season: list[dict]) -> None:
    counts = Counter(player["character"] for game in season for player in game["players"])
    assert len(counts) == len(CODE_TO_ID)
    ranked = counts.most_common()
    assert ranked[0][1] > 5 * ranked[-1][1]


def test_players_are_best_on_their_most_played_character(
    league: LeagueSimulator, season: list[dict]
) -> None:
    skills = league.true_skills()
    played: dict[str, Counter] = defaultdict(Counter)
    for game in season:
        for player in game["players"]:
            played[player["id"]][CODE_TO_ID[player["character"]]] += 1
    by_player: dict[str, dict[int, float]] = defaultdict(dict)
    for (player_id, character), skill in skills.items():
        by_player[player_id][character] = skill
    assert len(by_player) == 1000
    assert any(len(characters) > 1 for characters in by_player.values())
    checked = agree = 0
    for player_id, counts in played.items():
        if sum(counts.values()) >= 20 and len(counts) > 1:
            checked += 1
            best = max(by_player[player_id], key=by_player[player_id].__getitem__)
            agree += counts.most_common(1)[0][0] == best
    assert checked > 100
    assert agree > 0.95 * checked


def test_skills_have_the_documented_spread(league: LeagueSimulator) -> None:
    values = list(league.true_skills().values())
    assert 1350 < statistics.mean(values) < 1550
    assert 200 < statistics.stdev(values) < 320


def test_outcomes_follow_the_logistic_model(league: LeagueSimulator, season: list[dict]) -> None:
    """Wins follow the true probabilities, overall and where they are lopsided."""
    by_bin: dict[int, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0])
    for game in season:
        probability = league.win_probability(game)
        row = by_bin[int(probability * 5)]
        row[0] += 1
        row[1] += probability
        row[2] += game["winner"] == 1
    games, expected, observed = (sum(row[i] for row in by_bin.values()) for i in range(3))
    assert abs(observed - expected) < 3 * (0.25 * games) ** 0.5
    for games, expected, observed in by_bin.values():
        if games >= 500:
            assert abs(observed - expected) < 4 * (0.25 * games) ** 0.5


def test_the_matchup_matrix_is_antisymmetric_and_bounded() -> None:
    matchups = LeagueSimulator(200, 5, START).true_matchups()
    characters = len(CODE_TO_ID)
    assert len(matchups) == characters * (characters - 1)
    assert all(matchups[y, x] == -offset for (x, y), offset in matchups.items())
    assert max(abs(offset) for offset in matchups.values()) <= 100
    assert 25 < statistics.pstdev(matchups.values()) < 50  # drawn from N(0, 40)
    assert LeagueSimulator(200, 5, START).true_matchups() == matchups
    assert LeagueSimulator(200, 6, START).true_matchups() != matchups


def test_outcomes_carry_the_matchup_matrix(league: LeagueSimulator, season: list[dict]) -> None:
    """The results are likelier with the offsets than with the skills alone."""
    matchups = league.true_matchups()
    skills_by_week: dict[int, dict] = {}
    with_offsets = skills_only = 0.0
    for game in season:
        week = (played_at(game) - START) // WEEK
        if week not in skills_by_week:
            skills_by_week[week] = league.true_skills(START + week * WEEK)
        skills = skills_by_week[week]
        first, second = game["players"]
        x, y = CODE_TO_ID[first["character"]], CODE_TO_ID[second["character"]]
        gap = skills[first["id"], x] - skills[second["id"], y]
        full = league.win_probability(game)
        assert full == pytest.approx(1 / (1 + 10 ** (-(gap + matchups.get((x, y), 0)) / 400)))
        plain = 1 / (1 + 10 ** (-gap / 400))
        won = game["winner"] == 1
        with_offsets += math.log(full if won else 1 - full)
        skills_only += math.log(plain if won else 1 - plain)
    assert with_offsets > skills_only + 30  # log-likelihood; measured 71


def test_skills_drift_over_a_season() -> None:
    league = LeagueSimulator(2000, 7, START)
    before, after = league.true_skills(START), league.true_skills(START + 13 * WEEK)
    changes = [after[key] - before[key] for key in before]
    assert sum(change > 40 for change in changes) > 0.1 * len(changes)  # some improve
    assert sum(change < -40 for change in changes) > 0.1 * len(changes)  # some decline
    assert 30 < statistics.pstdev(changes) < 120
    # A player's characters move together.
    by_player: dict[str, set[float]] = defaultdict(set)
    for (player_id, _), change in zip(before, changes, strict=True):
        by_player[player_id].add(round(change, 6))
    assert all(len(moves) == 1 for moves in by_player.values())
    # Slow: a week moves a skill by about the weekly step, not by the season's drift.
    next_week = league.true_skills(START + 14 * WEEK)
    weekly = [next_week[key] - after[key] for key in after]
    assert statistics.pstdev(weekly) < 0.5 * statistics.pstdev(changes)


def test_players_arrive_through_the_first_season() -> None:
    league = LeagueSimulator(1000, 4, START, rate=60_000 / (90 * 86400))
    first_week: dict[str, int] = {}
    for game in league.games(60_000):
        week = (played_at(game) - START) // WEEK
        for player in game["players"]:
            first_week.setdefault(player["id"], week)
    arrivals = Counter(first_week.values())
    assert 0.5 * len(first_week) < arrivals[0] < 0.75 * len(first_week)
    assert sum(count for week, count in arrivals.items() if week >= 6) > 0.1 * len(first_week)
    assert len(arrivals) >= 12  # someone new nearly every week


def test_some_players_take_breaks(season: list[dict]) -> None:
    """Among players with many games, some have a week without any between busy weeks."""
    weekly: dict[str, Counter] = defaultdict(Counter)
    for game in season:
        week = (played_at(game) - START) // WEEK
        for player in game["players"]:
            weekly[player["id"]][week] += 1
    busy = [weeks for weeks in weekly.values() if sum(weeks.values()) >= 40]
    breaks = [weeks for weeks in busy if weeks[0] >= 5 and weeks[3] >= 5 and not weeks[1]]
    assert len(breaks) > 0.02 * len(busy)


def test_matchmaking_prefers_similar_skill(league: LeagueSimulator, season: list[dict]) -> None:
    skills = league.true_skills()
    gaps = [
        abs(
            skills[a["id"], CODE_TO_ID[a["character"]]]
            - skills[b["id"], CODE_TO_ID[b["character"]]]
        )
        for a, b in (game["players"] for game in season)
    ]
    assert statistics.median(gaps) < 200  # random pairs of skill sd 250 would give ~240+
    assert max(gaps) > 600  # but not always


def test_floors_follow_skill(league: LeagueSimulator, season: list[dict]) -> None:
    skills = league.true_skills()
    by_floor: dict[int, list[float]] = defaultdict(list)
    for game in season:
        first = game["players"][0]
        by_floor[game["floor"]].append(skills[first["id"], CODE_TO_ID[first["character"]]])
    assert set(by_floor) == {*range(1, 11), 99}
    means = [statistics.mean(by_floor[floor]) for floor in (*range(1, 11), 99)]
    assert means == sorted(means)


def test_activity_changes_week_to_week(season: list[dict]) -> None:
    weekly: dict[str, Counter] = defaultdict(Counter)
    for game in season:
        week = (played_at(game) - START) // WEEK
        for player in game["players"]:
            weekly[player["id"]][week] += 1
    returning = [weeks for weeks in weekly.values() if weeks[0] and weeks[3] and not weeks[1]]
    assert returning, "some players take a break and come back"
    assert sum(1 for weeks in weekly.values() if weeks[0] >= 3 * max(weeks[2], 1)) > 20


def test_some_players_change_their_name() -> None:
    league = LeagueSimulator(3000, 2, START, rate=40_000 / (90 * 86400))
    names: dict[str, set[str]] = defaultdict(set)
    for game in league.games(40_000):
        for player in game["players"]:
            names[player["id"]].add(player["name"])
    renamed = sum(len(seen) > 1 for seen in names.values())
    assert 3 <= renamed <= 0.03 * len(names)


def test_names_are_varied_and_include_unicode(season: list[dict]) -> None:
    names = {player["name"] for game in season for player in game["players"]}
    assert len(names) > 500
    assert any(not name.isascii() for name in names)
    ids = {player["id"] for game in season for player in game["players"]}
    assert all(len(player_id) == 18 and player_id.isdigit() for player_id in ids)


def test_live_mode_continues_where_it_stopped() -> None:
    reference = list(LeagueSimulator(300, 9, START, rate=2.0).games(3 * CHUNK_GAMES))
    live = LeagueSimulator(300, 9, START, rate=2.0)
    produced: list[dict] = []
    for minutes in (1, 7, 30, 45, 60, 61, 102):
        moment = START + timedelta(minutes=minutes, seconds=0.5)
        batch = live.games_until(moment)
        assert all(played_at(game) <= moment for game in batch)
        assert live.time_of(live.position) > moment
        produced += batch
    assert produced == reference[: len(produced)]
    assert live.position == len(produced) == 2 * 60 * 102 + 2


def test_live_mode_respects_a_limit() -> None:
    live = LeagueSimulator(100, 9, START, rate=10.0)
    assert len(live.games_until(START + timedelta(hours=1), limit=50)) == 50
    assert live.position == 50
    assert live.games_until(START - timedelta(seconds=1)) == []


@pytest.mark.parametrize("position", [0, 5, CHUNK_GAMES - 3, CHUNK_GAMES, 2 * CHUNK_GAMES + 17])
def test_restoring_from_a_position_replays_exactly(position: int) -> None:
    reference = list(LeagueSimulator(300, 4, START, rate=0.5).games(2 * CHUNK_GAMES + 40))
    restored = LeagueSimulator(300, 4, START, rate=0.5, position=position)
    assert list(restored.games(20)) == reference[position : position + 20]
    restored.seek(3)
    assert next(restored.games(1)) == reference[3]


@pytest.mark.parametrize("name", ["league.jsonl", "league.jsonl.gz"])
def test_written_files_are_byte_identical_and_readable(tmp_path: Path, name: str) -> None:
    paths = [tmp_path / "a" / name, tmp_path / "b" / name]
    for path in paths:
        path.parent.mkdir()
        assert write_league(path, players=200, games=3000, seed=8) == 3000
    assert paths[0].read_bytes() == paths[1].read_bytes()
    skills = [Path(f"{path}.skills.csv").read_text() for path in paths]
    assert skills[0] == skills[1]
    assert skills[0].startswith("player_id,character,skill\n")
    matchups = [Path(f"{path}.matchups.csv").read_text() for path in paths]
    assert matchups[0] == matchups[1]
    with Path(f"{paths[0]}.matchups.csv").open(newline="") as handle:
        rows = {(row["character"], row["opponent"]): float(row["offset"])
                for row in csv.DictReader(handle)}  # fmt: skip
    league = LeagueSimulator(200, 8, START, rate=3000 / (90 * 86400))
    assert rows == {
        (CODES[x], CODES[y]): pytest.approx(offset, abs=0.005)
        for (x, y), offset in league.true_matchups().items()
    }
    last = league.time_of(2999)
    with Path(f"{paths[0]}.skills.csv").open(newline="") as handle:
        written = {(row["player_id"], CODE_TO_ID[row["character"]]): float(row["skill"])
                   for row in csv.DictReader(handle)}  # fmt: skip
    # The skills as they stand after the last game, drift included.
    assert written == {
        key: pytest.approx(skill, abs=0.005)
        for key, skill in league.true_skills(last + timedelta(seconds=1)).items()
    }
    records = list(iter_replay_file(paths[0]))
    assert len(records) == 3000
    assert records[0].payload == next(
        LeagueSimulator(200, 8, START, rate=3000 / (90 * 86400)).games(1)
    )
    for record in records:
        assert record.error is None
        parse_replay(record.payload, now=LATER)


def test_write_league_refuses_other_formats(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\.jsonl or \.jsonl\.gz"):
        write_league(tmp_path / "league.csv", players=10, games=10, seed=1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 1, "seed": 1, "start": START}, "at least two players"),
        ({"players": 10, "seed": 1, "start": START, "rate": 0}, "rate must be positive"),
        ({"players": 10, "seed": 1, "start": START.replace(tzinfo=None)}, "aware"),
        ({"players": 10, "seed": 1, "start": START, "position": -1}, "negative"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        LeagueSimulator(**kwargs)


def test_a_tiny_league_still_plays() -> None:
    games = list(LeagueSimulator(2, 3, START, rate=0.001).games(200))
    assert all({p["id"] for p in game["players"]} == {p["id"] for p in games[0]["players"]}
               for game in games)  # fmt: skip


def test_the_textbook_shape_is_the_league_issue_28_measured() -> None:
    """One character each among the 8 most played, everyone from the first week with the
    same activity, random pairings, fixed skills of spread 130."""
    league = LeagueSimulator(
        400, 3, START, rate=40_000 / (28 * 86400), shape=TEXTBOOK, skill_drift=False
    )
    games = list(league.games(40_000))
    characters: defaultdict[str, set[str]] = defaultdict(set)
    first_week: set[str] = set()
    appearances: Counter[str] = Counter()
    for game in games:
        for side in game["players"]:
            characters[side["id"]].add(side["character"])
            appearances[side["id"]] += 1
            if played_at(game) < START + WEEK:
                first_week.add(side["id"])
    assert len(characters) == 400 == len(first_week)
    assert all(len(played) == 1 for played in characters.values())
    assert len(set().union(*characters.values())) == 8
    assert max(appearances.values()) < 2 * statistics.median(appearances.values())
    skills = league.true_skills()
    assert skills == league.true_skills(LATER)
    assert 115 < statistics.stdev(skills.values()) < 150
    gaps = [
        abs(
            skills[a["id"], CODE_TO_ID[a["character"]]]
            - skills[b["id"], CODE_TO_ID[b["character"]]]
        )
        for a, b in (game["players"] for game in games)
    ]
    # Random pairs of spread ~135 are ~150 apart at the median; skill matchmaking gives ~20.
    assert statistics.median(gaps) > 110


def test_a_league_cut_into_seasons_writes_them_and_adds_them_to_the_site(tmp_path, db):
    out = tmp_path / "league.jsonl"
    call_command(
        "simulate_league",
        "--players=20",
        "--games=200",
        "--days=20",
        "--start=2026-03-01T12:00",
        "--season-days=7",
        "--create-seasons",
        f"--out={out}",
        stdout=io.StringIO(),
    )
    rows = list(csv.DictReader(Path(f"{out}.seasons.csv").read_text().splitlines()))
    # 20 days from noon on Mar 1: the last game on Mar 21, in the third week's season.
    assert [(row["name"], row["start"], row["end"]) for row in rows] == [
        ("season-1", "2026-03-01", "2026-03-07"),
        ("season-2", "2026-03-08", "2026-03-14"),
        ("season-3", "2026-03-15", "2026-03-21"),
    ]
    games = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0]["start"] <= games[0]["played_at"][:10] <= games[-1]["played_at"][:10]
    assert games[-1]["played_at"][:10] <= rows[-1]["end"]
    seasons = Season.objects.order_by("start").values_list("name", "start", "end")
    assert [(n, s.isoformat(), e.isoformat()) for n, s, e in seasons] == [
        (row["name"], row["start"], row["end"]) for row in rows
    ]


def test_planted_alternate_accounts_copy_a_strong_player_and_are_written_as_truth(
    tmp_path: Path,
) -> None:
    rate = 20_000 / (90 * 86400)
    plain = LeagueSimulator(300, 4, rate=rate)
    planted = LeagueSimulator(300, 4, rate=rate, alternates=3)
    # The honest players are the same league's.
    assert planted.true_skills(plain.start).items() >= plain.true_skills(plain.start).items()
    # Owners among the strongest 1% (3 of 300) by main skill; same characters, skills.
    strongest = sorted(player.skills[0] for player in plain._players)[-3]
    games = list(planted.games(20_000))
    for alternate in planted.alternates:
        owner = planted._players[planted._index[alternate.owner_id]]
        assert owner.skills[0] >= strongest
        copy = planted._players[planted._index[alternate.player_id]]
        assert (copy.characters, copy.skills) == (owner.characters, owner.skills)
        first = min(
            datetime.fromisoformat(game["played_at"])
            for game in games
            if alternate.player_id in (side["id"] for side in game["players"])
        )
        assert first >= alternate.plays_from
    path = tmp_path / "league.jsonl"
    write_league(path, 300, 2_000, 4, alternates=3)
    with open(f"{path}.alternates.csv", encoding="utf-8") as truth:
        rows = list(csv.DictReader(truth))
    assert [row["player_id"] for row in rows] == [a.player_id for a in planted.alternates]
    assert {row["owner_id"] for row in rows} <= {p.id for p in planted._players}


def test_planted_rings_meet_often_and_let_their_beneficiary_win(tmp_path: Path) -> None:
    from matches.simulation.league import PlantedRings

    rings = PlantedRings(count=3, share=0.05)
    league = LeagueSimulator(300, 5, rate=0.05, rings=rings)
    planted = league.planted_rings()
    members = [m for ring in planted for m in (ring.beneficiary, *ring.partners)]
    assert len(planted) == 3 and len(set(members)) == len(members)
    assert all(1 <= len(ring.partners) <= 3 for ring in planted)
    pairs = {frozenset((r.beneficiary, p)): r.beneficiary for r in planted for p in r.partners}
    met = won = 0
    for game in league.games(20_000):
        ids = [side["id"] for side in game["players"]]
        beneficiary = pairs.get(frozenset(ids))
        if beneficiary is not None:
            met += 1
            won += ids[game["winner"] - 1] == beneficiary
    assert met > 300 and 0.85 < won / met < 0.95  # the beneficiary wins 90%
    # Without rings the league plays exactly the games it always did.
    plain = list(LeagueSimulator(300, 5, rate=0.05).games(500))
    assert plain == list(LeagueSimulator(300, 5, rate=0.05, rings=PlantedRings()).games(500))

    path = tmp_path / "league.jsonl"
    write_league(path, 300, 2_000, 5, rings=rings)
    rows = (tmp_path / "league.jsonl.rings.csv").read_text().splitlines()
    assert rows[0] == "ring,player_id,role"
    assert rows[1] == f"1,{planted[0].beneficiary},beneficiary"
    assert len(rows) == 1 + len(members)
