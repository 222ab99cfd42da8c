"""The docs state the current truth: no lab-notebook language (a measurement taken
"again", a work "round", "the previous session", "an earlier version of this
page", citations of documents a user does not have: "issue N", "spec §N"), and
every relative link resolves (to a file and, for #anchor, to a heading).

CHANGELOG.md is history and exempt from the language check. Extend CHECKED to
check more of the tree (python/hscc, crates/ ...): a directory is searched for
*.md and, with CODE_SUFFIXES, for comments and docstrings too.
"""

from __future__ import annotations

import re
import subprocess
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# What the language check reads: directories (searched recursively) and files, relative to the
# root: every Markdown file of the tree (validation/results/README.md, fuzz/reproducers/README.md
# too), not third-party packages in a .venv or build outputs.
CHECKED = [
    "docs",
    "README.md",
    "python",
    "crates",
    "bpf",
    "scripts",
    "validation",
    "fuzz",
    "examples",
    "tests",
]
SKIPPED_PARTS = {".venv", "target", "node_modules"}
EXEMPT = {"CHANGELOG.md"}
# In a checked directory, files with these suffixes are read too (all of their text).
CODE_SUFFIXES: tuple[str, ...] = ()

# (name, pattern): each names a habit of a lab notebook, not a word. "round" as in a round
# trip, rounding, round(), round robin or a round of slow start is fine; "background" too.
FORBIDDEN = [
    ("again", re.compile(r"\bagain\b", re.I)),
    (
        "a work round",
        re.compile(
            r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|next|previous|earlier|"
            r"later|last|this|that|another|each|a)\s+round\s+(?:of\s+(?:fixes|work|changes|measurements?|"
            r"optimi[sz]ation|review|profiling))\b"
            r"|\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|previous|earlier|"
            r"later|this|that|another)\s+round\b(?![- ]trip|\s+robin)"
            r"|\b[Rr]ounds?\s+\d"
            r"|^#+\s.*\bround\b"
            r"|\brounds\s+(?:each|alternating)\b|\bbetween\s+rounds\b|\b(?:two|three|four|five|six)\s+rounds\b",
            re.I | re.M,
        ),
    ),
    ("previous session", re.compile(r"\bprevious\s+session", re.I)),
    (
        "session (of work)",
        re.compile(
            r"\b(?:this|that|last|earlier|next|same|our|my|the\s+previous|a\s+previous)\s+session\b"
            r"|\bsession'?s\s+(?:change|work|findings?|measurements?)\b"
            r"|\b(?:in|during|since)\s+the\s+session\b",
            re.I,
        ),
    ),
    (
        "earlier version",
        re.compile(
            r"\b(?:an?\s+)?(?:earlier|previous|older|former)\s+version\s+of\s+(?:this|the)\s+(?:page|table|doc)",
            re.I,
        ),
    ),
    ("spec §", re.compile(r"\bspec(?:ification)?\s*§", re.I)),
    ("issue N", re.compile(r"\bissues?\s*#?\d+|\bthe\s+issue['’]s\b", re.I)),
]


def checked_files() -> list[Path]:
    files: list[Path] = []
    for entry in CHECKED:
        path = ROOT / entry
        if path.is_dir():
            files += sorted(path.rglob("*.md"))
            for suffix in CODE_SUFFIXES:
                files += sorted(path.rglob(f"*{suffix}"))
        elif path.is_file():
            files.append(path)
    return [f for f in files if f.name not in EXEMPT and not SKIPPED_PARTS & set(f.parts)]


def test_every_markdown_file_of_the_tree_is_checked():
    """Every Markdown file git tracks (not a run's comparison.md in an ignored repro/)."""
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        ["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    checked = {str(p.relative_to(ROOT)) for p in checked_files()}
    left_out = [f for f in listed if f not in checked and Path(f).name not in EXEMPT]
    assert left_out == [], f"Markdown the language check does not read: {left_out}"


def findings(text: str, only: set[str] | None = None) -> list[tuple[int, str, str]]:
    """(line, name, the words) of every notebook habit in `text` (of those named `only`)."""
    out = []
    for name, pattern in FORBIDDEN:
        if only is not None and name not in only:
            continue
        for m in pattern.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append((line, name, m.group(0)))
    return sorted(out)


def test_no_notebook_language():
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {name}: {words!r}"
        for path in checked_files()
        for line, name, words in findings(path.read_text(encoding="utf-8"))
    ]
    assert not bad, "lab-notebook language in the docs:\n" + "\n".join(bad)


# Code, its comments and every string the CLI prints: no citation of documents a user does
# not have, no work log. ("again" and "round" are ordinary words there: retry, an RTT round.)
CODE_CHECKED = ["python/hscc", *(d for d in CHECKED if d not in ("docs", "README.md", "python"))]
CODE_FILES = (".py", ".pyi", ".rs", ".c", ".h", ".sh", ".toml")
CODE_FORBIDDEN = {"spec §", "issue N", "previous session", "earlier version"}
SELF = Path(__file__).resolve()


def test_no_work_notes_in_code():
    bad = []
    for entry in CODE_CHECKED:
        for path in sorted((ROOT / entry).rglob("*")):
            # validation/ns3/.venv (scripts/validate-ns3.sh) holds third-party packages.
            if (
                path.suffix not in CODE_FILES
                or path.resolve() == SELF
                or "target" in path.parts
                or ".venv" in path.parts
            ):
                continue
            for line, name, words in findings(path.read_text(errors="replace"), CODE_FORBIDDEN):
                bad.append(f"{path.relative_to(ROOT)}:{line}: {name}: {words!r}")
    assert not bad, "work notes in code:\n" + "\n".join(bad)


def test_the_patterns_tell_notebook_from_protocol():
    for ok in (
        "one round trip later",
        "a round-trip time",
        "rounding the window up",
        "round(x, 2)",
        "round robin",
        "the background traffic",
        "per round, the minimum RTT of the round",
        "round after round of slow start",
        "each round's dwnd increase",
        "persistent web sessions",
        "a session of requests and responses",
        "the issues of a long queue",
    ):
        assert findings(ok) == [], ok
    for bad in (
        "measured again on an idle machine",
        "### Sixth round: the files",
        "after the first round of fixes",
        "three rounds alternating",
        "in the previous session",
        "as this session found",
        "an earlier version of this page said",
        "see spec §4",
        "issue 11's target",
        "The issue's ranges",
        "Round 2",
    ):
        assert findings(bad), bad


# ---------------------------------------------------------------- links

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE = re.compile(r"```.*?```", re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINKED = ["docs", "README.md", "CHANGELOG.md"]


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip()).lower()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    kept = "".join(
        c
        for c in text
        if c in " -_" or unicodedata.category(c)[0] in "LMN" or unicodedata.category(c) == "Pc"
    )
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = CODE.sub("", path.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    out = set()
    for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M):
        s = slug(m.group(1))
        n = seen.get(s, 0)
        out.add(s if n == 0 else f"{s}-{n}")
        seen[s] = n + 1
    return out


def linked_files() -> list[Path]:
    files: list[Path] = []
    for entry in LINKED:
        path = ROOT / entry
        files += sorted(path.rglob("*.md")) if path.is_dir() else [path] if path.is_file() else []
    return files


def test_every_relative_link_resolves():
    broken = []
    for path in linked_files():
        text = INLINE_CODE.sub("", CODE.sub("", path.read_text(encoding="utf-8")))
        for m in LINK.finditer(text):
            target = m.group(1)
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            where = f"{path.relative_to(ROOT)}: ({target})"
            if not dest.exists():
                broken.append(f"{where}: no such file")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{where}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_github_anchors():
    assert slug("Reno against analytical models (`validation.rs`)") == (
        "reno-against-analytical-models-validationrs"
    )
    assert slug("500 Mbit/s × 100 ms") == "500-mbits--100-ms"
    assert slug("Linux's RTO estimator and receivers") == "linuxs-rto-estimator-and-receivers"
