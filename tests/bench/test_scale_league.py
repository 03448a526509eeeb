"""`make bench-scale`'s generated league is valid replays, in time order, as the site reads them."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from bench.scale import game_times, ratio_rows, write_league
from matches.replays.readers import iter_replay_file
from matches.replays.validation import parse_replay as _parse_replay
from players.seed_roster import SEED_IDS

parse_replay = partial(_parse_replay, characters=SEED_IDS)


END = 1_790_000_000
NOW = datetime.fromtimestamp(END, UTC)


def test_game_times_are_in_order_and_end_at_the_end():
    times = game_times(1000, END, 2.0)
    first, rest = times(0, 400), times(400, 1000)
    joined = list(first) + list(rest)
    assert joined == sorted(joined)
    assert joined[-1] == END
    assert joined[0] > END - 2 * 86400


def test_the_league_is_valid_replays_split_into_history_and_batch(tmp_path: Path):
    history, batch = tmp_path / "league.csv", tmp_path / "league.batch.csv"
    write_league(history, batch, 300, 50, 40, end=END)
    games = {}
    for path, count in ((history, 300), (batch, 50)):
        replays = list(iter_replay_file(path))
        assert len(replays) == count
        for replay in replays:
            assert replay.error is None
            games[replay.payload["id"]] = parse_replay(replay.payload, now=NOW)
    moments = [game.played_at for game in games.values()]
    assert all(game.reported_at is None for game in games.values())
    assert moments == sorted(moments)
    assert all(game.players[0].id != game.players[1].id for game in games.values())
    # Every player keeps one name and platform across games and characters.
    seen: dict[str, tuple[str, str]] = {}
    for game in games.values():
        for player in game.players:
            assert seen.setdefault(player.id, (player.name, player.platform)) == (
                player.name,
                player.platform,
            )
    assert len(seen) > 20


def test_ratio_rows_pair_labels_measured_at_both_sizes():
    rows = list(ratio_rows({"a": 3.0, "b": 4.0}, {"a": 2.0, "c": 1.0}))
    assert rows == [("a", 2.0, 3.0, 1.5)]
