"""The repository explains itself: every link and repository path its documents name exists.

Checked in README.md, BENCHMARKS.md and docs/*.md: markdown links `[text](path#anchor)`
(an anchor must be a heading of the target document) and backticked repository paths
such as `matches/services/ingest.py`. Code comments and docstrings that cite a docs page
with an anchor (`docs/rating-model.md#decay`) are checked too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]
# A backticked path is checked when it starts with one of these folders or is a root file.
FOLDERS = ("bench", "docs", "matches", "players", "site", "static", "templates", "tests", "web")
ROOT_FILES = ("README.md", "BENCHMARKS.md", "Makefile", "manage.py", "pyproject.toml")
SOURCE_SUFFIXES = (".py", ".js", ".html", ".css", ".yaml", ".toml")

FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\s]+)`")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*$", re.MULTILINE)
DOCS_ANCHOR = re.compile(r"\b(docs/[\w-]+\.md)#([\w-]+)")


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(document: Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", document.read_text())):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def target_problem(document: Path, target: str) -> str | None:
    """What is wrong with a link or path `target` named in `document`, or None."""
    path, _, anchor = target.partition("#")
    file = document if not path else (document.parent / path)
    if not file.exists():
        return f"{target}: no such file"
    if anchor and (file.suffix != ".md" or anchor not in anchors(file)):
        return f"{target}: no heading #{anchor} in {file.relative_to(ROOT)}"
    return None


def looks_like_repository_path(text: str) -> bool:
    if any(mark in text for mark in "<>{}*?=…") or "..." in text or "://" in text:
        return False
    return text.split("#")[0] in ROOT_FILES or ("/" in text and text.split("/")[0] in FOLDERS)


def problems(document: Path) -> list[str]:
    text = FENCE.sub("", document.read_text())
    found = []
    for target in LINK.findall(text):
        if not target.startswith(("http://", "https://", "mailto:")):
            found.append(target_problem(document, target))
    for code in CODE.findall(text):
        if looks_like_repository_path(code):
            found.append(target_problem(ROOT / "README.md", code))
    return [problem for problem in found if problem]


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: path.name)
def test_every_link_and_path_in_the_documents_exists(document: Path):
    assert problems(document) == []


def test_every_docs_anchor_cited_in_the_code_is_a_heading():
    sources = [
        path
        for folder in FOLDERS
        for path in (ROOT / folder).rglob("*")
        if path.suffix in SOURCE_SUFFIXES and ".venv" not in path.parts
    ]
    cited = {
        (source.relative_to(ROOT), page, anchor)
        for source in sources
        for page, anchor in DOCS_ANCHOR.findall(source.read_text(errors="replace"))
    }

    assert len(cited) > 20  # the citations are found at all
    broken = [
        f"{source}: {page}#{anchor}"
        for source, page, anchor in sorted(cited)
        if target_problem(ROOT / "README.md", f"{page}#{anchor}")
    ]
    assert broken == []


def test_the_checks_catch_a_broken_link_a_missing_path_and_an_unknown_anchor(tmp_path: Path):
    document = ROOT / "docs" / "rating-model.md"

    assert target_problem(document, "replay-format.md#one-replay") is None
    assert target_problem(document, "#decay") is None
    assert target_problem(document, "no-such-page.md") == "no-such-page.md: no such file"
    assert target_problem(document, "#no-such-heading") is not None
    assert target_problem(ROOT / "README.md", "matches/services/rating/brackets.py") is not None
    assert looks_like_repository_path("matches/services/ingest.py")
    assert looks_like_repository_path("site/settings.py")
    assert not looks_like_repository_path("templates/<app>/<feature>.html")
    assert not looks_like_repository_path("services/rating/")
