from django.core.management.base import BaseCommand

from matches.services.statistics import refresh_statistics


class Command(BaseCommand):
    help = (
        "Run the periodic refresh now, without a worker: what beat's refresh_statistics "
        "task does (decay idle ratings to now, ranks, the site statistics)."
    )

    def handle(self, *args, **options) -> None:
        refresh_statistics()
        self.stdout.write("refreshed ratings, ranks and statistics")
