"""The calculator: the reference numbers (docs/rating-model.md#reference-numbers), the
counting rule, players found by name."""

from __future__ import annotations

import html as html_module
import re

import pytest
from django.http import QueryDict

from matches.selectors.calculator import Contender, win_forecast
from matches.services.flags import set_player_flags
from players.models import Player, Rating
from tests.factories import replay, store_calibration
from tests.fixtures.league import rate_replays
from tests.ratings.reference import COUNTED, REFERENCE

# The reference numbers hold under the reference formulas (the one-chance model has its
# own tests: tests/matches/test_one_chance.py).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("reference_formulas")]

# The result section is always there for the script to fill; hidden until there is one.
NO_RESULT = 'class="forecast" aria-live="polite" aria-busy="false" data-result hidden>'
A, B, C, D = (f"10000000000000000{n}" for n in range(1, 5))


def visible_text(html: str) -> str:
    """What a reader sees: the text between tags, outside scripts and attributes."""
    return html_module.unescape(re.sub(r"<[^>]+>", " ", html))


@pytest.fixture
def named(db) -> None:
    """A (Sol, Ky; once "Old Guard") beats B (May) and C (Sol); C and D share a name."""
    rate_replays(
        [
            replay(1, A, B, characters=("SO", "MA"), names=("Old Guard", "Mayfly")),
            replay(2, A, C, characters=("SO", "SO"), names=("Guardian", "Twin")),
            replay(3, A, D, characters=("KY", "SO"), names=("Guardian", "Twin")),
            replay(4, A, B, characters=("SO", "MA"), names=("Guardian", "Mayfly")),
        ]
    )


def rating(player_id: str, code: str) -> Rating:
    return Rating.objects.select_related("player", "character").get(
        player_id=player_id, character__code=code
    )


@pytest.mark.parametrize(("a", "b", "a_won", "a_after", "b_after", "p_a"), COUNTED)
def test_reference_numbers(a, b, a_won, a_after, b_after, p_a):
    forecast = win_forecast(Contender(*a), Contender(*b))
    assert forecast.a.win_probability == pytest.approx(p_a, abs=1e-4)
    assert forecast.b.win_probability == pytest.approx(1 - p_a, abs=1e-4)
    mine = forecast.a.after_win if a_won else forecast.a.after_loss
    theirs = forecast.b.after_loss if a_won else forecast.b.after_win
    assert (mine.value, mine.deviation) == pytest.approx(a_after, abs=1e-3)
    assert (theirs.value, theirs.deviation) == pytest.approx(b_after, abs=1e-3)
    assert mine.change == pytest.approx(a_after[0] - a[0], abs=1e-3)
    assert forecast.counts


def test_lopsided_game_between_established_players_does_not_count_either_way():
    lopsided = REFERENCE[4]
    forecast = win_forecast(Contender(*lopsided.a), Contender(*lopsided.b))
    assert forecast.a.win_probability == pytest.approx(lopsided.p_a, abs=1e-5)
    assert not forecast.counts
    for outcome in (forecast.a.after_win, forecast.a.after_loss):
        assert (outcome.value, outcome.deviation, outcome.change) == (2000, 30, 0)
    # The same gap with uncertain ratings (RMS deviation >= 50) counts.
    assert win_forecast(Contender(2000, 30), Contender(1400, 80)).counts


def test_page_with_numbers(client, db):
    html = client.get(
        "/calculator?a-rating=1500&a-uncertainty=700&b-rating=1500&b-uncertainty=700"
    ).content.decode()
    assert "50.0%" in html
    assert (
        '<span data-out="after-win">1662 ±580</span> <span class="up" data-out="win-change">'
        "(+162.2)</span>"
    ) in html
    assert (
        '<span data-out="after-loss">1338 ±580</span> <span class="down" '
        'data-out="loss-change">(\u2212162.2)</span>'
    ) in html
    lopsided = client.get(
        "/calculator?a-rating=2000&a-uncertainty=60&b-rating=1400&b-uncertainty=60"
    ).content.decode()
    assert "This game would not move either rating, whoever wins" in lopsided


def test_page_with_players(client, queued_recomputes, django_capture_on_commit_callbacks):
    a, b = "100000000000000001", "100000000000000002"
    rate_replays([replay(1, a, b)])
    mine = Rating.objects.get(player_id=a)
    html = client.get(
        f"/calculator?a-player={a}&a-character=SO&b-rating=1500&b-uncertainty=200"
    ).content.decode()
    expected = win_forecast(Contender.of(mine), Contender(1500, 100))
    assert f"{100 * expected.a.win_probability:.1f}%" in html
    assert f'href="/player/{a}/SO"' in html
    with django_capture_on_commit_callbacks(execute=True):  # cached pages are invalidated
        set_player_flags(Player.objects.get(id=a), hidden=True, by="test")
    html = client.get(
        f"/calculator?a-player={a}&a-character=SO&b-rating=1500&b-uncertainty=200"
    ).content.decode()
    assert "We know no such player." in html
    assert NO_RESULT in html


def test_empty_and_incomplete_forms(client, db):
    assert NO_RESULT in client.get("/calculator").content.decode()
    html = client.get("/calculator?a-rating=1500&b-rating=1500&b-uncertainty=100").content.decode()
    assert "Give a player&#x27;s name, or a rating and its ±." in html
    assert NO_RESULT in html


def test_players_by_name_and_only_their_characters(client, named):
    html = client.get("/calculator?a-name=guard&b-name=mayfly").content.decode()
    expected = win_forecast(Contender.of(rating(A, "SO")), Contender.of(rating(B, "MA")))
    assert f"{100 * expected.a.win_probability:.1f}%" in html
    assert f"{100 * expected.b.win_probability:.1f}%" in html
    side_a = html.split('data-side="a"')[1].split("</fieldset>")[0]
    assert 'value="Guardian"' in side_a  # the name the partial one found, as it reads now
    assert re.findall(r'<option value="(\w*)"', side_a) == ["SO", "KY"]  # theirs, most played first
    assert f'name="a-player" value="{A}"' in side_a
    text = visible_text(html)
    assert A not in text and B not in text  # ids travel in the form, never shown


def test_a_past_name_finds_the_player_and_a_character_can_be_chosen(client, named):
    html = client.get("/calculator?a-name=old+guard&a-character=KY&b-rating=1500&b-uncertainty=200")
    expected = win_forecast(Contender.of(rating(A, "KY")), Contender(1500, 100))
    html = html.content.decode()
    assert f"{100 * expected.a.win_probability:.1f}%" in html
    assert f'href="/player/{A}/KY"' in html
    assert re.search(r'<option value="KY"[^>]* selected>', html)


def test_a_name_several_players_share_offers_a_choice(client, named):
    html = client.get("/calculator?a-name=twin&b-rating=1500&b-uncertainty=200").content.decode()
    assert "Several players match this name: pick one." in html
    assert NO_RESULT in html
    links = re.findall(r'<a href="\?([^"]+)"><bdi>Twin</bdi></a>', html)
    assert len(links) == 2
    queries = [QueryDict(html_module.unescape(link)) for link in links]
    assert {query["a-player"] for query in queries} == {C, D}
    for query in queries:
        picked = client.get("/calculator?" + query.urlencode()).content.decode()
        chosen = rating(query["a-player"], "SO")
        expected = win_forecast(Contender.of(chosen), Contender(1500, 100))
        assert f"{100 * expected.a.win_probability:.1f}%" in picked
        assert f'href="/player/{chosen.player_id}/SO"' in picked
    unknown = client.get("/calculator?a-name=nobody&b-rating=1500&b-uncertainty=200")
    assert "No player has used this name." in unknown.content.decode()


def test_a_profile_links_to_the_calculator_with_its_side_filled(client, named):
    profile = client.get(f"/player/{A}/KY").content.decode()
    link = re.search(r'href="(/calculator\?[^"]+)">Compare with…</a>', profile)[1]
    html = client.get(html_module.unescape(link)).content.decode()
    side_a = html.split('data-side="a"')[1].split("</fieldset>")[0]
    assert 'value="Guardian"' in side_a
    assert re.search(r'<option value="KY"[^>]* selected>', side_a)
    assert NO_RESULT in html  # the other side is the visitor's to fill


def test_players_by_name_take_a_few_queries_each(client, named, django_assert_max_num_queries):
    # Per side: the matching names (one query over the tiers up to names containing the
    # query, one for names like it when fewer than SIMILAR_BELOW matched), their ratings,
    # the chosen rating's player; the chance model (matchup offsets) and the calibration.
    # Each search sets its time limit in a transaction of its own (web.timeouts): one
    # query, and inside a test's transaction the savepoint's two.
    with django_assert_max_num_queries(7 + 2 * 4):
        html = client.get("/calculator?a-name=guardian&b-name=mayfly").content.decode()
    assert "data-result hidden" not in html


# The cells of a side's row (templates/matches/calculator_outcome.html), as
# tests/browser/test_calculator.py reads them too.
OUTCOME_CELLS = (
    "side",
    "rating",
    "probability",
    "after-win",
    "win-change",
    "after-loss",
    "loss-change",
)


def page_result(html: str) -> dict[str, list[str]] | None:
    """The result table the server renders, cell by cell as a reader sees it."""
    if NO_RESULT in html:
        return None
    rows = {}
    for side in "ab":
        row = html.split(f'data-outcome="{side}"')[1].split("</tr>")[0]
        cells = (
            re.search(rf'data-out="{cell}"[^>]*>(.*?)</(?:th|td|span|strong)>', row, re.S)[1]
            for cell in OUTCOME_CELLS
        )
        rows[side] = [" ".join(visible_text(cell).split()) for cell in cells]
    rows["counts"] = ["data-uncounted hidden" in html]
    return rows


def api_result(body: dict) -> dict[str, list[str]]:
    """The same table as static/js/calculator-1.4.js writes it from the API's answer."""
    rows = {}
    for letter in "ab":
        side = body[letter]
        label = letter.upper()
        if side["player"]:
            label += f": {side['player']['name']} ({side['character']['name']})"
        rows[letter] = [
            label,
            side["rating"]["display"],
            side["win_probability_display"],
            side["after_win"]["rating"]["display"],
            f"({side['after_win']['change_display']})",
            side["after_loss"]["rating"]["display"],
            f"({side['after_loss']['change_display']})",
        ]
    rows["counts"] = [body["counts"]]
    return rows


def test_the_api_answers_what_the_page_renders(client, named):
    """The page's script shows the API's answer; for the same inputs it is the page's own."""
    store_calibration(1.3)
    Player.objects.filter(id=D).update(cheater=True)
    typed = [(game.a, game.b) for game in REFERENCE] + [((1623.37, 80.0617285), (1500, 1.5))]
    cases = [
        *(
            ({"rating": a, "deviation": da}, {"rating": b, "deviation": db})
            for (a, da), (b, db) in typed
        ),
        ({"player": A, "character": "SO"}, {"player": B, "character": "MA"}),
        ({"player": B, "character": "MA"}, {"rating": 1700.5, "deviation": 80.25}),
        ({"player": D, "character": "SO"}, {"player": A, "character": "KY"}),  # a cheater
    ]  # fmt: skip
    for sides in cases:
        form, api = {}, {}
        for letter, side in zip("ab", sides, strict=True):
            if "player" in side:
                form |= {
                    f"{letter}-player": side["player"],
                    f"{letter}-character": side["character"],
                }
                api[letter] = f"{side['player']}:{side['character']}"
            else:
                # As the script sends them: the typed numbers, and half the ±, as JavaScript
                # writes a number (its shortest round trip, as Python's repr).
                uncertainty = 2 * side["deviation"]
                form |= {
                    f"{letter}-rating": repr(float(side["rating"])),
                    f"{letter}-uncertainty": repr(uncertainty),
                }
                api[letter] = f"{float(side['rating'])!r},{uncertainty / 2!r}"
        rendered = page_result(client.get("/calculator", form).content.decode())
        answer = client.get("/api/v1/probability/", api)
        assert answer.status_code == 200, (api, answer.content)
        assert rendered is not None
        assert api_result(answer.json()) == rendered, sides
    assert rendered["counts"] == [False]  # the last case: against a cheater
