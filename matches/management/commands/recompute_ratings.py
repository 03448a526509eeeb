import time

from django.core.management.base import BaseCommand, CommandParser

from matches.services.rating.recompute import recompute_all_ratings


class Command(BaseCommand):
    help = (
        "Forget all ratings and rebuild them from every stored match (after changing parameters)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--chunk-size", type=int, default=50_000)

    def handle(self, *args, chunk_size: int, **options) -> None:
        started = time.perf_counter()

        def progress(rated: int) -> None:
            if options["verbosity"] > 1:
                self.stdout.write(f"  {rated} matches replayed")

        run = recompute_all_ratings(chunk_size=chunk_size, progress=progress)
        seconds = time.perf_counter() - started
        rate = run.rated / seconds if seconds else 0.0
        self.stdout.write(
            f"recomputed {run.rated} matches ({run.counted} counted) in {seconds:.1f} s, "
            f"{rate:,.0f} games/s"
        )
