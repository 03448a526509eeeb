"""The ratings benchmark runs and reports every system and both PyPI packages."""

from bench.ratings_speed import measure


def test_measure_reports_games_per_second():
    rates = measure(300, players=20)
    assert list(rates) == [
        "glicko",
        "glicko2",
        "elo",
        "trueskill",
        "moonstone",
        "glicko2 (PyPI)",
        "trueskill (PyPI)",
    ]
    assert all(rate > 0 for rate in rates.values())
