from django.core.management.base import BaseCommand, CommandParser

from matches.services.refresh import refresh_site


class Command(BaseCommand):
    help = (
        "Run the periodic refresh now, without a worker: what beat's refresh task "
        "(matches.tasks.refresh_site) does (decay idle ratings to now, character matchups, "
        "the site statistics, and on a new site the lab's first evaluation)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--no-lab",
            action="store_true",
            help="leave a new site's first lab evaluation to its daily task (it replays the "
            "whole history: a minute or so a million games)",
        )

    def handle(self, *args, no_lab: bool, **options) -> None:
        if no_lab:
            refresh_site(evaluate_lab=lambda: None)
        else:
            refresh_site()
        self.stdout.write("refreshed ratings, ranks and statistics")
