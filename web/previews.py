"""Link previews: what a page says about itself when its URL is pasted in a chat or a
post (Open Graph and Twitter card tags, rendered by templates/base.html)."""

from __future__ import annotations

from typing import NamedTuple


class LinkPreview(NamedTuple):
    """A page's preview: its title and one line saying what it holds (plain texts, escaped
    where they are placed)."""

    title: str
    description: str
