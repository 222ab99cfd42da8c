"""Every page docs/index.md lists under "Model pages" follows the outline of a model chapter
(as ns-3's): its second-level headings are Scope, Model, Usage, Validation and Limitations,
in that order and no others. Guides are free. Standard library only, nothing timed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(30)

DOCS = Path(__file__).resolve().parents[2] / "docs"
OUTLINE = ["Scope", "Model", "Usage", "Validation", "Limitations"]


def section(markdown: str, heading: str) -> str:
    """The text under a second-level heading, up to the next one."""
    m = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", markdown, re.M | re.S)
    assert m, f"docs/index.md has no '## {heading}' section"
    return m.group(1)


def model_pages() -> list[str]:
    listed = section((DOCS / "index.md").read_text(encoding="utf-8"), "Model pages")
    return re.findall(r"^\| \[[^]]+\]\(([\w-]+\.md)\)", listed, re.M)


def second_level_headings(markdown: str) -> list[str]:
    without_code = re.sub(r"^```.*?^```", "", markdown, flags=re.M | re.S)
    return re.findall(r"^## (.+?)\s*$", without_code, re.M)


def test_index_lists_model_pages():
    pages = model_pages()
    assert len(pages) >= 5, f"docs/index.md lists too few model pages: {pages}"
    for page in pages:
        assert (DOCS / page).is_file(), f"docs/index.md lists {page}, which does not exist"


@pytest.mark.parametrize("page", model_pages())
def test_model_page_follows_the_outline(page):
    headings = second_level_headings((DOCS / page).read_text(encoding="utf-8"))
    assert headings == OUTLINE, (
        f"docs/{page}'s sections are {headings}; a model page has exactly {OUTLINE}, "
        "in that order (other headings go one level down)"
    )
