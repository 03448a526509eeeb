"""How players, characters and ratings look in the API (read-only; the shapes are the contract)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from players import rules
from players.api.fields import RatingField, ShownNameField, TierField, rating_numbers
from players.formatting import shown_name
from players.models import Character, Player, Rating
from players.selectors.rankings import ACTIVE_DAYS, RankedRow
from players.selectors.search import SEARCH_LIMIT, HitRating, PlayerHit
from players.tiers import settled_tier

SHOWN_NAME_HELP = (
    "The name the player uses now, as the site shows it: without invisible formatting "
    "characters (bidirectional overrides, embeddings and isolates, zero-width spaces), which "
    "could make it read as another name."
)


class CharacterSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The character's numeric id (stable).")
    code = serializers.CharField(
        help_text="The short code used in URLs (any case is accepted there): SO, KY..."
    )
    name = serializers.CharField(help_text="The character's name.")


def character_fields(character: Character) -> dict[str, Any]:
    """What CharacterSerializer writes, for the rows written directly."""
    return {"id": character.id, "code": character.code, "name": character.name}


class RosterCharacterSerializer(CharacterSerializer):
    retired = serializers.BooleanField(
        help_text="Out of the game: its ratings, games and rankings stay, but no new "
        "choice offers it (docs/roster.md#retiring-a-character)."
    )


class CharacterListSerializer(serializers.Serializer):
    results = RosterCharacterSerializer(
        many=True, help_text="The roster, in display order (docs/roster.md)."
    )


class PlayerSummarySerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The game's player id (a 64-bit number, as a string).")
    name = ShownNameField(help_text=SHOWN_NAME_HELP)
    platform = serializers.CharField(help_text='`pc`, `ps`, `xbox`, or "" when unknown.')


class RatingSummarySerializer(serializers.Serializer):
    """One of a player's ratings, in lists."""

    character = CharacterSerializer(help_text="The character this rating is for.")
    rating = RatingField(
        allow_null=True,
        help_text="The current rating; null for a cheater, whose games count for nobody.",
    )
    tier = TierField()
    wins = serializers.IntegerField(help_text="Counted games won.")
    losses = serializers.IntegerField(help_text="Counted games lost.")
    last_played_at = serializers.DateTimeField(
        allow_null=True, help_text="When this character was last played (UTC)."
    )


class SearchQuery(serializers.Serializer):
    name = serializers.RegexField(
        r"^[^\x00]+$",
        max_length=64,
        trim_whitespace=False,
        help_text="Part of a current or past name, any case (at least one character).",
    )
    limit = serializers.IntegerField(
        min_value=1,
        max_value=SEARCH_LIMIT,
        default=20,
        help_text=f"How many players to return at most (1-{SEARCH_LIMIT}).",
    )


class CharacterRankingQuery(serializers.Serializer):
    active = serializers.ChoiceField(
        choices=ACTIVE_DAYS,
        required=False,
        help_text="Only ratings played in the last this many days.",
    )


class RankingQuery(CharacterRankingQuery):
    per = serializers.ChoiceField(
        choices=["player"],
        required=False,
        help_text="`player`: one row per player, their best ranked rating.",
    )


class PlayerHitSerializer(serializers.Serializer):
    """A search result."""

    id = serializers.CharField(source="player_id", help_text="The game's player id.")
    name = ShownNameField(help_text=SHOWN_NAME_HELP)
    platform = serializers.CharField(help_text='`pc`, `ps`, `xbox`, or "" when unknown.')
    matched_name = ShownNameField(
        help_text="The name that matched the search: the current one or a past one, as shown."
    )
    last_seen = serializers.DateTimeField(help_text="The player's latest game seen (UTC).")
    summary_display = serializers.CharField(
        source="summary",
        help_text="What tells players of one name apart, as the site shows it: the main (most "
        'played) character and its rating, the platform and the day last seen: "Sol Badguy '
        '1623 ±120 · PlayStation · last seen 2026-03-01".',
    )
    cheater = serializers.BooleanField(
        help_text="Marked as a cheater: found, but never ranked and never moving anyone's rating."
    )
    ratings = RatingSummarySerializer(many=True, help_text="Every rating, most played first.")

    def to_representation(self, hit: PlayerHit) -> dict[str, Any]:
        """The fields above, written directly: a search has up to fifty hits with all their
        ratings, and the generic walk of the fields cost more than its queries (a test
        holds the two equal)."""
        when = self.fields["ratings"].child.fields["last_played_at"]

        def summary(rating: HitRating) -> dict[str, Any]:
            played = rating.last_played_at
            return {
                "character": character_fields(rating.character),
                "rating": rating_numbers(rating.value, rating.deviation),
                "tier": settled_tier(rating.value, rating.deviation),
                "wins": rating.wins,
                "losses": rating.losses,
                "last_played_at": None if played is None else when.to_representation(played),
            }

        return {
            "id": hit.player_id,
            "name": shown_name(hit.name),
            "platform": hit.platform,
            "matched_name": shown_name(hit.matched_name),
            "last_seen": self.fields["last_seen"].to_representation(hit.last_seen),
            "summary_display": hit.summary,
            "cheater": hit.cheater,
            "ratings": [summary(rating) for rating in hit.ratings],
        }


class PlayerSearchSerializer(serializers.Serializer):
    results = PlayerHitSerializer(
        many=True,
        help_text="Up to `limit` players, best match first: exact names, then names starting "
        "with `name`, then names containing it further on; current names before past ones, "
        "then the shortest.",
    )
    more_match = serializers.BooleanField(
        help_text="More than `limit` names contain `name`: the results are the best of the "
        "names one search reads, where exact names and names starting with `name` are read "
        "by themselves, so they come first; a longer `name` narrows the search.",
    )


class PastNameSerializer(serializers.Serializer):
    name = ShownNameField(help_text="A name the player used before, as shown.")
    first_seen = serializers.DateTimeField(help_text="When the name was first seen (UTC).")
    last_seen = serializers.DateTimeField(help_text="When the name was last seen (UTC).")


class PlayerDetailSerializer(serializers.Serializer):
    id = serializers.CharField(source="player.id", help_text="The game's player id.")
    name = ShownNameField(source="player.name", help_text=SHOWN_NAME_HELP)
    platform = serializers.CharField(
        source="player.platform", help_text='`pc`, `ps`, `xbox`, or "" when unknown.'
    )
    floor = serializers.IntegerField(
        source="player.floor",
        allow_null=True,
        help_text="The floor of the latest game: 1-10, 99 = Celestial; null when unknown.",
    )
    first_seen = serializers.DateTimeField(
        source="player.first_seen", help_text="The player's first game seen (UTC)."
    )
    last_seen = serializers.DateTimeField(
        source="player.last_seen", help_text="The player's latest game seen (UTC)."
    )
    supporter = serializers.BooleanField(source="player.supporter", help_text="Supports the site.")
    cheater = serializers.BooleanField(
        source="player.cheater",
        help_text="Marked as a cheater: shown, but never ranked and never moving anyone's rating.",
    )
    ratings = RatingSummarySerializer(many=True, help_text="Every rating, most played first.")
    past_names = PastNameSerializer(many=True, help_text="Earlier names, latest first.")

    def to_representation(self, detail: Any) -> dict[str, Any]:
        data = super().to_representation(detail)
        if detail.player.cheater:
            data["ratings"] = [_without_rating(rating) for rating in data["ratings"]]
        return data


def _without_rating(data: dict[str, Any]) -> dict[str, Any]:
    """A cheater's rating as the API shows it: no value, tier, rank, peak or best win (their
    ratings are recomputed without their games; only the games are theirs to show)."""
    hidden = ("rating", "tier", "global_rank", "character_rank", "peak", "best_win")
    return {key: None if key in hidden else value for key, value in data.items()}


class PeakSerializer(serializers.Serializer):
    rating = RatingField(prefix="peak_", help_text="The highest rating reached (deviation < 75).")
    at = serializers.DateTimeField(source="peak_at", help_text="When it was reached (UTC).")


class BestWinSerializer(serializers.Serializer):
    opponent = serializers.SerializerMethodField(
        help_text="Who was beaten; null when that player is hidden or private."
    )
    character = CharacterSerializer(
        source="best_win_character", help_text="The character they played."
    )
    rating = RatingField(prefix="best_win_", help_text="Their rating before that game.")
    at = serializers.DateTimeField(source="best_win_at", help_text="When (UTC).")

    @extend_schema_field(PlayerSummarySerializer(allow_null=True))
    def get_opponent(self, rating: Rating) -> dict[str, Any] | None:
        opponent: Player | None = rating.best_win_opponent
        if opponent is None or rules.is_hidden(opponent):
            return None
        return PlayerSummarySerializer(opponent).data


class RatingDetailSerializer(RatingSummarySerializer):
    """One rating with its records."""

    player = PlayerSummarySerializer(help_text="Whose rating this is.")
    global_rank = serializers.IntegerField(
        source="ranks.overall",
        allow_null=True,
        help_text="The position in the overall rankings now; null when unranked (deviation 75 "
        "or more, or a cheater).",
    )
    character_rank = serializers.IntegerField(
        source="ranks.character",
        allow_null=True,
        help_text="The position in this character's rankings now; null when unranked.",
    )
    peak = serializers.SerializerMethodField(
        help_text="The highest rating reached while the deviation was below 75; null if never, "
        "and for a cheater."
    )
    best_win = serializers.SerializerMethodField(
        help_text="The highest-rated opponent beaten (their deviation below 75); null if none, "
        "and for a cheater."
    )

    @extend_schema_field(PeakSerializer(allow_null=True))
    def get_peak(self, rating: Rating) -> dict[str, Any] | None:
        return None if rating.peak_value is None else PeakSerializer(rating).data

    @extend_schema_field(BestWinSerializer(allow_null=True))
    def get_best_win(self, rating: Rating) -> dict[str, Any] | None:
        return None if rating.best_win_value is None else BestWinSerializer(rating).data

    def to_representation(self, rating: Rating) -> dict[str, Any]:
        data = super().to_representation(rating)
        return _without_rating(data) if rating.player.cheater else data


class RankingRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(
        help_text="The position in this list (over its pages): overall in `rankings/`, within "
        "the character in `rankings/{character}/`."
    )
    player = PlayerSummarySerializer(help_text="Who.")
    character = CharacterSerializer(help_text="Playing which character.")
    rating = RatingField(help_text="The rating.")
    tier = TierField()
    wins = serializers.IntegerField(help_text="Counted games won.")
    losses = serializers.IntegerField(help_text="Counted games lost.")

    def to_representation(self, row: RankedRow) -> dict[str, Any]:
        """The fields above, written directly: a page has a hundred rows, and the generic
        walk of the fields cost more than its queries (a test holds the two equal)."""
        return {
            "rank": row.rank,
            "player": row.player,
            "character": character_fields(row.character),
            "rating": rating_numbers(row.value, row.deviation),
            "tier": settled_tier(row.value, row.deviation),
            "wins": row.wins,
            "losses": row.losses,
        }
