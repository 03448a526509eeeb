"""The admin is not a door (issue 34, item 7): failed logins lock a client and a username out
over real HTTP, even for the right password, until the cool-off ends; weak passwords are
refused; the admin moves with ADMIN_URL; every answer, redirects included, forbids framing."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
import requests
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.test import Client
from prometheus_client import REGISTRY

from web.admin_logins import admin_login_failed

ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "a-long-passphrase-nobody-guesses"
COOL_OFF_SECONDS = 3  # where a test waits for the lockout to end


@pytest.fixture
def lockout(settings, django_user_model):
    """A superuser `operator`, a lockout after 5 failures for a minute (longer than a test
    takes), and cookies that travel over plain HTTP."""
    settings.AXES_FAILURE_LIMIT = 5
    settings.AXES_COOLOFF_TIME = timedelta(seconds=60)
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    django_user_model.objects.create_superuser("operator", "op@example.org", PASSWORD)


@pytest.fixture
def failures() -> list[dict]:
    """What admin_login_failed announced, one entry per failed login."""
    sent: list[dict] = []

    def record(sender, **kwargs) -> None:
        sent.append(kwargs)

    admin_login_failed.connect(record)
    yield sent
    admin_login_failed.disconnect(record)


class Browser:
    """One client of the live server, logging in as a person does (form, CSRF token)."""

    def __init__(self, base_url: str, client_address: str | None = None) -> None:
        self.base_url = base_url
        self.session = requests.Session()
        if client_address:  # as the proxy in front of the site would say (NUM_PROXIES=1)
            self.session.headers["X-Forwarded-For"] = client_address

    def log_in(self, username: str, password: str) -> requests.Response:
        form = self.session.get(f"{self.base_url}/admin/login/", timeout=10)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text).group(1)
        return self.session.post(
            f"{self.base_url}/admin/login/?next=/admin/",
            data={"username": username, "password": password, "csrfmiddlewaretoken": token},
            allow_redirects=False,
            timeout=10,
        )

    def is_in(self) -> bool:
        answer = self.session.get(f"{self.base_url}/admin/", allow_redirects=False, timeout=10)
        return answer.status_code == 200


def failed_logins_counted(locked_out: str) -> float:
    return (
        REGISTRY.get_sample_value("ratings_admin_login_failures_total", {"locked_out": locked_out})
        or 0.0
    )


def test_twenty_wrong_passwords_lock_the_client_out_until_the_cool_off_ends(
    live_server, lockout, failures, caplog, settings
):
    settings.AXES_COOLOFF_TIME = timedelta(seconds=COOL_OFF_SECONDS)
    counted = {flag: failed_logins_counted(flag) for flag in ("true", "false")}
    browser = Browser(live_server.url)
    statuses = [browser.log_in("operator", f"guess-{n}").status_code for n in range(20)]
    # The form answers the first four wrong passwords; from the fifth on, 429.
    assert statuses == [200] * 4 + [429] * 16
    refused = browser.log_in("operator", PASSWORD)
    assert refused.status_code == 429
    assert refused.headers["X-Frame-Options"] == "DENY"
    assert not browser.is_in()

    assert [failure["locked_out"] for failure in failures] == [False] * 4 + [True] * 17
    assert {(failure["username"], failure["client"]) for failure in failures} == {
        ("operator", "127.0.0.1")
    }
    # Counted in /metrics too: 4 before the lockout, 17 refused.
    assert failed_logins_counted("false") - counted["false"] == 4
    assert failed_logins_counted("true") - counted["true"] == 17
    logged = [r for r in caplog.records if r.name == "web.admin_logins"]
    assert len(logged) == 21
    assert logged[-1].getMessage() == (
        "admin login failed for username 'operator' from 127.0.0.1 (locked out)"
    )

    time.sleep(COOL_OFF_SECONDS + 0.5)  # since the last (refused) attempt
    assert browser.log_in("operator", PASSWORD).status_code == 302
    assert browser.is_in()


def test_a_username_is_locked_out_whatever_the_address(live_server, lockout, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    for n in range(5):
        Browser(live_server.url, f"203.0.113.{n}").log_in("operator", "wrong")
    assert Browser(live_server.url, "198.51.100.7").log_in("operator", PASSWORD).status_code == 429


def test_a_client_is_locked_out_whatever_the_username(live_server, lockout, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    guesser = Browser(live_server.url, "192.0.2.1")
    for n in range(5):
        guesser.log_in(f"admin{n}", "wrong")
    assert guesser.log_in("operator", PASSWORD).status_code == 429
    assert Browser(live_server.url, "192.0.2.2").log_in("operator", PASSWORD).status_code == 302


def test_weak_passwords_are_refused(monkeypatch, django_user_model):
    with pytest.raises(ValidationError) as refused:
        validate_password("1")
    assert len(refused.value.messages) == 3  # too short, too common, entirely numeric

    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "1")
    with pytest.raises(CommandError, match="too short"):
        call_command("createsuperuser", interactive=False, username="op", email="op@example.org")
    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", "operator-site")
    with pytest.raises(CommandError, match="too similar to the username"):
        call_command("createsuperuser", interactive=False, username="operator", email="")
    assert not django_user_model.objects.exists()

    monkeypatch.setenv("DJANGO_SUPERUSER_PASSWORD", PASSWORD)
    call_command("createsuperuser", interactive=False, username="op", email="op@example.org")
    assert django_user_model.objects.get().check_password(PASSWORD)


def test_the_admin_is_served_under_admin_url():
    where = subprocess.run(
        [
            sys.executable,
            str(ROOT / "manage.py"),
            "shell",
            "-c",
            (
                "from django.urls import Resolver404, resolve, reverse\n"
                "print(reverse('admin:login'))\n"
                "try:\n    resolve('/admin/login/')\nexcept Resolver404:\n    print('gone')"
            ),
        ],
        env={**os.environ, "ADMIN_URL": "/ops-desk-7f3"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert where.stdout.split()[-2:] == ["/ops-desk-7f3/login/", "gone"]


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("get", "/admin", 301),  # APPEND_SLASH, made by CommonMiddleware on the way out
        ("get", "/admin/", 302),  # to the login form
        ("get", "/stats", 200),
        ("get", "/no-such-page/", 404),
        ("trace", "/", 405),  # refused by web.middleware.refuse_trace before any view
        ("head", "/about", 200),
    ],
)
def test_every_answer_forbids_framing(db, method, path, status):
    answer = getattr(Client(), method)(path)
    assert answer.status_code == status
    assert answer.headers["X-Frame-Options"] == "DENY"


def test_the_https_redirect_forbids_framing(settings):
    settings.SECURE_SSL_REDIRECT = True
    answer = Client().get("/about")
    assert answer.status_code == 301 and answer.headers["Location"].startswith("https://")
    assert answer.headers["X-Frame-Options"] == "DENY"
