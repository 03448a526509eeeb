from django.apps import AppConfig


class PlayersConfig(AppConfig):
    name = "players"
    verbose_name = "Players and ratings"

    def ready(self) -> None:
        from players import checks  # noqa: F401  (registers the checks)
