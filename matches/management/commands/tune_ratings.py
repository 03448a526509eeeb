from datetime import datetime

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.management.commands.evaluate_ratings import iso_moment
from matches.services.tuning import DEFAULT_HELD_OUT, DEFAULT_ROUNDS, SEARCH_SPACE, tune


class Command(BaseCommand):
    help = (
        "Search the decay constant, minimum deviation and counting margin for the lowest "
        "log loss on the later part of the stored history, and print them beside the "
        "current settings."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--held-out",
            type=float,
            default=DEFAULT_HELD_OUT,
            help="share of the latest matches that is scored (default 0.3)",
        )
        parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
        parser.add_argument("--since", type=iso_moment, help="only matches from this ISO date on")

    def handle(
        self, *args, held_out: float, rounds: int, since: datetime | None, **options
    ) -> None:
        try:
            result = tune(held_out=held_out, since=since, rounds=rounds)
        except ValueError as error:
            raise CommandError(str(error)) from error
        if not result.held_out_games:
            raise CommandError("no stored games to score: import some matches first")
        self.stdout.write(
            f"learned from the first {result.training_games:,} matches, scored the next "
            f"{result.held_out_games:,}; {result.tried} parameter sets in {result.passes} passes"
        )
        self.stdout.write(f"{'setting':<28}{'current':>10}{'best':>10}")
        for name, setting, _ in SEARCH_SPACE:
            current, best = getattr(result.current, name), getattr(result.best, name)
            self.stdout.write(f"{setting:<28}{current:>10g}{best:>10g}")
        losses = f"{result.current_log_loss:>10.4f}{result.best_log_loss:>10.4f}"
        self.stdout.write(f"{'held-out log loss':<28}{losses}")
        changes = [
            f"{setting}={getattr(result.best, name):g}"
            for name, setting, _ in SEARCH_SPACE
            if getattr(result.best, name) != getattr(result.current, name)
        ]
        if changes:
            self.stdout.write(
                f"to use them: set {' '.join(changes)} and run manage.py recompute_ratings"
            )
        else:
            self.stdout.write("the current settings are the best found")
