"""The lab's season-start widening (matches.ratings.season_bump)."""

from __future__ import annotations

import math

from matches.ratings.base import ContinuousGlicko
from matches.ratings.season_bump import SeasonStartBump

DAY = 86400.0


def test_the_first_game_of_a_new_season_sees_a_wider_deviation_and_later_ones_do_not():
    plain, bumped = ContinuousGlicko(), SeasonStartBump([10 * DAY], 60.0)
    a, b = plain.update(plain.initial(), plain.initial(), 1.0, 0.0)
    for _ in range(30):  # settle both within the first season
        a, b = plain.update(a, b, 0.5, 1000.0)
    before = plain.decayed(a, 9 * DAY)
    assert bumped.decayed(a, 9 * DAY) == before  # same season: as the site
    after, widened = plain.decayed(a, 11 * DAY), bumped.decayed(a, 11 * DAY)
    assert widened.rating == after.rating
    assert widened.deviation == min(
        plain.params.maximum_deviation, math.hypot(after.deviation, 60.0)
    )
    new_a, _ = bumped.update(a, b, 1.0, 11 * DAY)
    assert bumped.decayed(new_a, 12 * DAY) == plain.decayed(new_a, 12 * DAY)


def test_no_bump_is_the_sites_glicko():
    plain, off = ContinuousGlicko(), SeasonStartBump([DAY], 0.0)
    a, b = plain.initial(), plain.initial()
    for n in range(5):
        at = n * DAY
        assert off.update(a, b, 1.0, at) == plain.update(a, b, 1.0, at)
        a, b = plain.update(a, b, 1.0, at)
