"""How counts read on the site (players.formatting)."""

import pytest

from players.formatting import change_class, count_text, signed_text


def test_a_count_reads_with_its_noun_singular_for_one_and_grouped_by_thousands():
    assert count_text(1, "game") == "1 game"
    assert count_text(0, "game") == "0 games"
    assert count_text(1234, "rating") == "1,234 ratings"


@pytest.mark.parametrize(
    ("change", "text", "colour"),
    [
        (12.34, "+12.3", "up"),
        (-0.2, "\u22120.2", "down"),  # a set that lost 0.2 points read as a red "0"
        (-0.04, "0.0", ""),
        (0.04, "0.0", ""),
        (0.0, "0.0", ""),
        (-21.96, "\u221222.0", "down"),
    ],
)
def test_a_change_reads_with_one_decimal_and_its_colour_follows_the_text(change, text, colour):
    assert signed_text(change) == text
    assert change_class(signed_text(change)) == colour
