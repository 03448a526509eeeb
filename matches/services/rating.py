"""The rating pipeline (DESIGN.md section 4.6, step 2): stored matches become ratings.

One writer at a time rates unrated matches in (played_at, id) order, a batch per
transaction: load every state the batch touches in a few queries, apply the games in
memory (matches.ratings.ledger), write everything back with bulk statements and mark
the batch rated in the same transaction. A crash leaves a whole batch or nothing, and
a retried or concurrent run rates nothing twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from matches.dbfunctions import EpochSeconds
from matches.generation import bump_generation
from matches.models import CharacterMatchup, Match, MatchRating, PendingMatch
from matches.ratings.glicko import GlickoParams, decay
from matches.ratings.ledger import (
    BRACKETS,
    Game,
    GameResult,
    MatchupState,
    RatingKey,
    RatingLedger,
    RatingState,
)
from matches.services import bulk
from matches.services.locks import RATING_WRITER_LOCK, acquire_transaction_lock
from matches.services.memory import paused_garbage_collection
from players.models import Player, PlayerMatchup, Rating, RatingSnapshot

logger = logging.getLogger(__name__)

# Keeps IN (...) lists under SQLite's limit on bound variables.
_IN_CHUNK = 10_000
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()


def _game_columns(prefix: str = "") -> tuple[str, ...]:
    """What a Game is read from; the query annotates `epoch` (played_at in epoch seconds)."""
    fields = ("player_a_id", "character_a_id", "player_b_id", "character_b_id", "winner")
    return (f"{prefix}id", "epoch", *(prefix + field for field in fields))


RATING_STATE_COLUMNS = (
    "value",
    "deviation",
    "wins",
    "losses",
    "last_played_at",
    "last_decay_at",
    "peak_value",
    "peak_deviation",
    "peak_at",
    "best_win_opponent_id",
    "best_win_character_id",
    "best_win_value",
    "best_win_deviation",
    "best_win_at",
)
PLAYER_MATCHUP_COLUMNS = (
    "rating_id",
    "opponent_character_id",
    "wins",
    "losses",
    "value",
    "deviation",
    "last_decay_at",
)
_RATING_TIME_COLUMNS = frozenset({"last_played_at", "last_decay_at", "peak_at", "best_win_at"})


@dataclass(frozen=True)
class RatingRun:
    """What one call rated; `busy` when another writer held the lock."""

    rated: int = 0
    counted: int = 0
    batches: int = 0
    busy: bool = False


def glicko_params() -> GlickoParams:
    """The site's Glicko constants, from settings."""
    return GlickoParams(
        initial_rating=settings.RATING_INITIAL,
        initial_deviation=settings.RATING_INITIAL_DEVIATION,
        minimum_deviation=settings.RATING_MINIMUM_DEVIATION,
        decay_constant=settings.RATING_DECAY_CONSTANT,
        decay_period_seconds=settings.RATING_DECAY_PERIOD_SECONDS,
        maximum_deviation=settings.RATING_MAXIMUM_DEVIATION,
        low_deviation=settings.RATING_LOW_DEVIATION,
        update_damping=settings.RATING_UPDATE_DAMPING,
        counting_margin=settings.RATING_COUNTING_MARGIN,
        counting_rms_deviation=settings.RATING_COUNTING_RMS_DEVIATION,
    )


def character_matchup_params() -> GlickoParams:
    params = glicko_params()
    return GlickoParams(
        initial_rating=params.initial_rating,
        initial_deviation=params.initial_deviation,
        minimum_deviation=settings.MATCHUP_MINIMUM_DEVIATION,
        maximum_deviation=params.maximum_deviation,
        update_damping=params.update_damping,
    )


def _epoch(moment: datetime | None) -> float | None:
    return None if moment is None else moment.timestamp()


def _moment(epoch: float | None) -> datetime | None:
    return None if epoch is None else datetime.fromtimestamp(epoch, UTC)


def _rows(queryset: QuerySet) -> list[tuple]:
    """A values_list queryset's rows straight from the driver: at a million rows, Django's
    row-by-row iterator costs more than the query."""
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _games(rows: Iterable[tuple]) -> list[Game]:
    """Games from rows of GAME_COLUMNS (played_at already in epoch seconds)."""
    return [
        Game(match_id, played_at, pa, ca, pb, cb, winner == Match.Winner.A)
        for match_id, played_at, pa, ca, pb, cb, winner in rows
    ]


def _chunks(values: list, size: int = _IN_CHUNK) -> Iterator[list]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _new_ledger(excluded: Iterable[str], ranks: dict[RatingKey, int]) -> RatingLedger:
    return RatingLedger(
        params=glicko_params(),
        character_matchup_params=character_matchup_params(),
        excluded_players=frozenset(excluded),
        character_ranks=ranks,
    )


def _load_ledger(games: list[Game]) -> RatingLedger:
    """Every state the batch touches, in one query per table."""
    player_ids = sorted({p for game in games for p in (game.player_a, game.player_b)})
    excluded: list[str] = []
    ratings: dict[RatingKey, RatingState] = {}
    ranks: dict[RatingKey, int] = {}
    for chunk in _chunks(player_ids):
        excluded += Player.objects.filter(
            Q(hidden=True) | Q(cheater=True), id__in=chunk
        ).values_list("id", flat=True)
        for row in Rating.objects.filter(player_id__in=chunk).values_list(
            "id", "player_id", "character_id", "character_rank", *RATING_STATE_COLUMNS
        ):
            key = (row[1], row[2])
            ratings[key] = _rating_state(row[0], row[4:])
            if row[3] is not None:
                ranks[key] = row[3]
    ledger = _new_ledger(excluded, ranks)
    ledger.ratings = ratings
    by_id = {state.rating_id: key for key, state in ratings.items()}
    for chunk in _chunks(list(by_id)):
        for (
            rating_id,
            opponent,
            wins,
            losses,
            value,
            deviation,
            last_decay,
        ) in PlayerMatchup.objects.filter(rating_id__in=chunk).values_list(*PLAYER_MATCHUP_COLUMNS):
            ledger.player_matchups[(by_id[rating_id], opponent)] = MatchupState(
                value, deviation, wins, losses, last_decay.timestamp()
            )
    for (
        bracket,
        character,
        opponent,
        wins,
        losses,
        value,
        deviation,
    ) in CharacterMatchup.objects.values_list(
        "bracket", "character_id", "opponent_id", "wins", "losses", "value", "deviation"
    ):
        ledger.character_matchups[(bracket, character, opponent)] = MatchupState(
            value, deviation, wins, losses
        )
    return ledger


def _rating_state(rating_id: int, values: tuple) -> RatingState:
    fields = dict(zip(RATING_STATE_COLUMNS, values, strict=True))
    for name in _RATING_TIME_COLUMNS:
        fields[name] = _epoch(fields[name])
    fields["best_win_opponent"] = fields.pop("best_win_opponent_id")
    fields["best_win_character"] = fields.pop("best_win_character_id")
    value, deviation = fields.pop("value"), fields.pop("deviation")
    return RatingState(value, deviation, rating_id=rating_id, **fields)


def _rating_row(key: RatingKey, state: RatingState) -> tuple:
    return (
        key[0],
        key[1],
        state.value,
        state.deviation,
        state.wins,
        state.losses,
        _moment(state.last_played_at),
        _moment(state.last_decay_at),
        state.peak_value,
        state.peak_deviation,
        _moment(state.peak_at),
        state.best_win_opponent,
        state.best_win_character,
        state.best_win_value,
        state.best_win_deviation,
        _moment(state.best_win_at),
    )


def _save(
    model: type, columns: tuple, rows: Iterable[tuple], conflict_columns: tuple, *, fresh: bool
) -> None:
    """Write rows: straight in when the table was just emptied (a recompute), else upsert."""
    if fresh:
        bulk.insert(model, columns, rows)
    else:
        bulk.upsert(model, columns, rows, conflict_columns=conflict_columns)


def _write_ratings(ledger: RatingLedger, keys: Iterable[RatingKey], *, fresh: bool) -> None:
    """Write the given ratings, then learn the ids of those that were new."""
    keys = list(keys)
    _save(
        Rating,
        ("player_id", "character_id", *RATING_STATE_COLUMNS),
        (_rating_row(key, ledger.ratings[key]) for key in keys),
        ("player_id", "character_id"),
        fresh=fresh,
    )
    new_players = sorted({key[0] for key in keys if ledger.ratings[key].rating_id is None})
    ids = Rating.objects.values_list("id", "player_id", "character_id")
    # After a reset every rating is new: one read of the whole table beats lists of ids.
    pages = [ids] if fresh else (ids.filter(player_id__in=chunk) for chunk in _chunks(new_players))
    for page in pages:
        for rating_id, player_id, character_id in _rows(page):
            state = ledger.ratings.get((player_id, character_id))
            if state is not None:
                state.rating_id = rating_id


def _write_matchups(ledger: RatingLedger, *, fresh: bool) -> None:
    _save(
        PlayerMatchup,
        PLAYER_MATCHUP_COLUMNS,
        (
            (
                ledger.ratings[key].rating_id,
                opponent,
                m.wins,
                m.losses,
                m.value,
                m.deviation,
                _moment(m.last_decay_at),
            )
            for (key, opponent), m in (
                (k, ledger.player_matchups[k]) for k in ledger.touched_player_matchups
            )
        ),
        ("rating_id", "opponent_character_id"),
        fresh=fresh,
    )
    _save(
        CharacterMatchup,
        ("bracket", "character_id", "opponent_id", "wins", "losses", "value", "deviation"),
        (
            (*key, m.wins, m.losses, m.value, m.deviation)
            for key, m in (
                (k, ledger.character_matchups[k]) for k in ledger.touched_character_matchups
            )
        ),
        ("bracket", "character_id", "opponent_id"),
        fresh=fresh,
    )
    ledger.touched_player_matchups.clear()
    ledger.touched_character_matchups.clear()


def _write_snapshots(ledger: RatingLedger, snapshots: dict, *, fresh: bool) -> None:
    days: dict[int, date] = {}  # a few hundred distinct days among a million snapshots

    def day_date(day: int) -> date:
        found = days.get(day)
        if found is None:
            found = days[day] = date.fromordinal(_EPOCH_ORDINAL + day)
        return found

    ratings = ledger.ratings
    _save(
        RatingSnapshot,
        ("rating_id", "day", "value", "deviation"),
        (
            (ratings[key].rating_id, day_date(day), value, deviation)
            for (key, day), (value, deviation) in snapshots.items()
        ),
        ("rating_id", "day"),
        fresh=fresh,
    )


def _write_results(results: list[GameResult], rated_at: datetime) -> None:
    bulk.insert(
        MatchRating,
        (
            "match_id",
            "rated_at",
            "counted",
            "value_a",
            "deviation_a",
            "change_a",
            "value_b",
            "deviation_b",
            "change_b",
        ),
        (
            (
                r.match_id,
                rated_at,
                r.counted,
                r.value_a,
                r.deviation_a,
                r.change_a,
                r.value_b,
                r.deviation_b,
                r.change_b,
            )
            for r in results
        ),
    )


def _claim(games: list[Game]) -> int:
    """Take the batch off the pending queue; returns how many of its matches were still there."""
    ids = [game.match_id for game in games]
    return sum(
        PendingMatch.objects.filter(match_id__in=chunk)._raw_delete(PendingMatch.objects.db)
        for chunk in _chunks(ids)
    )


def _write_ledger(ledger: RatingLedger, *, fresh: bool = False) -> None:
    """Write what the ledger changed; `fresh` when the derived tables were just emptied."""
    _write_ratings(ledger, ledger.touched_ratings, fresh=fresh)
    ledger.touched_ratings.clear()
    _write_matchups(ledger, fresh=fresh)
    _write_snapshots(ledger, ledger.take_snapshots(), fresh=fresh)


class ClaimLost(RuntimeError):
    """Some matches of a batch were rated by someone else meanwhile; the batch rolls back."""


def rate_pending_matches(
    *, batch_size: int | None = None, max_batches: int | None = None
) -> RatingRun:
    """Rate unrated matches in (played_at, id) order until none remain (or max_batches)."""
    batch_size = batch_size or settings.RATING_BATCH_SIZE
    rated = counted = batches = 0
    while max_batches is None or batches < max_batches:
        with transaction.atomic():
            if not acquire_transaction_lock(RATING_WRITER_LOCK, wait=False):
                return RatingRun(rated, counted, batches, busy=True)
            games = _games(
                PendingMatch.objects.order_by("played_at", "match_id")
                .annotate(epoch=EpochSeconds("match__played_at"))
                .values_list(*_game_columns("match__"))[:batch_size]
            )
            if not games:
                break
            if _claim(games) != len(games):
                raise ClaimLost("a concurrent writer rated part of this batch")
            ledger = _load_ledger(games)
            results = [ledger.apply(game) for game in games]
            _write_ledger(ledger)
            _write_results(results, timezone.now())
        rated += len(results)
        counted += sum(r.counted for r in results)
        batches += 1
    if rated:
        bump_generation()
    return RatingRun(rated, counted, batches)


def matches_in_order(matches: QuerySet[Match], chunk_size: int = 50_000) -> Iterator[list[Game]]:
    """The matches in (played_at, id) order, a chunk at a time (keyset pages, no open cursor)."""
    queryset = (
        matches.order_by("played_at", "id")
        .annotate(epoch=EpochSeconds("played_at"))
        .values_list(*_game_columns())
    )
    page = _rows(queryset[:chunk_size])
    while page:
        yield _games(page)
        last_id = page[-1][0]
        last_played_at = Match.objects.values_list("played_at", flat=True).get(id=last_id)
        # The redundant `played_at >= last` is what the index can seek to; the OR alone
        # would make every page scan the index from the first game.
        page = _rows(
            queryset.filter(
                Q(played_at__gt=last_played_at) | Q(id__gt=last_id),
                played_at__gte=last_played_at,
            )[:chunk_size]
        )


_DERIVED_MODELS = (
    MatchRating,
    PendingMatch,
    RatingSnapshot,
    PlayerMatchup,
    CharacterMatchup,
    Rating,
)


# The big derived tables, which a recompute fills without their indexes; no database
# foreign key points at any of them.
_BULK_LOADED_MODELS = (MatchRating, RatingSnapshot, PlayerMatchup, Rating)


def _reset_derived_tables() -> None:
    """Empty everything rating derives from matches, the pending queue included."""
    if connection.vendor == "postgresql":
        tables = [model._meta.db_table for model in _DERIVED_MODELS]
        with connection.cursor() as cursor:
            # TRUNCATE refuses to run while deferred foreign-key checks are pending.
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute(f"TRUNCATE {', '.join(tables)}")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        return
    for model in _DERIVED_MODELS:
        model.objects.all()._raw_delete(model.objects.db)


def recompute_all_ratings(
    *, chunk_size: int = 50_000, progress: Callable[[int], None] | None = None
) -> RatingRun:
    """Forget every rating and rebuild all of them from the stored matches, in one transaction.

    The whole history runs through one in-memory ledger; match results are written a
    chunk at a time and ratings, matchups and snapshots once at the end, into tables
    whose indexes are built after the load. The tables are emptied with TRUNCATE, so
    their readers wait for the commit (cached pages are still served). Ranks
    and the top-N matchup brackets are rebuilt afterwards from the new ratings.
    """
    from matches.services.statistics import refresh_ranks

    rated = counted = batches = 0
    with paused_garbage_collection(), transaction.atomic():
        acquire_transaction_lock(RATING_WRITER_LOCK, wait=True)
        _reset_derived_tables()
        excluded = Player.objects.filter(Q(hidden=True) | Q(cheater=True)).values_list(
            "id", flat=True
        )
        ledger = _new_ledger(excluded, {})
        ledger.brackets = BRACKETS[:1]
        rated_at = timezone.now()
        # Kept for the top-N brackets, which need the final ranks: cheaper in memory
        # than reading a million games back from the database.
        counted_games: list[Game] = []
        with bulk.indexes_built_after(_BULK_LOADED_MODELS):
            for games in matches_in_order(Match.objects.all(), chunk_size):
                results = [ledger.apply(game) for game in games]
                _write_results(results, rated_at)
                counted_games += [g for g, r in zip(games, results, strict=True) if r.counted]
                rated += len(results)
                batches += 1
                if progress is not None:
                    progress(rated)
            _write_ledger(ledger, fresh=True)
        counted = len(counted_games)
        refresh_ranks()
        rebuild_bracket_matchups(counted_games)
    bulk.analyze(_DERIVED_MODELS)
    bump_generation()
    return RatingRun(rated, counted, batches)


def rebuild_bracket_matchups(counted_games: Iterable[Game] | None = None) -> None:
    """Rebuild the top-N character matchup brackets from all counted games and current ranks.

    Live rating files a game under a top-N bracket by the ranks of the moment; after a
    recompute there are no such moments to replay, so the current ranks decide. The
    counted games are read from the database unless given (in time order).
    """
    largest = max(limit for _, limit in BRACKETS if limit is not None)
    ranks = {
        (player_id, character_id): rank
        for player_id, character_id, rank in Rating.objects.filter(
            character_rank__lte=largest
        ).values_list("player_id", "character_id", "character_rank")
    }
    ledger = _new_ledger((), ranks)
    ledger.brackets = BRACKETS[1:]
    if counted_games is None:
        counted_games = (
            game
            for games in matches_in_order(Match.objects.filter(rating__counted=True))
            for game in games
        )
    for game in counted_games:
        ledger.apply_character_matchups(game)
    CharacterMatchup.objects.exclude(bracket=CharacterMatchup.Bracket.ALL).delete()
    _write_matchups(ledger, fresh=True)


def decay_all_ratings(now: datetime | None = None) -> int:
    """Grow the deviation of every idle rating below the cap up to `now`; returns how many changed.

    Runs under the rating writer lock, so it never overwrites a batch's fresh ratings.
    """
    params = glicko_params()
    moment = (now or timezone.now()).timestamp()
    with transaction.atomic():
        acquire_transaction_lock(RATING_WRITER_LOCK, wait=True)
        rows = []
        for rating_id, deviation, last_decay_at in Rating.objects.filter(
            deviation__lt=params.maximum_deviation, last_decay_at__isnull=False
        ).values_list("id", "deviation", "last_decay_at"):
            new_deviation, new_last_decay = decay(
                deviation, last_decay_at.timestamp(), moment, params
            )
            if new_last_decay != last_decay_at.timestamp():
                rows.append((rating_id, new_deviation, _moment(new_last_decay)))
        return bulk.update(Rating, "id", ("deviation", "last_decay_at"), rows) if rows else 0
