"""The simulated league: reproducible, valid, resumable, and shaped like the real game."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from matches.replays import iter_replay_file, parse_replay
from matches.simulation import LeagueSimulator, write_league
from matches.simulation.league import CHUNK_GAMES, SET_GAP_SECONDS
from players.roster import CODE_TO_ID

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
    skills = LeagueSimulator(200, 5, START).true_skills()
    assert LeagueSimulator(200, 5, START).true_skills() == skills


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
    skills = league.true_skills()
    expected = observed = 0.0
    for game in season:
        a, b = (skills[p["id"], CODE_TO_ID[p["character"]]] for p in game["players"])
        expected += 1 / (1 + 10 ** ((b - a) / 400))
        observed += game["winner"] == 1
    assert abs(observed - expected) < 0.02 * len(season)


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
