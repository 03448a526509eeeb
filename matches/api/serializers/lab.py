"""How the rating systems lab's report looks in the API (matches.api.lab)."""

from __future__ import annotations

from datetime import datetime

from rest_framework import serializers

from matches.services.evaluation import DEFAULT_SYSTEMS


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
        help_text="T in corrected P = 1 / (1 + exp(-logit(p) / T)), p the chance the site "
        "showed (and rated by): fitted by maximum likelihood at every refresh on the latest "
        "games' stored chances. Above 1 the chances were too sure of the favourites. A "
        "measurement: no `win_probability` goes through it (the calculator's "
        "`calibrated_display` names it)."
    )
    fitted_at = StoredDateTimeField(help_text="When it was fitted (UTC).")
    games = serializers.IntegerField(help_text="The latest games it was fitted on.")
    log_loss_before = serializers.FloatField(allow_null=True, help_text="Their log loss as shown.")
    log_loss_after = serializers.FloatField(
        allow_null=True, help_text="Their log loss corrected by the temperature."
    )
    before = CalibrationBinSerializer(many=True, help_text="Reliability of the shown chances.")
    after = CalibrationBinSerializer(many=True, help_text="Reliability of the corrected ones.")


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
        help_text="How often the chances the site shows come true (fitted at every refresh); "
        "null before the first fit.",
    )
