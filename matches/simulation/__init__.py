"""A deterministic simulated league producing replays in the format of docs/replay-format.md.

Pure Python with no Django import: used by the import and feed commands, the live
'simulator' replay source, benchmarks and the rating-system evaluation.
"""

from matches.simulation.league import (
    DEFAULT_RATE,
    DEFAULT_START,
    LeagueSimulator,
    write_league,
)

__all__ = ["DEFAULT_RATE", "DEFAULT_START", "LeagueSimulator", "write_league"]
