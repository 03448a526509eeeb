"""How histories, games, matchups, forecasts and statistics look in the API (read-only)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from rest_framework import serializers

from matches.models import CharacterMatchup
from matches.selectors.history_points import HISTORY_RANGES
from matches.selectors.match_history import GameCursor, RatedGame
from matches.selectors.matchups import MatchupCell, MatchupEstimate, PlayerMatchupRow
from matches.services.evaluation import DEFAULT_SYSTEMS
from players.api.converters import CharacterConverter, PlayerIdConverter
from players.api.fields import RatingField, TierField
from players.api.serializers import CharacterSerializer, PlayerSummarySerializer

# --- Query parameters --------------------------------------------------------------------


class HistoryQuery(serializers.Serializer):
    daily = serializers.BooleanField(
        default=False,
        help_text="`1`: one point a day played, the whole history (daily snapshots). "
        "Otherwise one point per game over `range`.",
    )
    range = serializers.ChoiceField(
        choices=[key for key, span in HISTORY_RANGES.items() if span is not None],
        default="30d",
        help_text="For per-game history: how far back from the latest game (at most the "
        "latest 1000 games).",
    )


class CursorField(serializers.RegexField):
    """The cursor of a `next` link: microseconds since the epoch and a game id."""

    def __init__(self, **kwargs: Any) -> None:
        # At most 16 digits of microseconds (year 2286) and 18 of id (a bigint) always parse.
        super().__init__(r"^[0-9]{1,16}-[0-9]{1,18}$", trim_whitespace=False, **kwargs)

    def run_validation(self, data: Any = serializers.empty) -> GameCursor:
        return GameCursor.parse(super().run_validation(data))


class MatchesQuery(serializers.Serializer):
    cursor = CursorField(
        required=False, help_text="Where to go on from: the `next` link carries it."
    )
    page_size = serializers.IntegerField(
        min_value=1, max_value=200, default=50, help_text="Games per page (1-200)."
    )
    opponent = serializers.RegexField(
        f"^{PlayerIdConverter.regex}$",
        required=False,
        trim_whitespace=False,
        help_text="Only games against this player id.",
    )
    since = serializers.DateTimeField(
        required=False,
        help_text="Only games played at or after this ISO 8601 time (UTC if no offset given).",
    )


class MatchupsQuery(serializers.Serializer):
    bracket = serializers.ChoiceField(
        choices=CharacterMatchup.Bracket.values,
        default=CharacterMatchup.Bracket.ALL,
        help_text="Which games: `all`, or those where both players are in the `top1000` or "
        "`top100` of their character.",
    )


class ContenderField(serializers.RegexField):
    """`VALUE,DEVIATION` (value 0-9999, deviation 1-999) or `PLAYER_ID:CHARACTER`; validated
    to ("numbers", value, deviation) or ("rating", player id, character key)."""

    PATTERN = re.compile(
        r"^(?:(?P<value>[0-9]{1,4}(?:\.[0-9]{1,6})?),(?P<deviation>[1-9][0-9]{0,2}(?:\.[0-9]{1,6})?)"
        f"|(?P<player>{PlayerIdConverter.regex}):(?P<character>{CharacterConverter.regex}))$"
    )
    default_error_messages = {
        "invalid": "Expected `value,deviation` (e.g. `1700,80`) or `player_id:character` "
        "(e.g. `230129212655563979:SO`)."
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(self.PATTERN.pattern, trim_whitespace=False, **kwargs)

    def run_validation(self, data: Any = serializers.empty) -> tuple[str, Any, Any]:
        parts = self.PATTERN.match(super().run_validation(data))
        if parts["player"] is not None:
            return ("rating", parts["player"], parts["character"])
        return ("numbers", float(parts["value"]), float(parts["deviation"]))


class ProbabilityQuery(serializers.Serializer):
    a = ContenderField(
        help_text="Side A: `value,deviation` (`1700,80`) or a player's rating "
        "`player_id:character` (`230129212655563979:SO`).",
    )
    b = ContenderField(help_text="Side B, in the same forms as `a`.")


OPPONENTS_LIMIT = 50


class OpponentsQuery(serializers.Serializer):
    limit = serializers.IntegerField(
        min_value=1,
        max_value=OPPONENTS_LIMIT,
        default=10,
        help_text=f"How many opponents to suggest at most (1-{OPPONENTS_LIMIT}).",
    )


# --- Responses ---------------------------------------------------------------------------


class HistoryPointSerializer(serializers.Serializer):
    at = serializers.DateTimeField(
        help_text="The game's time (per game; the first point is the rating before the first "
        "game), or 23:59 UTC of the day (daily)."
    )
    rating = RatingField(help_text="The rating after that game, or at the end of that day.")


class RatingHistorySerializer(serializers.Serializer):
    player = PlayerSummarySerializer(source="rating.player", help_text="Whose history.")
    character = CharacterSerializer(source="rating.character", help_text="Played as.")
    daily = serializers.BooleanField(help_text="Whether points are daily snapshots.")
    points = HistoryPointSerializer(many=True, help_text="Oldest first.")


class GameSerializer(serializers.Serializer):
    """One game seen from the rating's side."""

    id = serializers.IntegerField(source="match_id", help_text="The game's id on this site.")
    played_at = serializers.DateTimeField(help_text="When it was played (UTC).")
    floor = serializers.IntegerField(allow_null=True, help_text="The floor: 1-10, 99 = Celestial.")
    won = serializers.BooleanField(help_text="Whether this rating's player won.")
    counted = serializers.SerializerMethodField(
        help_text="Whether the game moved ratings (lopsided games between established players "
        "and games with cheaters do not); null until rated."
    )
    rating = RatingField(
        allow_null=True, help_text="This side's rating before the game; null until rated."
    )
    change = serializers.FloatField(
        allow_null=True, help_text="How much the game moved this side's rating; null until rated."
    )
    opponent = PlayerSummarySerializer(help_text="Who the opponent was.")
    opponent_character = CharacterSerializer(help_text="The opponent's character.")
    opponent_rating = RatingField(
        prefix="opponent_",
        allow_null=True,
        help_text="The opponent's rating before the game; null until rated.",
    )
    win_probability = serializers.FloatField(
        allow_null=True,
        help_text="P(this side wins) before the game, as the site shows it (calibrated); null "
        "until rated.",
    )
    model_win_probability = serializers.FloatField(
        allow_null=True,
        help_text="P(this side wins) by the rating model alone, from both ratings before the "
        "game; null until rated.",
    )

    def get_counted(self, game: RatedGame) -> bool | None:
        return None if game.change is None else game.counted


class GamePageSerializer(serializers.Serializer):
    next = serializers.URLField(
        allow_null=True, help_text="The next (older) page; null on the last page."
    )
    results = GameSerializer(many=True, help_text="Newest first.")


class MatchupEstimateSerializer(serializers.Serializer):
    """A matchup offset (docs/rating-model.md#matchups) with what it was estimated from."""

    offset = serializers.FloatField(
        allow_null=True,
        help_text="Rating points the matchup is worth: P(win) = 1 / (1 + 10^(-(r - r_opponent "
        "+ offset) / 400)); null without games.",
    )
    standard_error = serializers.FloatField(
        allow_null=True, help_text="Standard error of the offset, in rating points."
    )
    probability = serializers.FloatField(
        allow_null=True, help_text="P(win) at equal skill: 1 / (1 + 10^(-offset / 400))."
    )
    interval_low = serializers.FloatField(
        allow_null=True, help_text="Lower end of the 95% interval of `probability`."
    )
    interval_high = serializers.FloatField(
        allow_null=True, help_text="Upper end of the 95% interval of `probability`."
    )
    uncertain = serializers.BooleanField(
        help_text="The 95% interval is wider than the site's limit (shown greyed)."
    )
    games = serializers.IntegerField(help_text="Counted games.")
    wins = serializers.IntegerField(help_text="Counted games won.")
    losses = serializers.IntegerField(help_text="Counted games lost.")
    expected_wins = serializers.FloatField(
        help_text="Wins expected from the players' pre-game ratings alone."
    )

    def to_representation(self, estimate: MatchupEstimate) -> dict[str, Any]:
        offset = estimate.offset
        low, high = estimate.interval or (None, None)
        return {
            "offset": None if offset is None else offset.value,
            "standard_error": None if offset is None else offset.standard_error,
            "probability": estimate.probability,
            "interval_low": low,
            "interval_high": high,
            "uncertain": estimate.uncertain,
            "games": estimate.games,
            "wins": estimate.wins,
            "losses": estimate.losses,
            "expected_wins": estimate.expected_wins,
        }


class MatchupCellSerializer(MatchupEstimateSerializer):
    opponent = serializers.CharField(help_text="The column character's code.")
    mirror = serializers.BooleanField(
        help_text="The row character itself: 50% by definition, from no games."
    )

    def to_representation(self, cell: MatchupCell) -> dict[str, Any]:
        return {
            "opponent": cell.opponent.code,
            "mirror": cell.mirror,
            **super().to_representation(cell.estimate),
        }


class MatchupRowSerializer(serializers.Serializer):
    character = CharacterSerializer(help_text="The row character.")
    average = serializers.FloatField(
        allow_null=True,
        help_text="The mean of its `probability` over the opponents with games, mirror excluded.",
    )
    cells = MatchupCellSerializer(many=True, help_text="One per column, in `characters` order.")


class MatchupMatrixSerializer(serializers.Serializer):
    bracket = serializers.CharField(help_text="`all`, `top1000` or `top100`.")
    characters = CharacterSerializer(
        source="columns", many=True, help_text="Rows and columns, strongest first."
    )
    rows = MatchupRowSerializer(many=True, help_text="One per character, strongest first.")


class OutcomeSerializer(serializers.Serializer):
    rating = RatingField(help_text="The rating after the game.")
    change = serializers.FloatField(help_text="The change of the value.")


class ForecastSideSerializer(serializers.Serializer):
    player = PlayerSummarySerializer(
        source="contender.rating.player",
        allow_null=True,
        help_text="The player, when given as `player_id:character`.",
    )
    character = CharacterSerializer(
        source="contender.rating.character",
        allow_null=True,
        help_text="Their character, when given as `player_id:character`.",
    )
    rating = RatingField(source="contender", help_text="The rating going into the game.")
    win_probability = serializers.FloatField(
        help_text="P(this side wins), as the site shows it (calibrated)."
    )
    model_win_probability = serializers.FloatField(
        help_text="P(this side wins) by the rating model alone."
    )
    after_win = OutcomeSerializer(help_text="This side's rating if it wins.")
    after_loss = OutcomeSerializer(help_text="This side's rating if it loses.")


class ForecastSerializer(serializers.Serializer):
    a = ForecastSideSerializer(help_text="Side A.")
    b = ForecastSideSerializer(help_text="Side B.")
    counts = serializers.BooleanField(
        help_text="Whether the game would move ratings at all: not when a side is a cheater, "
        "nor for a lopsided game between established players (then neither result counts)."
    )


class TotalsSerializer(serializers.Serializer):
    games = serializers.IntegerField(help_text="Games stored (hidden players' excluded).")
    players = serializers.IntegerField(help_text="Players seen (hidden excluded).")
    ratings = serializers.IntegerField(help_text="(player, character) ratings.")
    ranked = serializers.IntegerField(help_text="Ranked ratings.")
    games_24h = serializers.IntegerField(help_text="Games in the 24 hours before the refresh.")


class GamesOnDaySerializer(serializers.Serializer):
    day = serializers.DateField(help_text="A day (UTC).")
    games = serializers.IntegerField(help_text="Games played that day.")


class RatingBinSerializer(serializers.Serializer):
    def get_fields(self) -> dict[str, serializers.Field]:
        # `from` is a Python keyword, so the fields are declared here.
        return {
            "from": serializers.FloatField(help_text="The bin's lowest value (inclusive)."),
            "to": serializers.FloatField(help_text="The bin's highest value (exclusive)."),
            "count": serializers.IntegerField(help_text="Ranked ratings in the bin."),
        }


class RatingDistributionSerializer(serializers.Serializer):
    bin_width = serializers.IntegerField(help_text="The width of every bin.")
    bins = RatingBinSerializer(
        many=True,
        help_text="Every bin from the lowest with ratings to the highest, lowest first; "
        "a bin without ratings between them has count 0.",
    )


class FloorCountSerializer(serializers.Serializer):
    floor = serializers.IntegerField(help_text="A floor: 1-10, 99 = Celestial.")
    players = serializers.IntegerField(help_text="Players whose latest game was on it.")


class PopularityBracketSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="The key used in `shares`.")
    label = serializers.CharField(help_text="A label for people.")


class PopularityRowSerializer(serializers.Serializer):
    character = serializers.CharField(help_text="The character's code.")
    name = serializers.CharField(help_text="The character's name.")
    shares = serializers.DictField(
        child=serializers.FloatField(),
        help_text="Per bracket key: the character's share (0-1) of the games played there "
        "in the latest period.",
    )
    changes = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        required=False,
        help_text="Per bracket key: the share minus the share in the period before; null "
        "where either period had no games in the bracket.",
    )


class PopularitySerializer(serializers.Serializer):
    period_days = serializers.IntegerField(
        required=False, help_text="The length of a period in days (the latest one ends now)."
    )
    brackets = PopularityBracketSerializer(many=True, help_text="The rating brackets.")
    rows = PopularityRowSerializer(many=True, help_text="One per character.")


class PercentileSerializer(serializers.Serializer):
    top = serializers.IntegerField(help_text="The percent of ranked ratings at the top.")
    rank = serializers.IntegerField(help_text="The global rank that ends that top percent.")
    value = serializers.FloatField(help_text="The rating value at that rank.")


class ActivityCountSerializer(serializers.Serializer):
    players = serializers.IntegerField(help_text="Players seen.")
    games = serializers.IntegerField(help_text="Games played.")


class ActivitySerializer(serializers.Serializer):
    hour = ActivityCountSerializer(help_text="In the last hour.")
    day = ActivityCountSerializer(help_text="In the last 24 hours.")
    week = ActivityCountSerializer(help_text="In the last 7 days.")


class SiteStatisticsSerializer(serializers.Serializer):
    computed_at = serializers.DateTimeField(
        allow_null=True, help_text="When the statistics were last refreshed; null: never yet."
    )
    totals = TotalsSerializer(allow_null=True, help_text="Site totals; null before a refresh.")
    games_per_day = GamesOnDaySerializer(
        many=True,
        help_text="Each day (UTC) from the first with games in the last 90 days to the day "
        "of the refresh, oldest first; a day without games has 0.",
    )
    rating_distribution = RatingDistributionSerializer(
        allow_null=True, help_text="Ranked ratings by value."
    )
    floor_distribution = FloorCountSerializer(many=True, help_text="Players by floor.")
    popularity = PopularitySerializer(
        allow_null=True,
        help_text="Character shares of the latest period's games, overall and per rating "
        "bracket, with their change from the period before.",
    )
    percentiles = PercentileSerializer(
        many=True, help_text="The rating at the top 1, 5, 10, 25 and 50% of ranked ratings."
    )
    activity = ActivitySerializer(
        allow_null=True, help_text="Players and games in the last hour, day and week."
    )


# --- Fair opponents ----------------------------------------------------------------------


class OpponentPlayerSerializer(serializers.Serializer):
    id = serializers.CharField(source="player_id", help_text="The game's player id.")
    name = serializers.CharField(help_text="The name the player uses now.")


class FairOpponentSerializer(serializers.Serializer):
    """One suggested opponent."""

    # Reads a row of matches.selectors.opponents.fair_opponents, its character code
    # replaced by the Character.

    player = OpponentPlayerSerializer(source="*", help_text="Who.")
    character = CharacterSerializer(help_text="The character of their rating.")
    rating = RatingField(help_text="Their current rating.")
    tier = TierField()
    win_probability = serializers.FloatField(
        help_text="P(the requested rating beats this one), using both deviations, as the site "
        "shows it (through the calibration the lab fits)."
    )
    model_win_probability = serializers.FloatField(
        help_text="The same by the rating model alone, before calibration."
    )
    quality = serializers.FloatField(
        help_text="Match quality, 1 - 2 |P - 0.5|: 1 for a coin flip, towards 0 for a "
        "one-sided game."
    )


class FairOpponentsSerializer(serializers.Serializer):
    player = PlayerSummarySerializer(source="target.player", help_text="Whose rating.")
    character = CharacterSerializer(source="target.character", help_text="Played as.")
    rating = RatingField(source="target", help_text="The rating the opponents are for.")
    tier = TierField(source="target")
    active_days = serializers.IntegerField(
        help_text="Opponents are ratings played within this many days (a site setting)."
    )
    opponents = FairOpponentSerializer(
        many=True,
        help_text="The fairest games first: P(win) nearest 0.5, ties to the lower deviation. "
        "Ratings of any character; never the player's own, nor hidden players' or cheaters'.",
    )


# --- The rating systems lab --------------------------------------------------------------


class StoredDateTimeField(serializers.DateTimeField):
    """A date-time kept as ISO 8601 text in a JSON report, written like every other one."""

    def to_representation(self, value: datetime | str) -> str | None:
        if isinstance(value, str):
            value = datetime.fromisoformat(value)
        return super().to_representation(value)


class CalibrationBinSerializer(serializers.Serializer):
    low = serializers.FloatField(
        help_text="The bin's lowest predicted P(A wins), A being the stored game's first "
        "side (inclusive)."
    )
    high = serializers.FloatField(
        help_text="The bin's highest predicted P(A wins) (exclusive; the last bin takes 1)."
    )
    games = serializers.IntegerField(help_text="Games whose prediction fell in the bin.")
    predicted = serializers.FloatField(
        allow_null=True, help_text="Their mean predicted P(A wins); null for an empty bin."
    )
    observed = serializers.FloatField(
        allow_null=True,
        help_text="How often A actually won them (near `predicted` when the system is well "
        "calibrated); null for an empty bin.",
    )


class LabScoresSerializer(serializers.Serializer):
    games = serializers.IntegerField(help_text="Games predicted.")
    log_loss = serializers.FloatField(
        allow_null=True,
        help_text="Mean of -[s ln p + (1 - s) ln(1 - p)], p the predicted P(A wins) (A being "
        "the stored game's first side) and s A's score (1 or 0): lower is better (ln 2 = 0.693 "
        "for always saying 0.5); null without games.",
    )
    brier = serializers.FloatField(
        allow_null=True,
        help_text="Mean of (p - s)^2: lower is better (0.25 for always saying 0.5); null "
        "without games.",
    )
    accuracy = serializers.FloatField(
        allow_null=True,
        help_text="How often the favourite won (a 0.5 prediction counts half); null without games.",
    )
    calibration = CalibrationBinSerializer(
        many=True, help_text="Ten bins of predicted P(A wins), 0-0.1 to 0.9-1, lowest first."
    )


class CalibrationFitSerializer(serializers.Serializer):
    temperature = serializers.FloatField(
        help_text="T in shown P = 1 / (1 + exp(-logit(p) / T)), p the model's P(win): fitted "
        "by maximum likelihood at every refresh on the latest games, each predicted from the "
        "ratings as they were before it was played. Above 1 the model was too sure of its "
        "favourites. Every `win_probability` the API serves goes through it."
    )
    fitted_at = StoredDateTimeField(help_text="When it was fitted (UTC).")
    games = serializers.IntegerField(help_text="The latest games it was fitted on.")
    log_loss_before = serializers.FloatField(allow_null=True, help_text="Their log loss as is.")
    log_loss_after = serializers.FloatField(
        allow_null=True, help_text="Their log loss through the calibration."
    )
    before = CalibrationBinSerializer(many=True, help_text="Reliability of the model's chances.")
    after = CalibrationBinSerializer(many=True, help_text="Reliability of the shown chances.")


class LabSystemSerializer(serializers.Serializer):
    name = serializers.CharField(help_text=f"The system: {', '.join(DEFAULT_SYSTEMS)}.")
    note = serializers.CharField(
        help_text="How it was run, and where its win probability comes from."
    )
    overall = LabScoresSerializer(help_text="Scores over every replayed game.")
    established = LabScoresSerializer(
        help_text="Scores over the games where both ratings had at least "
        "`established_min_games` earlier games."
    )


class LabReportSerializer(serializers.Serializer):
    computed_at = StoredDateTimeField(help_text="When the evaluation ran (UTC).")
    since = StoredDateTimeField(
        allow_null=True,
        help_text="Only games from this time on were replayed, every rating starting fresh; "
        "null: the whole history.",
    )
    games = serializers.IntegerField(
        help_text="Games replayed in time order, each predicted by every system before it "
        "learned the result."
    )
    excluded_games = serializers.IntegerField(
        help_text="Games skipped because a hidden player or a cheater took part (they move "
        "no rating on the site)."
    )
    established_min_games = serializers.IntegerField(
        help_text="The earlier games both ratings need for a game to count as `established`."
    )
    seconds = serializers.FloatField(help_text="How long the evaluation took.")
    systems = LabSystemSerializer(many=True, help_text="One entry per rating system.")
    calibration = CalibrationFitSerializer(
        allow_null=True,
        help_text="The calibration of the chances the site shows (its own schedule: every "
        "refresh); null before the first fit.",
    )


class PlayerMatchupSerializer(MatchupEstimateSerializer):
    opponent_character = CharacterSerializer(help_text="The opposing character.")

    def to_representation(self, row: PlayerMatchupRow) -> dict[str, Any]:
        return {
            "opponent_character": CharacterSerializer(row.opponent_character).data,
            **super().to_representation(row.estimate),
        }


class RatingMatchupsSerializer(serializers.Serializer):
    player = PlayerSummarySerializer(source="rating.player", help_text="Whose matchups.")
    character = CharacterSerializer(source="rating.character", help_text="Played as.")
    matchups = PlayerMatchupSerializer(
        source="matchups.rows",
        many=True,
        help_text="One row per opposing character met, by character id: the matchup offset "
        "from this rating's counted games, from a one-step estimate over their sums.",
    )
    overall = MatchupEstimateSerializer(
        source="matchups.overall", help_text="Every opposing character's games together."
    )
