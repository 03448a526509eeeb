from django.apps import AppConfig


class WebConfig(AppConfig):
    """Shared web plumbing; as an app it registers its system checks and the failed-login
    receiver, and replaces createsuperuser (web.management.commands.createsuperuser)."""

    name = "web"

    def ready(self) -> None:
        from web import admin_logins, checks  # noqa: F401  (registers the checks, the receiver)
