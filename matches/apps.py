from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = "Matches and ingestion"

    def ready(self) -> None:
        from matches import signals  # noqa: F401 - connects the receivers
