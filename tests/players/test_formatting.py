"""How counts read on the site (players.formatting)."""

from players.formatting import count_text


def test_a_count_reads_with_its_noun_singular_for_one_and_grouped_by_thousands():
    assert count_text(1, "game") == "1 game"
    assert count_text(0, "game") == "0 games"
    assert count_text(1234, "rating") == "1,234 ratings"
