from datetime import datetime

from django.core.management.base import BaseCommand, CommandError, CommandParser

from matches.management.commands.evaluate_ratings import iso_moment
from matches.services.tuning import (
    DEFAULT_HELD_OUT,
    DEFAULT_ROUNDS,
    SYSTEM_NAMES,
    glicko_settings,
    tune,
)


class Command(BaseCommand):
    help = (
        "Tune each rating system's own parameters on the earlier part of the stored history "
        "and score it on the later part; print, per system, the best parameters and the "
        "held-out log loss, and the settings that make the site run its best."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--held-out",
            type=float,
            default=DEFAULT_HELD_OUT,
            help=f"share of the latest matches that is scored (default {DEFAULT_HELD_OUT})",
        )
        parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
        parser.add_argument("--since", type=iso_moment, help="only matches from this ISO date on")
        parser.add_argument(
            "--systems",
            default=",".join(SYSTEM_NAMES),
            help=f"comma-separated, from {', '.join(SYSTEM_NAMES)} (default: all)",
        )
        parser.add_argument(
            "--processes", type=int, help="systems tuned side by side (default: one per core)"
        )

    def handle(
        self,
        *args,
        held_out: float,
        rounds: int,
        since: datetime | None,
        systems: str,
        processes: int | None,
        **options,
    ) -> None:
        names = [name.strip() for name in systems.split(",") if name.strip()]
        try:
            history, results = tune(
                systems=names, held_out=held_out, since=since, rounds=rounds, processes=processes
            )
        except ValueError as error:
            raise CommandError(str(error)) from error
        if not history.held_out:
            raise CommandError("no stored games to score: import some matches first")
        self.stdout.write(
            f"learned from the first {history.training:,} games, scored the next "
            f"{history.held_out:,}"
        )
        self.stdout.write(
            f"{'system':<12}{'held-out log loss':>18}{'(defaults)':>12}  best parameters"
        )
        for result in sorted(results, key=lambda r: r.search.loss):
            parameters = " ".join(
                f"{name}={value:.4g}" for name, value in result.search.best.items()
            )
            self.stdout.write(
                f"{result.name:<12}{result.search.loss:>18.5f}{result.search.start_loss:>12.5f}  "
                f"{parameters}  ({result.search.evaluations} passes)"
            )
        site = next((r for r in results if r.name == "glicko"), None)
        if site is None:
            return
        if site.search.best == site.start:
            self.stdout.write("the site's current settings are the best found")
            return
        settings = " ".join(
            f"{setting}={value:.4g}" for setting, value in glicko_settings(site.search.best).items()
        )
        self.stdout.write(
            f"to run the site's Glicko at its best: set {settings} and run "
            "manage.py recompute_ratings"
        )
