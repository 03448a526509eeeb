"""Who plays: characters, players, their names, and one rating per (player, character)."""

from __future__ import annotations

from django.contrib.postgres.indexes import GinIndex
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import F, Func, Q, Value
from django.db.models.functions import Upper

from players import rules
from players.fields import IdentifierField
from players.formatting import NAME_KEY_DROPPED, rating_text

# The deviation below which the ranking indexes hold a rating: settings.RATING_LOW_DEVIATION
# must equal it (players.checks refuses another), and changing it is a new migration.
RANKED_INDEX_DEVIATION = 75.0
# What the ranking indexes hold past their keys: a ranking row's columns, so that a
# page is read from the index alone (players.selectors.rankings.ranked_rows).
RANKED_ROW_COLUMNS = ["player", "deviation", "wins", "losses"]
# What else they hold: whether a settled rating is confirmed (players.rules.rankable),
# read from the index too; the few settled ratings not confirmed are walked past.
RANKED_INDEX_EXTRA = ["confirmations"]


# What search compares of a name: `players_name_key(name)` (players/migrations/0019), the
# name in upper case without whitespace or invisible formatting characters. Stored, so that
# a search's index candidates are rechecked against a column, not by calling the function
# (issue 35: 3 µs a name, 62 ms for the 19,981 candidates of one fragment at 1M games).
NAME_KEY = Upper(Func(F("name"), Value(NAME_KEY_DROPPED), Value(""), function="translate"))


def name_key_field() -> models.GeneratedField:
    return models.GeneratedField(
        expression=NAME_KEY, output_field=models.TextField(), db_persist=True
    )


def name_key_indexes(table: str) -> list[models.Index]:
    """Exact names and prefixes walk a btree of the key, names containing or like a query
    (pg_trgm) a trigram index of it."""
    return [
        models.Index(
            fields=["name_key"], opclasses=["text_pattern_ops"], name=f"{table}_name_key_idx"
        ),
        GinIndex(fields=["name_key"], opclasses=["gin_trgm_ops"], name=f"{table}_name_key_trgm"),
    ]


# A character's code as replays and URLs spell it: one to four capital letters or digits,
# starting with a letter (an all-digit key in a URL is a character id).
CHARACTER_CODE_PATTERN = r"^[A-Z][A-Z0-9]{0,3}$"


class Character(models.Model):
    """A playable character. The roster is data: this table, managed in the admin and read
    through players.selectors.roster (docs/roster.md). Rows are never deleted (games name
    them); renaming keeps every game and rating, which point at the id."""

    id = models.PositiveSmallIntegerField(primary_key=True)
    code = models.CharField(
        max_length=4,
        unique=True,
        validators=[
            RegexValidator(
                CHARACTER_CODE_PATTERN,
                "One to four capital letters or digits, starting with a letter.",
            )
        ],
        help_text="As replays name it; fixed once saved (replays that use it would be orphaned).",
    )
    name = models.CharField(max_length=40)
    display_order = models.PositiveSmallIntegerField(
        default=0, help_text="Lists and tables show characters in this order, then by id."
    )
    release_date = models.DateField(null=True, blank=True)
    retired = models.BooleanField(
        default=False,
        help_text="Out of the game: its games and ratings stay on every page, and late "
        "replays naming it are still stored.",
    )

    class Meta:
        ordering = ["display_order", "id"]

    def __str__(self) -> str:
        return self.name

    @property
    def listed_name(self) -> str:
        """Its name where characters are listed: a retired one says so (docs/roster.md)."""
        return f"{self.name} (retired)" if self.retired else self.name


class PlayerQuerySet(models.QuerySet["Player"]):
    """Players by the rules of players.rules."""

    def visible(self) -> PlayerQuerySet:
        return self.exclude(rules.hidden())

    def flagged(self) -> PlayerQuerySet:
        return self.filter(rules.flagged())

    def unrated(self) -> PlayerQuerySet:
        return self.filter(rules.unrated())


class Player(models.Model):
    """A player, keyed by the game's own id (a 64-bit number kept as the string the game sends)."""

    class Platform(models.TextChoices):
        PC = "pc", "PC"
        PLAYSTATION = "ps", "PlayStation"
        XBOX = "xbox", "Xbox"
        UNKNOWN = "", "Unknown"

    id = IdentifierField(primary_key=True, max_length=32)
    name = models.CharField(max_length=64)
    name_key = name_key_field()
    platform = models.CharField(max_length=4, choices=Platform.choices, blank=True, default="")
    floor = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="1-10, 99 = Celestial"
    )
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()
    hidden = models.BooleanField(default=False, help_text="Opted out: appears nowhere on the site")
    cheater = models.BooleanField(default=False, help_text="Kept, but never moves anyone's rating")
    supporter = models.BooleanField(default=False)
    # A default in the database too: the bulk writers of ingestion list their columns.
    private = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Made private by its owner: appears nowhere, its games still count",
    )

    objects = PlayerQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["name"], name="player_name_idx"),
            *name_key_indexes("player"),
            # Rankings subtract the few flagged players' ratings from counts of the rest.
            models.Index(fields=["id"], name="player_flagged_idx", condition=rules.flagged()),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.id})"


class PlayerName(models.Model):
    """Every name a player has used, so that search finds old names too."""

    # Indexed by the unique (player, name) constraint, which leads with it.
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="names", db_index=False
    )
    name = models.CharField(max_length=64)
    name_key = name_key_field()
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "name"], name="unique_player_name")
        ]
        indexes = [
            models.Index(fields=["name"], name="playername_name_idx"),
            *name_key_indexes("playername"),
        ]
        ordering = ["-last_seen"]

    def __str__(self) -> str:
        return self.name


class Rating(models.Model):
    """A player's rating on one character, with the records the profile shows."""

    # Written only by the rating service, like the other derived tables: its keys skip
    # the database's per-row checks (four per rating at a recompute's commit), and
    # Django's on_delete keeps them whole. Player is indexed by unique (player, character).
    player = models.ForeignKey(
        Player,
        on_delete=models.CASCADE,
        related_name="ratings",
        db_index=False,
        db_constraint=False,
    )
    character = models.ForeignKey(
        Character, on_delete=models.PROTECT, related_name="ratings", db_constraint=False
    )
    value = models.FloatField()
    deviation = models.FloatField()
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    last_played_at = models.DateTimeField(null=True, blank=True)
    last_decay_at = models.DateTimeField(null=True, blank=True)
    peak_value = models.FloatField(null=True, blank=True)
    peak_deviation = models.FloatField(null=True, blank=True)
    peak_at = models.DateTimeField(null=True, blank=True)
    # The best win is read from its rating, never looked up the other way: no index
    # (three of them, with the varchar LIKE one, to build at each recompute and keep up
    # at each rating write). Deleting a player (the admin only) scans for it instead.
    best_win_opponent = models.ForeignKey(
        Player,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    best_win_character = models.ForeignKey(
        Character,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    best_win_value = models.FloatField(null=True, blank=True)
    best_win_deviation = models.FloatField(null=True, blank=True)
    best_win_at = models.DateTimeField(null=True, blank=True)
    # The early-surprise test for alternate accounts and its fast track
    # (docs/integrity.md): sums over the games it read, and the recent surprise.
    surprise_games = models.PositiveIntegerField(default=0)
    surprise_wins = models.PositiveIntegerField(default=0)
    surprise_expected = models.FloatField(default=0.0)
    surprise_information = models.FloatField(default=0.0)
    recent_surprise = models.FloatField(default=0.0)
    # The distinct opponents, settled when they played it, of its counted games, counted
    # up to RANKED_MIN_OPPONENTS (players.rules.confirmed); the ids of those counted, in
    # the order met and separated by spaces, only until then (matches.ratings.ledger).
    # Defaults in the database too: the bulk writers list their columns.
    confirmations = models.PositiveSmallIntegerField(default=0, db_default=0)
    confirming_players = models.TextField(blank=True, default="", db_default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "character"], name="unique_player_character")
        ]
        indexes = [
            # Rankings walk these in order and stop at the page's end; a rank is a
            # count of the entries ahead (players.selectors.rankings). The condition
            # is RATING_LOW_DEVIATION (players.checks holds the two equal).
            # With the player, a page's walk past the flagged players' ratings reads the
            # index alone: a deep page reads a thousand entries, not a thousand rows; with
            # every column a ranking row shows, the page's own rows too (ranked_rows).
            models.Index(
                fields=["-value", "id"],
                include=[*RANKED_ROW_COLUMNS, "character", *RANKED_INDEX_EXTRA],
                name="rating_ranked_idx",
                condition=Q(deviation__lt=RANKED_INDEX_DEVIATION),
            ),
            # With the player, the top-N brackets read a character's best ratings from
            # the index alone (players.selectors.rankings.top_rated_keys); so do a
            # character's ranking rows, with their other columns.
            models.Index(
                fields=["character", "-value", "id"],
                include=[*RANKED_ROW_COLUMNS, *RANKED_INDEX_EXTRA],
                name="rating_char_ranked_idx",
                condition=Q(deviation__lt=RANKED_INDEX_DEVIATION),
            ),
            models.Index(fields=["last_played_at"], name="rating_last_played_idx"),
            # Fair-opponent suggestions look at a value window around a rating.
            models.Index(fields=["value", "id"], name="rating_value_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id}/{self.character_id} {rating_text(self.value, self.deviation)}"

    @property
    def games(self) -> int:
        return self.wins + self.losses


class RatingSnapshot(models.Model):
    """A rating at the end of a day it was played, for long history charts."""

    # Keyed by (rating, day): the one index a rating's history is read along, and the only
    # one a recompute builds (a surrogate id was a second index over 18 million rows at ten
    # million games that nothing read). Derived rows written only by the rating service
    # in the transaction that writes their rating: no per-row database check.
    pk = models.CompositePrimaryKey("rating", "day")
    rating = models.ForeignKey(
        Rating,
        on_delete=models.CASCADE,
        related_name="snapshots",
        db_index=False,
        db_constraint=False,
    )
    day = models.DateField()
    value = models.FloatField()
    deviation = models.FloatField()

    def __str__(self) -> str:
        return f"{self.rating_id} on {self.day}"


class PlayerMatchup(models.Model):
    """How one rating fares against one opposing character (docs/rating-model.md#matchups): running
    sums over the rating's counted games, from which the matchup offset is estimated
    (matches.ratings.matchup_offset). Sums do not depend on the order of the games."""

    # Keyed by (rating, opponent_character), like RatingSnapshot by (rating, day).
    pk = models.CompositePrimaryKey("rating", "opponent_character")
    rating = models.ForeignKey(
        Rating,
        on_delete=models.CASCADE,
        related_name="matchups",
        db_index=False,
        db_constraint=False,
    )
    # Not indexed alone: every read goes through the rating (13 million rows and 6 s of
    # each recompute at ten million games for an index nothing used).
    opponent_character = models.ForeignKey(
        Character, on_delete=models.PROTECT, related_name="+", db_constraint=False, db_index=False
    )
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    expected_wins = models.FloatField(
        default=0.0, help_text="Wins expected from the pre-game ratings alone"
    )
    information = models.FloatField(
        default=0.0, help_text="Sum of p(1 - p) of those pre-game win probabilities"
    )

    def __str__(self) -> str:
        return f"{self.rating_id} vs {self.opponent_character_id}"


class Ownership(models.Model):
    """A claimed profile (players.services.ownership): its owner key, kept only as a hash
    made by Django's password hashers, and the person it belongs to (linked accounts)."""

    player = models.OneToOneField(
        Player, on_delete=models.CASCADE, primary_key=True, related_name="ownership"
    )
    key_hash = models.CharField(max_length=256)
    # Raised by every new key (a claim again, a rotation) and by a revocation: a browser
    # signed in under an older one is signed out, and told why.
    key_version = models.PositiveIntegerField(default=0)
    claimed_at = models.DateTimeField()
    # When a new claim last replaced the key (a lost key): told to the old owner's browser.
    replaced_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # Accounts linked by their owner share one person ("also plays as").
    person = models.UUIDField(null=True, blank=True, db_index=True)

    def __str__(self) -> str:
        return f"owner of {self.player_id}"


class Claim(models.Model):
    """A claim on a profile, started in one browser, completed by a replay of that player
    whose name holds the code; the browser that holds the token then collects the key."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="claims")
    code = models.CharField(max_length=16)
    token_hash = models.CharField(max_length=64)  # SHA-256 of the browser's claim token
    started_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    completed_at = models.DateTimeField(null=True, blank=True)
    # Closed unused: another claim on the profile completed first, or the owner cancelled.
    closed_at = models.DateTimeField(null=True, blank=True)
    # The ownership's key version this claim's completion made; its key is issued once.
    key_version = models.PositiveIntegerField(null=True, blank=True)
    key_issued_at = models.DateTimeField(null=True, blank=True)
    client_address = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        indexes = [
            # Every stored batch of games looks up the open claims: few, indexed alone.
            models.Index(
                fields=["expires_at"],
                name="claim_open_idx",
                condition=Q(completed_at__isnull=True, closed_at__isnull=True),
            )
        ]

    def __str__(self) -> str:
        return f"claim on {self.player_id} from {self.started_at:%Y-%m-%d %H:%M}"


class OwnershipEvent(models.Model):
    """The log of ownership changes: what, when, by whom and from which client address."""

    class Kind(models.TextChoices):
        CLAIM_STARTED = "claim-started", "claim started"
        CLAIMED = "claimed", "claimed by a replay"
        KEY_ISSUED = "key-issued", "key shown to the claiming browser"
        KEY_ROTATED = "key-rotated", "key rotated"
        PRIVATE = "private", "made private"
        PUBLIC = "public", "made public"
        LINKED = "linked", "linked"
        UNLINKED = "unlinked", "unlinked"
        REVOKED = "revoked", "revoked by an operator"

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ownership_events")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    at = models.DateTimeField()
    by = models.CharField(max_length=150)  # "owner", "replay", an operator's user name
    client_address = models.GenericIPAddressField(null=True, blank=True)
    detail = models.CharField(max_length=200, blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=["player", "-at"], name="ownership_event_player_idx")]

    def __str__(self) -> str:
        return f"{self.player_id} {self.kind} at {self.at:%Y-%m-%d %H:%M}"
