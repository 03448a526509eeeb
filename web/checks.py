"""Deploy checks for what Django's own checks cannot see."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Tags, register


@register(Tags.security, deploy=True)
def secret_key_from_environment(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """A site that is not DEBUG needs SECRET_KEY from its environment: the per-install key
    in VAR_DIR differs between hosts (sessions and signatures would not carry across) and
    lives beside the data it protects."""
    if settings.DEBUG or settings.SECRET_KEY_FROM_ENVIRONMENT:
        return []
    return [
        Error(
            "SECRET_KEY is not set in the environment: the site runs on a per-install key "
            "generated in VAR_DIR.",
            hint="Set SECRET_KEY to a long random value shared by every host of the site.",
            id="web.E001",
        )
    ]
