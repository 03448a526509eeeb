"""What happened: matches, where they came from, and the statistics derived from them."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import BrinIndex
from django.db import models
from django.db.models import Q
from django.db.models.functions import Coalesce

from players import rules
from players.fields import IdentifierField
from players.models import Character, Player


class ReplaySource(models.Model):
    """Somewhere replays come from; `cursor` is how far its feed has been read."""

    class Kind(models.TextChoices):
        FILE = "file", "File import"
        HTTP = "http", "HTTP feed"
        DIRECTORY = "directory", "Watched directory"
        SIMULATOR = "simulator", "Simulated league"

    name = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    settings = models.JSONField(default=dict, blank=True)
    cursor = models.CharField(max_length=255, blank=True, default="")
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class Patch(models.Model):
    """A version of the game (docs/rating-model.md#patches): the build or patch strings its
    replays report, and when it went live. A game belongs to the patch that lists its
    version, else (no version, or one no patch lists) to the latest patch live at its
    time; `Match.patch` records it (matches.services.patches)."""

    name = models.CharField(max_length=64, unique=True)
    versions = ArrayField(
        models.CharField(max_length=64),
        blank=True,
        default=list,
        help_text="The version strings replays of this patch report, comma-separated",
    )
    live_at = models.DateTimeField(unique=True, help_text="When the patch went live")

    class Meta:
        ordering = ("-live_at",)
        verbose_name_plural = "patches"

    def __str__(self) -> str:
        return self.name


class MatchQuerySet(models.QuerySet["Match"]):
    def pending(self) -> MatchQuerySet:
        """Stored but not rated yet."""
        return self.filter(pending__isnull=False)

    def with_rating(self) -> MatchQuerySet:
        """With what rating did with each match (None for pending ones)."""
        return self.select_related("rating")

    def visible(self) -> MatchQuerySet:
        """Matches that may be shown: hidden players' games are kept but never shown.

        Hidden players are few: leaving out their ids (one small hashed set) costs a
        fraction of joining every match to both its players, which the refresh's counts
        over millions of games would otherwise do."""
        hidden = Player.objects.filter(rules.hidden()).values("id")
        return self.exclude(player_a__in=hidden).exclude(player_b__in=hidden)

    def of_rating(self, player_id: str, character_id: int) -> MatchQuerySet:
        return self.filter(
            Q(player_a_id=player_id, character_a_id=character_id)
            | Q(player_b_id=player_id, character_b_id=character_id)
        )


class Match(models.Model):
    """One game, stored once however often it is delivered; never changed afterwards.

    Side A is the player with the smaller id, so the same game reported by two
    sources with the sides swapped still meets the (reported or played time, A, B)
    constraint.
    What rating made of the game lives in MatchRating (`match.rating`), which a
    recompute rewrites wholesale without touching these rows.
    """

    class Winner(models.TextChoices):
        A = "A", "Side A"
        B = "B", "Side B"

    # Foreign keys carry no index of their own here: the composite indexes and unique
    # constraints below lead with them, and every index costs each of millions of inserts.
    # Characters are checked against the roster at ingestion and never deleted, sources
    # are protected from deletion, and ingestion writes a game's players in the same
    # transaction as the game (matches.services.ingest), so these keys also skip the
    # database's per-row constraint check: two million checks at the commit of a
    # million-game import, a fifth of its time. Deleting a player through Django still
    # deletes their games (on_delete runs in the ORM).
    source = models.ForeignKey(
        ReplaySource,
        on_delete=models.PROTECT,
        related_name="matches",
        db_index=False,
        db_constraint=False,
    )
    source_replay_id = IdentifierField(max_length=128)
    played_at = models.DateTimeField()
    # Null unless the source reported a time in the future: played_at is then the
    # ingestion time (the game is rated in arrival order) and this the reported time.
    reported_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Reported in the future at this time; stored at its ingestion time instead",
    )
    ingested_at = models.DateTimeField()
    floor = models.PositiveSmallIntegerField(null=True, blank=True)
    player_a = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
    )
    character_a = models.ForeignKey(
        Character, on_delete=models.PROTECT, related_name="+", db_index=False, db_constraint=False
    )
    platform_a = models.CharField(max_length=4, blank=True, default="")
    player_b = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
    )
    character_b = models.ForeignKey(
        Character, on_delete=models.PROTECT, related_name="+", db_index=False, db_constraint=False
    )
    platform_b = models.CharField(max_length=4, blank=True, default="")
    winner = models.CharField(max_length=1, choices=Winner.choices)
    version = models.CharField(
        max_length=64, blank=True, default="", help_text="The game's version the replay reported"
    )
    # Derived from the version and the time by matches.services.patches (set after the
    # game is stored, and again for the games a change to the patches can move): the
    # aggregates group by it. No index: every read of it is a whole-table aggregate. A
    # deleted patch's games keep its id until that re-placement moves them (and their
    # counts), rather than a null written in the admin's request through every game.
    patch = models.ForeignKey(
        Patch,
        on_delete=models.DO_NOTHING,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )

    objects = MatchQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "matches"
        constraints = [
            models.UniqueConstraint(
                fields=["source", "source_replay_id"], name="unique_source_replay"
            ),
            # The same game is the same reported moment of the same pair, whenever it
            # arrives: a corrected game is known by its reported time, not its arrival.
            models.UniqueConstraint(
                Coalesce("reported_at", "played_at"),
                "player_a",
                "player_b",
                name="unique_game_moment",
            ),
            models.CheckConstraint(
                condition=~Q(player_a=models.F("player_b")), name="match_not_against_self"
            ),
        ]
        # A rating's games newest first (played_at, then id) along one index, which a page
        # or the chart's last 1,000 games leave as soon as they have enough: with played_at
        # alone, the planner read and sorted every game of the range of a busy rating.
        # The version's (partial: a feed reporting none pays nothing) finds the games a
        # change to a patch's versions can move (matches.services.patches).
        indexes = [
            models.Index(
                fields=["player_a", "character_a", "played_at", "id"], name="match_side_a_idx"
            ),
            models.Index(fields=["version"], condition=~Q(version=""), name="match_version_idx"),
            models.Index(
                fields=["player_b", "character_b", "played_at", "id"], name="match_side_b_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player_a_id} vs {self.player_b_id} at {self.played_at:%Y-%m-%d %H:%M}"


class MatchRating(models.Model):
    """What rating made of a match: both sides' ratings before it, the chance shown, the
    changes, whether it counted.

    Kept apart from Match because it is derived: rating writes it once per match with
    a plain bulk insert, and recompute_ratings empties and refills it, which costs a
    fraction of updating millions of indexed match rows in place.
    """

    # Derived rows, written only by the rating service with the match already stored:
    # no per-row database check (a recompute writes millions of them at once).
    match = models.OneToOneField(
        Match,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="rating",
        db_constraint=False,
    )
    rated_at = models.DateTimeField()
    counted = models.BooleanField()
    value_a = models.FloatField(help_text="Side A's rating before the game")
    deviation_a = models.FloatField()
    change_a = models.FloatField()
    value_b = models.FloatField()
    deviation_b = models.FloatField()
    change_b = models.FloatField()
    chance_a = models.FloatField(
        help_text="Side A's chance the site showed before the game (glicko.chance): under "
        "one chance also the expected score both updates used"
    )

    class Meta:
        # The games rated since a time (the season counts' high-water mark): rows are
        # appended in rated_at order, so a block range index a few pages large serves it.
        indexes = [BrinIndex(fields=["rated_at"], name="matchrating_rated_at_brin")]

    def __str__(self) -> str:
        return f"rating of match {self.match_id}"


class PendingMatch(models.Model):
    """The queue of stored matches waiting to be rated, in the order they will be rated.

    Ingestion adds a row per new match; the rating writer claims a batch by deleting
    its rows in the transaction that stores the batch's ratings.
    """

    # A queue row: written and deleted by the services only, so no per-row database check.
    match = models.OneToOneField(
        Match,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="pending",
        db_constraint=False,
    )
    played_at = models.DateTimeField()

    class Meta:
        indexes = [models.Index(fields=["played_at", "match"], name="pending_order_idx")]

    def __str__(self) -> str:
        return f"match {self.match_id} waiting since {self.played_at:%Y-%m-%d %H:%M}"


class CharacterMatchup(models.Model):
    """Character X against character Y in a rating bracket (docs/rating-model.md#matchups): the
    offset m in rating points such that P(X side wins) = 1 / (1 + 10^(-(r_X - r_Y + m)/400)),
    fitted over the bracket's counted games. Rebuilt whole from the matches
    (matches.services.character_matchups); both orientations are stored, (Y, X) holding -m."""

    class Bracket(models.TextChoices):
        ALL = "all", "All"
        TOP1000 = "top1000", "Top 1000"
        TOP100 = "top100", "Top 100"
        PROPORTIONAL = "proportional", "Proportional"

    bracket = models.CharField(max_length=16, choices=Bracket.choices)
    # None: every game (all time); else the games of that patch.
    patch = models.ForeignKey(Patch, on_delete=models.CASCADE, null=True, related_name="+")
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    opponent = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+")
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    expected_wins = models.FloatField(
        default=0.0, help_text="Wins expected from the players' pre-game ratings alone"
    )
    offset = models.FloatField(default=0.0, help_text="Rating points X is worth against Y")
    standard_error = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["bracket", "patch", "character", "opponent"],
                name="unique_character_matchup",
                nulls_distinct=False,
            )
        ]

    def __str__(self) -> str:
        return f"{self.bracket}: {self.character_id} vs {self.opponent_id}"


# A top-N bracket holds the games where both players are among the N highest ranked of
# their character now; "all" holds every game.
BRACKET_LIMITS: dict[str, int | None] = {
    CharacterMatchup.Bracket.ALL: None,
    CharacterMatchup.Bracket.TOP1000: 1000,
    CharacterMatchup.Bracket.TOP100: 100,
}
# The proportional bracket holds the games where each player ranks within this many times
# their character's share of play (its ratings' games over every rating's): a popular
# character's top players and a rare one's, equally selective.
PROPORTIONAL_BRACKET_SIZE = 1000


class IngestRun(models.Model):
    """One pull from one source: what it fetched and how that went."""

    source = models.ForeignKey(ReplaySource, on_delete=models.CASCADE, related_name="runs")
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    fetched = models.PositiveIntegerField(default=0)
    new = models.PositiveIntegerField(default=0)
    duplicate = models.PositiveIntegerField(default=0)
    rejected = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True, default="")

    class Meta:
        indexes = [models.Index(fields=["source", "-started_at"], name="ingestrun_recent_idx")]
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.source_id} at {self.started_at:%Y-%m-%d %H:%M:%S}"

    @property
    def duration_seconds(self) -> float | None:
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


class RejectedReplay(models.Model):
    """A replay that failed validation, kept with its reason so nothing is lost silently,
    and ingested after all if it passes later (matches.services.kept_replays)."""

    source = models.ForeignKey(
        ReplaySource, on_delete=models.CASCADE, related_name="rejected", null=True, blank=True
    )
    run = models.ForeignKey(
        IngestRun, on_delete=models.SET_NULL, related_name="rejected_replays", null=True, blank=True
    )
    raw = models.TextField()
    # SHA-256 of the raw text: the same bad replay delivered again is kept once.
    fingerprint = models.CharField(max_length=64)
    reason = models.CharField(max_length=255)
    # A replay valid but for a character code the roster lacks waits for that character
    # (docs/roster.md): stored as a game once the character is added.
    waiting_for = models.CharField(max_length=4, blank=True, default="")
    created_at = models.DateTimeField()
    # When it was stored as a game after all (a character added, a rule relaxed): the row
    # stays, with its original source and run, and is never ingested again.
    ingested_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "fingerprint"], name="unique_rejected_replay")
        ]
        indexes = [
            models.Index(fields=["-created_at"], name="rejected_recent_idx"),
            models.Index(
                fields=["waiting_for", "created_at"],
                name="rejected_waiting_idx",
                condition=~Q(waiting_for="") & Q(ingested_at__isnull=True),
            ),
        ]
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.reason


class SiteStatistic(models.Model):
    """A precomputed figure or table (totals, distributions, popularity...) pages read as is."""

    key = models.CharField(primary_key=True, max_length=64)
    data = models.JSONField()
    computed_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.key


class PlayerFlagChange(models.Model):
    """A change of a player's flag made through matches.services.flags: which, to what, by
    whom, when.

    `recompute` follows a hidden or cheater change through the recompute it needs
    (matches.services.flags): queued, started (taken by a running recompute), done; a
    supporter change needs none."""

    class Flag(models.TextChoices):
        HIDDEN = "hidden"
        CHEATER = "cheater"
        SUPPORTER = "supporter"

    class Recompute(models.TextChoices):
        NONE = "", "not needed"
        QUEUED = "queued"
        STARTED = "started"
        DONE = "done"

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    flag = models.CharField(max_length=16, choices=Flag.choices)
    value = models.BooleanField()
    by = models.CharField(max_length=150, help_text="The operator (a user name) or the tool.")
    at = models.DateTimeField()
    recompute = models.CharField(
        max_length=8, choices=Recompute.choices, blank=True, default=Recompute.NONE
    )

    class Meta:
        ordering = ("-at", "-id")

    def __str__(self) -> str:
        return f"{self.flag} = {self.value}"


class Season(models.Model):
    """A stretch of time with its own ladder (README.md#seasons). Ratings run on through
    seasons; a season only chooses whom its ladder lists: the ranked ratings with at least
    SEASON_MIN_GAMES counted games played from its first day to its last (UTC days, the
    days of the daily rating snapshots its archive reads)."""

    name = models.SlugField(max_length=40, unique=True, help_text="Its URL: /seasons/<name>")
    start = models.DateField(help_text="Its first day (UTC)")
    end = models.DateField(help_text="Its last day (UTC), included")
    archived_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="When its final standings were kept"
    )
    counted_through = models.DateTimeField(
        null=True,
        blank=True,
        editable=False,
        help_text="SeasonGames counts the games rated up to this time; none: count afresh",
    )

    class Meta:
        ordering = ("-start",)
        constraints = [
            models.CheckConstraint(
                condition=Q(end__gte=models.F("start")), name="season_ends_after_start"
            )
        ]

    def __str__(self) -> str:
        return self.name


class CharacterMatchupSum(models.Model):
    """The whole field's character matchups' sums of counted games per patch (0: none),
    pair of characters (X on side A) and bin of the rating difference, kept by the refresh
    from the games rated since its mark, so that it adds its new games instead of summing
    every game again (matches.services.character_matchups)."""

    patch = models.IntegerField()
    character_a = models.IntegerField()
    character_b = models.IntegerField()
    difference_bin = models.IntegerField()
    games = models.BigIntegerField()
    wins = models.BigIntegerField()
    difference_sum = models.FloatField()
    expected_wins = models.FloatField()

    class Meta:
        # The increment's ON CONFLICT target.
        constraints = [
            models.UniqueConstraint(
                fields=["patch", "character_a", "character_b", "difference_bin"],
                name="unique_character_matchup_sum",
            )
        ]

    def __str__(self) -> str:
        return f"{self.games} games of {self.character_a} v {self.character_b} (patch {self.patch})"


class GameCount(models.Model):
    """The visible games of one UTC day, patch (0: none) and pair of characters (side A's
    first), kept as the games are placed in their patches, so that the refresh's counts
    by day, patch and character read these instead of every game
    (matches.services.game_counts)."""

    day = models.DateField()
    patch = models.IntegerField()
    character_a = models.IntegerField()
    character_b = models.IntegerField()
    games = models.BigIntegerField()

    class Meta:
        # The increment's ON CONFLICT target.
        constraints = [
            models.UniqueConstraint(
                fields=["day", "patch", "character_a", "character_b"], name="unique_game_count"
            )
        ]

    def __str__(self) -> str:
        return f"{self.games} games on {self.day}"


class SeasonGames(models.Model):
    """The counted games of one rating (player, character) in a season not archived yet,
    kept by the refresh from the games rated since the season's `counted_through`: a live
    ladder reads these instead of the season's games (matches.services.seasons)."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False
    )
    character = models.ForeignKey(
        Character, on_delete=models.PROTECT, related_name="+", db_constraint=False, db_index=False
    )
    games = models.PositiveIntegerField()

    class Meta:
        verbose_name_plural = "season games"
        # Its ON CONFLICT target, and a ladder's read of one season.
        constraints = [
            models.UniqueConstraint(
                fields=["season", "player", "character"], name="unique_season_games"
            )
        ]

    def __str__(self) -> str:
        return f"{self.games} games of {self.player_id} in season {self.season_id}"


class SeasonStanding(models.Model):
    """One place of a season's ladder, overall (`ladder` -1; character ids start at 0) or
    of one character (`ladder` its id): the archive once the season has ended (written
    once, never again), the live ladder as of the latest refresh before that. Copied, not
    referenced: a later name, rating or flag changes no archived row."""

    season = models.ForeignKey(Season, on_delete=models.CASCADE, related_name="standings")
    ladder = models.SmallIntegerField(help_text="-1: overall; else the character's id")
    rank = models.PositiveIntegerField()
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False
    )
    name = models.CharField(max_length=64, help_text="The player's name at the season's end")
    character = models.ForeignKey(
        Character, on_delete=models.PROTECT, related_name="+", db_constraint=False, db_index=False
    )
    value = models.FloatField()
    deviation = models.FloatField()
    games = models.PositiveIntegerField(help_text="Counted games played in the season")

    class Meta:
        # A page is a range of ranks of one ladder: one index walk, however deep.
        constraints = [
            models.UniqueConstraint(
                fields=["season", "ladder", "rank"], name="unique_season_ladder_rank"
            )
        ]

    def __str__(self) -> str:
        return f"{self.season_id}/{self.ladder} #{self.rank}"


class IntegrityFlag(models.Model):
    """A suspicion kept for the operators' review queue (matches.services.integrity): an
    alternate account (one rating) or a win-trading ring (its beneficiary, with its
    partners). Only operators see it; nothing public changes until one of them acts.

    A detector refreshes an open flag's evidence each time it fires again and never
    reopens a reviewed one (dismissed, marked cheater or linked)."""

    class Kind(models.TextChoices):
        ALTERNATE_ACCOUNT = "alt", "suspected alternate account"
        WIN_TRADING = "ring", "suspected win-trading"

    class Status(models.TextChoices):
        OPEN = "open"
        DISMISSED = "dismissed"
        CHEATER = "cheater", "marked cheater"
        LINKED = "linked", "linked to another player"

    kind = models.CharField(max_length=4, choices=Kind.choices)
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.OPEN)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="integrity_flags")
    character = models.ForeignKey(
        Character, on_delete=models.PROTECT, related_name="+", null=True, blank=True
    )
    games = models.PositiveIntegerField(help_text="Games the test read")
    wins = models.PositiveIntegerField()
    expected_wins = models.FloatField(help_text="Wins the model expected of those games")
    probability = models.FloatField(help_text="Chance under the model of a record this good")
    partners = ArrayField(
        IdentifierField(max_length=32), default=list, blank=True, help_text="A ring's others"
    )
    match_ids = ArrayField(models.BigIntegerField(), default=list, blank=True)
    first_flagged_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    reviewed_by = models.CharField(max_length=150, blank=True, default="")
    reviewed_at = models.DateTimeField(null=True, blank=True)
    linked_to = models.ForeignKey(
        Player, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ("-updated_at",)
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "player", "character"],
                name="one_integrity_flag_per_suspect",
                nulls_distinct=False,
            )
        ]
        indexes = [models.Index(fields=["status", "-updated_at"], name="integrity_flag_queue")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.player_id}"
