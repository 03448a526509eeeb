from django.apps import AppConfig


class WebConfig(AppConfig):
    """Shared web plumbing; as an app it registers its system checks, the failed-login
    receiver and the worker's heartbeat on /metrics, and replaces createsuperuser
    (web.management.commands.createsuperuser)."""

    name = "web"

    def ready(self) -> None:
        from django.core.signals import request_finished

        from web import admin_logins, checks  # noqa: F401  (registers the checks, the receiver)
        from web.celery_metrics import HeartbeatCollector
        from web.logs import forget_request_id
        from web.metrics import add_scrape_collector, count_failed_login

        add_scrape_collector(HeartbeatCollector())
        admin_logins.admin_login_failed.connect(count_failed_login, dispatch_uid="count_logins")
        request_finished.connect(forget_request_id, dispatch_uid="forget_request_id")
