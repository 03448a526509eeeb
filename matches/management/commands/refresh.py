from django.core.management.base import BaseCommand

from matches.services.refresh import refresh_site


class Command(BaseCommand):
    help = (
        "Run the periodic refresh now, without a worker: what beat's refresh_statistics "
        "task does (decay idle ratings to now, character matchups, the site statistics, and "
        "on a new site the lab's first evaluation)."
    )

    def handle(self, *args, **options) -> None:
        refresh_site()
        self.stdout.write("refreshed ratings, ranks and statistics")
