"""Failed admin logins: where they come from, a log line each, and a signal to count them.

django-axes (settings: ADMIN_LOGIN_*) refuses an admin login once a client address or a
username has failed ADMIN_LOGIN_FAILURE_LIMIT times within the cool-off, even with the right
password, until the cool-off has passed since the last failure. This module:

- gives axes the client's address (``web.limits.client_address``, the API throttle's rule):
  ``X-Forwarded-For`` is read only when NUM_PROXIES says proxies are in front of the site;
- logs every failed login at WARNING (logger ``web.admin_logins``);
- sends ``admin_login_failed`` after each, for the metrics to count. Its keyword arguments:
  ``request``, ``username`` (as typed), ``client`` (the address) and ``locked_out`` (True
  when this client or username is now refused, this attempt included). Connect to it with

      from web.admin_logins import admin_login_failed
      admin_login_failed.connect(lambda sender, locked_out, **kwargs: ...)

The site's only login form is the admin's, so every failed login is an admin login.
"""

from __future__ import annotations

import logging
from typing import Any

# Imported first so that its receivers are connected before this module's: ours then reads
# the lockout state axes has just recorded for the attempt.
import axes.signals  # noqa: F401
from django.contrib.auth.signals import user_login_failed
from django.dispatch import Signal, receiver
from django.http import HttpRequest

from web.limits import client_address

logger = logging.getLogger(__name__)

admin_login_failed = Signal()


# Runs after axes's own receiver (imported above), so `axes_locked_out` already says whether
# this attempt is refused.
@receiver(user_login_failed, dispatch_uid="web.admin_logins.log_failed_login")
def log_failed_login(
    sender: Any, credentials: dict, request: HttpRequest | None = None, **kwargs: Any
) -> None:
    username = credentials.get("username", "")
    client = client_address(request) if request is not None else ""
    locked_out = bool(getattr(request, "axes_locked_out", False))
    logger.warning(
        "admin login failed for username %r from %s%s",
        username,
        client or "an unknown client",
        " (locked out)" if locked_out else "",
        extra={"username": username, "client": client, "locked_out": locked_out},
    )
    admin_login_failed.send(
        sender=__name__, request=request, username=username, client=client, locked_out=locked_out
    )
