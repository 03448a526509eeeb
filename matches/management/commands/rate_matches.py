from django.core.management.base import BaseCommand, CommandParser

from matches.services.rating.incremental import rate_pending_matches
from matches.services.refresh import refresh_site


class Command(BaseCommand):
    help = (
        "Rate every stored match that is not rated yet, in time order, then run the periodic "
        "refresh (as `refresh` does) so that the pages are complete without a worker."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch-size", type=int, default=None)

    def handle(self, *args, batch_size: int | None, **options) -> None:
        # Waits for a refresh or recompute holding the writer's lock: run by hand, stopping
        # after a batch would leave most of the games pending without a word.
        run = rate_pending_matches(batch_size=batch_size, wait=True)
        self.stdout.write(
            f"rated {run.rated} matches in {run.batches} batches, {run.counted} counted"
        )
        refresh_site()
        self.stdout.write("refreshed ratings, ranks and statistics")
