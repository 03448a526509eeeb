"""How the site statistics look in the API (matches.api.statistics)."""

from __future__ import annotations

from rest_framework import serializers


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


class PatchShareSerializer(serializers.Serializer):
    character = serializers.CharField(source="code", help_text="The character's code.")
    share = serializers.FloatField(help_text="Its share of the patch's games (both sides count).")
    change = serializers.FloatField(
        allow_null=True,
        help_text="The share's change since `previous_patch`; null for all time or the first "
        "patch.",
    )


class PatchPopularitySerializer(serializers.Serializer):
    patch = serializers.CharField(help_text="The patch's name, or `all` (every game).")
    previous_patch = serializers.CharField(
        allow_null=True, help_text="The patch each `change` is measured from."
    )
    games = serializers.IntegerField(help_text="The patch's visible games.")
    rows = PatchShareSerializer(many=True, help_text="Most played first.")


class FraudIndexBracketSerializer(serializers.Serializer):
    key = serializers.CharField(help_text="The key used in `cells`.")
    label = serializers.CharField(help_text="A label for people.")
    floor = serializers.FloatField(
        allow_null=True,
        help_text="Only ratings at least this high on the character count; null: every one.",
    )


class FraudIndexCellSerializer(serializers.Serializer):
    players = serializers.IntegerField(help_text="Players counted on this character.")
    offset = serializers.FloatField(
        allow_null=True,
        help_text="Their mean rating on this character minus the mean of their other "
        "characters, in rating points; null without players.",
    )


class FraudIndexRowSerializer(serializers.Serializer):
    character = serializers.CharField(help_text="The character's code.")
    name = serializers.CharField(help_text="The character's name.")
    cells = serializers.DictField(
        child=FraudIndexCellSerializer(), help_text="Per bracket key: the offset and players."
    )


class FraudIndexSerializer(serializers.Serializer):
    minimum_games = serializers.IntegerField(
        help_text="Only ranked ratings with at least this many games count, and only players "
        "with two or more of them."
    )
    brackets = FraudIndexBracketSerializer(many=True, help_text="Every rating, then each floor.")
    rows = FraudIndexRowSerializer(
        many=True, help_text="One per character, the highest offset over every rating first."
    )


class InflationWeekSerializer(serializers.Serializer):
    week = serializers.DateField(help_text="The week's Monday (UTC weeks).")
    ratings = serializers.IntegerField(
        help_text="Active settled ratings: played that week, settled after their last game "
        "of it, of players not flagged."
    )
    p10 = serializers.FloatField(help_text="Their 10th percentile (linearly interpolated).")
    median = serializers.FloatField(help_text="Their median.")
    p90 = serializers.FloatField(help_text="Their 90th percentile.")


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
    patch_popularity = PatchPopularitySerializer(
        help_text="Character shares of the games of the `patch` asked for (default the "
        "current patch), with their change since the previous patch "
        "(docs/rating-model.md#patches)."
    )
    patch_rating_distribution = RatingDistributionSerializer(
        allow_null=True,
        help_text="The ratings of the `patch` asked for (default the current patch) as its "
        "time left them: each rating's last daily snapshot while the patch was the latest "
        "live, when settled then (players hidden, private or cheating left out); for `all`, "
        "`rating_distribution`. Null: no settled rating played in the patch yet.",
    )
    fraud_index = FraudIndexSerializer(
        allow_null=True,
        help_text="Per character, how far players rate on it above their own other characters "
        "(docs/rating-model.md#the-fraud-index); null before a refresh.",
    )
    inflation = InflationWeekSerializer(
        many=True,
        help_text="Every week with games, oldest first: where the active settled ratings "
        "sit, so that a drift of the rating scale (inflation or deflation) shows.",
    )
