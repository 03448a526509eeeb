from django.apps import AppConfig


class WebConfig(AppConfig):
    """Shared web plumbing; as an app it registers its system checks."""

    name = "web"

    def ready(self) -> None:
        from web import checks  # noqa: F401  (registers the checks)
