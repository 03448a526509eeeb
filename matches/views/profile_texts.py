"""The profile body's named rows, for its Jinja2 template (`matches/profile_body.html`,
placed by web.partials): every number formatted as the Django template's filters formatted
it, so that the page reads the same. Django's engine placed the same texts several times
slower."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime, tzinfo
from typing import NamedTuple

from django.conf import settings
from django.template.defaultfilters import date, floatformat
from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString

from matches.selectors.history_points import HISTORY_RANGES
from matches.selectors.match_history import GameSet, RatedGame
from matches.selectors.matchups import MatchupEstimate
from matches.selectors.opponents import FairOpponent
from matches.selectors.patches import PatchChoice
from matches.selectors.profile import RatingProfile, Unranked
from matches.selectors.rivals import MEETINGS_WINDOW
from matches.views.patches import PatchText, patch_texts
from players.formatting import (
    change_class,
    count_number,
    count_text,
    offset_text,
    percent,
    rating_text,
    record_text,
    shown_name,
    shown_value,
    signed_text,
    uncertainty_text,
    utc_iso,
    utc_text,
)
from players.templatetags.ratings import floor_name, top_percent, win_rate
from players.tiers import settled_tier
from players.views.rankings import profile_url_maker, settled_plus_minus_limit

ProfileUrl = Callable[[str, str], str]  # what profile_url_maker() returns


class Moment(NamedTuple):
    """A moment's <time>: in UTC for its datetime and title, its day shown (in UTC until
    the page's script shows it in the reader's time zone)."""

    iso: str
    day: str
    utc: str


class CharacterTab(NamedTuple):
    """A tab to one of the player's ratings."""

    url: str
    title: str
    current: bool
    character: str  # its name: a code alone says nothing to a newcomer
    value: str


class RankTexts(NamedTuple):
    overall: str  # counts grouped by thousands, as everywhere on the site: "1,234"
    character: str
    top_percent: str
    more_ranked: bool
    ranked: str


class BestWin(NamedTuple):
    rating: str
    url: str  # "" when the opponent is hidden or gone: no link, no name
    opponent: str
    character: str
    at: Moment


class SetSummary(NamedTuple):
    """The row of a set of several games: its first game's odds, its record and change."""

    win_probability: str
    record: str
    change: str | None  # None: pending
    change_class: str
    uncounted: int
    spared: int
    games: int


class GameRow(NamedTuple):
    """A row of a set's tbody (`matches/history_sets.html`): a game, or the set's own row
    (`summary`, which also shows its first game's ratings)."""

    number: int  # the game's number in its set from 1; 0 for a set's own row
    summary: SetSummary | None
    iso: str
    utc: str
    time: str
    value: str
    uncertain: bool
    opponent_value: str
    opponent_uncertain: bool
    win_probability: str
    won: bool
    change: str | None  # None: pending
    change_class: str
    uncounted_reason: str
    spared: bool


class SetRows(NamedTuple):
    """A set against one opponent and character, as its tbody shows it."""

    iso: str
    utc: str
    when: str
    url: str
    opponent: str
    character: str
    code: str
    rows: list[GameRow]
    # "expected 1.2 wins, won 2: +14": the shown chances of its games summed ("": a game
    # still pending, whose chance is not known yet).
    why: str
    # Games that counted yet left the rating as it was (the opponent on the fast track).
    spared: int


class MatchupTexts(NamedTuple):
    label: str
    uncertain: bool
    games: int
    games_text: str
    wins: int
    record: str
    expected_sort: float
    expected: str
    css: str
    offset_sort: float | str  # "" without an offset
    offset: str


class OpponentRow(NamedTuple):
    """A fair opponent."""

    url: str
    name: str
    character: str
    code: str
    rating: str
    tier: str
    win_probability: str


class RivalRow(NamedTuple):
    """A player met often, and the way to the head-to-head against them."""

    url: str
    name: str
    games: str
    record: str


class LinkedAccount(NamedTuple):
    name: str
    url: str


class PastName(NamedTuple):
    name: str
    first_seen: str
    last_seen: str


class HistoryRange(NamedTuple):
    """A choice of the rating history's range."""

    key: str
    label: str


class ProfileBody(NamedTuple):
    """What `matches/profile_body.html` places: its fields are the template's names."""

    name: str
    character: str
    retired: bool  # a retired character's rating stays, marked (docs/roster.md)
    code: str
    player_id: str
    platform: str
    floor: str
    supporter: bool
    # A cheater's page shows no rating, record or chart: only the banner and their games.
    cheater: bool
    recompute_pending: bool
    last_seen: Moment
    tabs: list[CharacterTab]
    rating: str
    tier: str
    ranks: RankTexts | None  # None: unranked, for unranked_reason
    unranked_reason: str | None
    calculator_url: str
    about_url: str
    record: str
    win_rate: str
    last_played: Moment | None
    peak: str | None
    peak_at: Moment | None
    # The chart rings the peak: it falls inside the chart's range.
    peak_ringed: bool
    # The chart's line shows a higher value than the peak card: only ever while unsettled.
    chart_above_peak: bool
    best_win: BestWin | None
    settled_plus_minus_limit: str
    ranges: list[HistoryRange]
    history_range: str
    history_days: int
    history_games: int
    # SVG the site draws from numbers, escaping each text where it is built (matches.charts).
    chart: SafeString
    opponents: list[OpponentRow]
    opponent_days: int
    rivals: list[RivalRow]
    rivals_window: str
    sets: list[SetRows]
    previous_cursor: str
    next_cursor: str
    matchups: list[MatchupTexts]
    matchup_overall: MatchupTexts
    matchup_wide_interval: str  # the ± in points past which a matchup is greyed
    past_names: list[PastName]
    also_plays_as: list[LinkedAccount]
    claim_url: str  # "This is me"
    # The matchups' patch picker (none without patches) and the choice's key and words.
    matchup_patches: list[PatchText] = []
    matchup_patch: str = "all"
    matchup_patch_words: str = "all their games"


def profile_body(
    found: RatingProfile,
    chart: SafeString,
    *,
    peak_ringed: bool,
    patch: PatchChoice | None = None,
) -> ProfileBody:
    """A profile's body and its rating chart, which rings the peak or not (the profile URL
    reversed once for all its links); its matchups are those of `patch` (default: all
    time) as `found` holds them."""
    patch = patch or PatchChoice(None, None, [])
    rating, overview, url = found.rating, found.overview, profile_url_maker()
    player, character = rating.player, rating.character
    ranks = found.ranks
    return ProfileBody(
        name=shown_name(player.name),
        character=character.name,
        retired=character.retired,
        code=character.code,
        player_id=player.id,
        platform=player.get_platform_display(),
        floor=floor_name(player.floor) if player.floor else "",
        supporter=player.supporter,
        cheater=player.cheater,
        recompute_pending=found.recompute_pending,
        last_seen=_moment(player.last_seen),
        tabs=[
            CharacterTab(
                url=url(player.id, r.character.code),
                title=r.character.name
                if player.cheater
                else f"{r.character.name}: {rating_text(r.value, r.deviation)}, "
                f"{record_text(r.wins, r.losses)}",
                current=r.id == rating.id,
                character=r.character.listed_name,
                value="" if player.cheater else str(shown_value(r.value)),
            )
            for r in overview.ratings
        ],
        rating=rating_text(rating.value, rating.deviation),
        tier=settled_tier(rating.value, rating.deviation),
        ranks=None
        if ranks is None
        else RankTexts(
            overall=count_number(ranks.overall),
            character=count_number(ranks.character),
            top_percent=top_percent(ranks.top_percent),
            more_ranked=ranks.more_ranked,
            ranked=count_number(ranks.ranked),
        ),
        unranked_reason=None if found.unranked is None else _unranked_text(found),
        calculator_url=reverse("calculator"),
        about_url=reverse("about"),
        record=record_text(rating.wins, rating.losses),
        win_rate=win_rate(rating),
        last_played=None if rating.last_played_at is None else _moment(rating.last_played_at),
        peak=(
            None
            if rating.peak_value is None
            else rating_text(rating.peak_value, rating.peak_deviation)
        ),
        peak_at=None if rating.peak_at is None else _moment(rating.peak_at),
        peak_ringed=peak_ringed,
        chart_above_peak=rating.peak_value is not None
        and any(round(point.value) > round(rating.peak_value) for point in found.history),
        best_win=_best_win(found, url),
        settled_plus_minus_limit=floatformat(settled_plus_minus_limit(), 0),
        ranges=[
            HistoryRange(key=key, label="All" if key == "all" else f"{key[:-1]} days")
            for key in HISTORY_RANGES
        ],
        history_range=found.history_range,
        history_days=found.history_days,
        history_games=found.history_games,
        chart=chart,
        opponents=_opponent_rows(found.opponents, url),
        opponent_days=settings.FAIR_OPPONENT_DAYS,
        matchup_wide_interval=floatformat(settings.MATCHUP_WIDE_INTERVAL, 0),
        rivals=[
            RivalRow(
                url=reverse("rivals", args=[player.id, character.code, meeting.id]),
                name=shown_name(meeting.name),
                games=count_number(meeting.games),
                record=record_text(meeting.wins, meeting.losses),
            )
            for meeting in found.meetings
        ],
        rivals_window=count_number(MEETINGS_WINDOW),
        sets=history_sets(found.matches.sets, url, own_rating=not player.cheater),
        previous_cursor=str(found.matches.previous_cursor or ""),
        next_cursor=str(found.matches.next_cursor or ""),
        matchups=_matchup_rows(
            (row.opponent_character.listed_name, row.estimate) for row in found.matchups.rows
        ),
        matchup_overall=_matchup_rows([("Overall", found.matchups.overall)])[0],
        past_names=[
            PastName(
                name=shown_name(n.name),
                first_seen=_moment(n.first_seen).day,
                last_seen=_moment(n.last_seen).day,
            )
            for n in overview.past_names
        ],
        matchup_patches=patch_texts(patch),
        matchup_patch=patch.key,
        matchup_patch_words="all their games"
        if patch.patch is None
        else f"their games of patch {patch.patch.name}",
        also_plays_as=[
            LinkedAccount(name=shown_name(other.name), url=reverse("player", args=[other.id]))
            for other in found.also_plays_as
        ],
        claim_url=reverse("claim", args=[player.id]),
    )


def _unranked_text(found: RatingProfile) -> str:
    """Why the rating is not ranked, in words that stay true: its flag, or why its ± is
    wide (idle since its last game, or too few games) and how many games bring it in."""
    why: Unranked = found.unranked
    if why.flag is not None:
        return "private: only you see this page" if why.flag == "private" else why.flag
    opponents = _opponents_text(why.opponents)
    if not why.games:
        return f"needs {opponents}"
    wide = _wide_text(found)
    return wide if not why.opponents else f"{wide}; and it needs {opponents}"


def _opponents_text(opponents: int) -> str:
    """What a rating lacks to be confirmed (players.rules.confirmed), in words."""
    if opponents == 1:
        return "one more different opponent who is settled when you play them"
    return f"{opponents} more different opponents who are settled when you play them"


def _wide_text(found: RatingProfile) -> str:
    """Why the rating's ± is wide (idle since its last game, or too few games) and how
    many games bring it in."""
    why: Unranked = found.unranked
    rating = found.rating
    # The games that take its ± below the ranking limit against settled players of its
    # level (matches.ratings.settling), in the words players expect (issue 30).
    more = f"about {count_text(why.games, 'more game')} against settled players of your level"
    if why.idle_since is not None:
        return f"idle since {_day_text(why.idle_since)}: ranked again in {more}"
    plus_minus = uncertainty_text(rating.deviation)
    if why.widest:
        return f"± at its widest ({plus_minus}): ranked in {more}"
    played = count_text(rating.wins + rating.losses, "game")
    limit = floatformat(settled_plus_minus_limit(), 0)
    return (
        f"too few games yet ({plus_minus} after {played}, ranks need ± below {limit}): "
        f"ranked in {more}"
    )


def _day_text(moment: datetime) -> str:
    """'Nov 3', with the year when it is not this year's (local time)."""
    local, today = timezone.template_localtime(moment), timezone.localdate()
    day = f"{local:%b} {local.day}"
    return day if local.year == today.year else f"{day}, {local.year}"


def _moment(moment: datetime) -> Moment:
    local = timezone.template_localtime(moment)
    return Moment(iso=utc_iso(moment), day=date(local, "Y-m-d"), utc=utc_text(moment))


def _best_win(found: RatingProfile, url: ProfileUrl) -> BestWin | None:
    """The best win's texts; no link (a hidden player) when its opponent is hidden or gone."""
    rating = found.rating
    if rating.best_win_value is None:
        return None
    opponent = rating.best_win_opponent
    shown = opponent is not None and not found.overview.best_win_hidden
    return BestWin(
        rating=rating_text(rating.best_win_value, rating.best_win_deviation),
        url=url(rating.best_win_opponent_id, rating.best_win_character.code) if shown else "",
        opponent=shown_name(opponent.name) if shown else "",
        character=rating.best_win_character.name,
        at=_moment(rating.best_win_at),
    )


def _change_texts(change: float | None, counted: bool = True) -> tuple[str | None, str]:
    """A game's or a set's change as shown (None: pending) and its colour, which follows
    the shown text; a game that did not count has none."""
    if change is None:
        return None, ""
    text = signed_text(change)
    return text, change_class(text) if counted else ""


def _game_row(game: RatedGame, zone: tzinfo) -> GameRow:
    """One game's row, standing alone (its number in a set of several given by the caller)."""
    played_at = timezone.localtime(game.played_at, zone)
    change, css = _change_texts(game.change, game.counted)
    return GameRow(
        number=0,
        summary=None,
        iso=utc_iso(game.played_at),
        utc=utc_text(game.played_at),
        time=f"{played_at.hour:02}:{played_at.minute:02}",
        value=rating_text(game.value, game.deviation),
        uncertain=game.uncertain,
        # A cheater's rating and a flagged game's chance are not shown.
        opponent_value=rating_text(game.opponent_value, game.opponent_deviation) or "\u2014",
        opponent_uncertain=game.opponent_uncertain,
        win_probability=percent(game.win_probability, 0) or "\u2014",
        won=game.won,
        change=change,
        change_class=css,
        uncounted_reason=game.uncounted_reason if game.uncounted else "",
        spared=game.spared,
    )


def history_sets(sets: list[GameSet], url: ProfileUrl, *, own_rating: bool) -> list[SetRows]:
    """The match history's sets (a tbody each, `matches/history_sets.html`): a set of one
    game is its row; a longer one is a row of the set's (its first game's ratings and
    odds) and one for each of its games. Without `own_rating` (a cheater's page) the
    player's own rating reads "—"."""
    zone = timezone.get_current_timezone()
    texts = []
    for game_set in sets:
        games = [_game_row(game, zone) for game in game_set.games_oldest_first]
        if not own_rating:
            games = [game._replace(value="\u2014", uncertain=False) for game in games]
        rows = games
        if len(games) > 1:
            change, css = _change_texts(game_set.change)
            summary = SetSummary(
                win_probability=games[0].win_probability,
                record=record_text(game_set.wins, game_set.losses),
                change=change,
                change_class=css,
                uncounted=game_set.uncounted,
                spared=game_set.spared,
                games=len(games),
            )
            rows = [
                games[0]._replace(summary=summary),
                *(game._replace(number=number) for number, game in enumerate(games, start=1)),
            ]
        first = timezone.localtime(game_set.first.played_at, zone)
        texts.append(
            SetRows(
                iso=games[0].iso,
                utc=games[0].utc,
                # "Sep\u00a030," keeps to one line: a phone's column breaks only before the time.
                when=f"{first:%b}\u00a0{first.day}, {games[0].time}",
                # A private opponent has no page to link to.
                url=url(game_set.opponent.id, game_set.opponent_character.code)
                if game_set.opponent.id
                else "",
                opponent=shown_name(game_set.opponent.name),
                character=game_set.opponent_character.name,
                code=game_set.opponent_character.code,
                rows=rows,
                why=_why_moved(game_set),
                spared=game_set.spared,
            )
        )
    return texts


def _why_moved(game_set: GameSet) -> str:
    """'expected 1.2 wins, won 2: +14': the chances the set's rows show, summed, against
    its wins, and what it moved the rating ("" while a game is pending; the games that
    did not count are marked beside it)."""
    if game_set.change is None or game_set.expected_wins is None:
        return ""
    expected = floatformat(game_set.expected_wins, 1)
    return f"expected {expected} wins, won {game_set.wins}: {signed_text(game_set.change)}"


def _matchup_rows(rows: Iterable[tuple[str, MatchupEstimate]]) -> list[MatchupTexts]:
    """Matchup rows (label, estimate) as texts."""
    texts = []
    for label, estimate in rows:
        offset = None if estimate.offset is None else estimate.offset.value
        css = ""
        if offset is not None and not estimate.uncertain:
            css = " up" if offset >= 0.5 else " down" if offset <= -0.5 else ""
        texts.append(
            MatchupTexts(
                label=label,
                uncertain=estimate.uncertain,
                games=estimate.games,
                games_text=count_number(estimate.games),
                wins=estimate.wins,
                record=record_text(estimate.wins, estimate.losses),
                expected_sort=estimate.expected_wins,
                expected=f"{estimate.expected_wins:.1f}",
                css=css,
                offset_sort="" if offset is None else offset,
                offset=offset_text(offset, estimate.half_width),
            )
        )
    return texts


def _opponent_rows(opponents: list[FairOpponent], url: ProfileUrl) -> list[OpponentRow]:
    """The fair opponents' rows as texts."""
    return [
        OpponentRow(
            url=url(o.player_id, o.character_code),
            name=shown_name(o.name),
            character=o.character_name,
            code=o.character_code,
            rating=rating_text(o.value, o.deviation),
            tier=settled_tier(o.value, o.deviation),
            win_probability=percent(o.win_probability, 0),
        )
        for o in opponents
    ]
