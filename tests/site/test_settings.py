"""Settings come from the environment: safe defaults, loud failures, a clean deploy check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ratingsite.env import SettingError, env_bool, env_int, env_list

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
    assert env_int("UNSET_NUMBER_FOR_TEST", 7) == 7
    monkeypatch.setenv("SOME_NUMBER", "twelve")
    with pytest.raises(SettingError, match="SOME_NUMBER='twelve'"):
        env_int("SOME_NUMBER", 0)
