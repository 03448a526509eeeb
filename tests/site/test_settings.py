"""Settings come from the environment: safe defaults, loud failures, a clean deploy check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ratingsite.env import SettingError, env_bool, env_float_list, env_int, env_list

ROOT = Path(__file__).resolve().parents[2]


def run_manage(*arguments: str, **environment: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "SECURE_"))}
    env.update(environment)
    return subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), *arguments],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_deploy_check_is_clean_with_production_values(tmp_path):
    result = run_manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        SECRET_KEY="x7#Kq9!vR2mZ" * 6,
        ALLOWED_HOSTS="ratings.example",
        SECURE_SSL_REDIRECT="1",
        SECURE_HSTS_SECONDS="31536000",
        VAR_DIR=str(tmp_path),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_a_bad_value_fails_loudly(tmp_path):
    result = run_manage("check", DEBUG="maybe", VAR_DIR=str(tmp_path))
    assert result.returncode != 0
    assert "DEBUG='maybe'" in result.stderr


def test_typed_readers(monkeypatch):
    monkeypatch.setenv("SOME_FLAG", "yes")
    monkeypatch.setenv("SOME_NUMBER", "12")
    monkeypatch.setenv("SOME_LIST", " a, b ,,c ")
    assert env_bool("SOME_FLAG", False) is True
    assert env_int("SOME_NUMBER", 0) == 12
    assert env_list("SOME_LIST", []) == ["a", "b", "c"]
    monkeypatch.setenv("SOME_FLOATS", "1500, 1800.5")
    assert env_float_list("SOME_FLOATS", []) == [1500.0, 1800.5]
    assert env_float_list("UNSET_FLOATS_FOR_TEST", [1.0]) == [1.0]
    assert env_int("UNSET_NUMBER_FOR_TEST", 7) == 7
    monkeypatch.setenv("SOME_NUMBER", "twelve")
    with pytest.raises(SettingError, match="SOME_NUMBER='twelve'"):
        env_int("SOME_NUMBER", 0)
    monkeypatch.setenv("SOME_FLOATS", "1500,high")
    with pytest.raises(SettingError, match="SOME_FLOATS='1500,high'"):
        env_float_list("SOME_FLOATS", [])


PRODUCTION = {"DEBUG": "0", "ALLOWED_HOSTS": "ratings.example"}


def test_deploy_check_fails_without_a_secret_key_in_the_environment(tmp_path):
    result = run_manage("check", "--deploy", SECRET_KEY="", VAR_DIR=str(tmp_path), **PRODUCTION)

    assert result.returncode != 0
    assert "web.E001" in result.stderr
    assert "SECRET_KEY is not set in the environment" in result.stderr
    passing = run_manage(
        "check", "--deploy", SECRET_KEY="k" * 60, VAR_DIR=str(tmp_path), **PRODUCTION
    )
    assert passing.returncode == 0, passing.stderr


def test_without_one_the_site_runs_on_a_private_key_of_its_install(tmp_path):
    show = "from django.conf import settings; print(settings.SECRET_KEY)"
    keys = [
        run_manage("shell", "-c", show, SECRET_KEY="", VAR_DIR=str(tmp_path)).stdout.split()[-1]
        for _ in range(2)
    ]
    other = run_manage("shell", "-c", show, SECRET_KEY="", VAR_DIR=str(tmp_path / "other"))

    assert keys[0] == keys[1] == (tmp_path / "secret_key").read_text().strip()
    assert len(keys[0]) >= 50
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
    assert other.stdout.split()[-1] != keys[0]
    for source in (ROOT / "site").glob("*.py"):
        assert "insecure-development-" + "key" not in source.read_text()
