"""Texts a paper's experiments share: named by key from the paper folder's shared.toml,
refused clearly when the key or the file is wrong, and written once in the catalogue."""

from __future__ import annotations

import json
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from hscc.reproduce import experiment, shared
from test_reproduce import SMALL, _write_toml

CATALOGUE = Path(__file__).resolve().parents[2] / "python/hscc/reproduce/experiments"

SHARED = """
[assumptions]
rate = "The rate is the paper's."
tick = "No tick."

[variant_texts]
tick = "A 1 ms tick."
"""


def write(
    folder: Path, assumptions: str, variant_text='"its own"', shared_toml=SHARED, paper="ctcp"
):
    """small.toml (SMALL with these assumptions and a variant of this text) and shared.toml."""
    _write_toml(folder / "body.toml", {k: v for k, v in SMALL.items() if k != "assumptions"})
    body = (folder / "body.toml").read_text().replace('paper = "ctcp"', f"paper = {paper!r}")
    (folder / "body.toml").unlink()
    variant = (
        f'\n[[variants]]\nname = "tick"\ntext = {variant_text}\n'
        'set = { "topology.bottleneck.tick" = "1ms" }\n'
    )
    (folder / "small.toml").write_text(f"assumptions = {assumptions}\n{body}{variant}")
    if shared_toml is not None:
        (folder / shared.FILE).write_text(shared_toml)
    return folder / "small.toml"


def test_a_shared_text_takes_the_place_of_its_key(tmp_path):
    path = write(
        tmp_path, '["its own", { shared = "tick" }, { shared = "rate" }]', '{ shared = "tick" }'
    )
    exp = experiment.load(path)
    assert exp.assumptions == ["its own", "No tick.", "The rate is the paper's."]
    assert exp.variant("tick").text == "A 1 ms tick."


def test_a_file_naming_no_shared_text_needs_no_shared_file(tmp_path):
    exp = experiment.load(write(tmp_path, '["its own"]', shared_toml=None))
    assert exp.assumptions == ["its own"] and exp.variant("tick").text == "its own"


@pytest.mark.parametrize(
    "assumptions, variant_text, message",
    [
        (
            '[{ shared = "tik" }]',
            '"t"',
            r"small.toml: assumptions.0: shared 'tik' is not a key of \S+shared.toml "
            r"\[assumptions\] or \S+experiments/shared.toml \[assumptions\] "
            r'\(one of rate, tick\); did you mean "tick"\?',
        ),
        (  # a variant's text is looked up among the variant texts, not the assumptions
            '["a"]',
            '{ shared = "rate" }',
            r"small.toml: variants.0.text: shared 'rate' is not a key of \S+shared.toml "
            r"\[variant_texts\] or \S+experiments/shared.toml \[variant_texts\] \(one of tick\)",
        ),
        (
            "[{ shared = 3 }]",
            '"t"',
            r"small.toml: assumptions.0: a text or \{ shared = KEY \} \(a key of shared.toml "
            r"\[assumptions\]\), not \{ shared = 3 \}",
        ),
        ('[{ text = "a" }]', '"t"', r"assumptions.0: a text or \{ shared = KEY \}"),
    ],
)
def test_a_wrong_reference_names_the_file_the_place_and_the_keys(
    tmp_path, assumptions, variant_text, message
):
    with pytest.raises(experiment.ExperimentError, match=message) as e:
        experiment.load(write(tmp_path, assumptions, variant_text))
    assert str(e.value).startswith(str(tmp_path / "small.toml"))


def test_without_a_shared_file_beside_it_the_papers_texts_are_named(tmp_path):
    """A copy of a catalogue file works in any folder: its keys name its paper's texts."""
    copy = tmp_path / "mine.toml"
    catalogue = CATALOGUE / "ctcp" / "ctcp-table2.toml"
    copy.write_text(catalogue.read_text(encoding="utf-8"), encoding="utf-8")
    assert '{ shared = "tick" }' in copy.read_text(encoding="utf-8")
    mine, theirs = experiment.load(copy), experiment.load(catalogue)
    assert mine == theirs.model_copy(update={"file": str(copy)})
    assert mine.assumptions[3].startswith("Dummynet's 1000 Hz polling (§VI.A) is not modelled")


def test_a_key_found_nowhere_names_every_file_looked_in(tmp_path):
    """Without a shared.toml beside it or in its paper's folder, a key is looked up in the
    catalogue's texts of several papers alone."""
    with pytest.raises(
        experiment.ExperimentError,
        match=r"small.toml: assumptions.0: shared 'tick' is not a key of "
        r"\S+experiments/shared.toml \[assumptions\] \(one of none\)$",
    ):
        experiment.load(write(tmp_path, '[{ shared = "tick" }]', shared_toml=None, paper="dctcp"))
    data = {**SMALL, "paper": "dctcp", "assumptions": [{"shared": "tick"}]}
    with pytest.raises(experiment.ExperimentError, match=r"is not a key of \S+experiments/shared"):
        experiment.parse(data, "small.toml")


def test_a_text_of_several_papers_is_found_after_the_papers_own(tmp_path, monkeypatch):
    """A key of the catalogue's texts of several papers is found where the paper's file does
    not have it; a shared.toml of one's own that has the key takes its place."""
    common = tmp_path / "catalogue" / shared.FILE
    common.parent.mkdir()
    common.write_text('[assumptions]\nrecovery = "Common."\n')
    own = shared.catalogue_file
    monkeypatch.setattr(
        shared, "catalogue_file", lambda paper=None: own(paper) if paper else common
    )
    exp = experiment.load(write(tmp_path, '[{ shared = "recovery" }, { shared = "tick" }]'))
    assert exp.assumptions == ["Common.", "No tick."]
    mine = SHARED.replace('tick = "No tick."', 'tick = "No tick."\nrecovery = "Mine."')
    exp = experiment.load(write(tmp_path, '[{ shared = "recovery" }]', shared_toml=mine))
    assert exp.assumptions == ["Mine."]


@pytest.mark.parametrize(
    "shared_toml, message",
    [
        (
            '[assumption]\na = "x"\n',
            r"assumption: not a table of shared texts \(one of assumptions, variant_texts\)",
        ),
        ('[assumptions]\nTick = "x"\n', r"assumptions.Tick: a key is lower-case letters"),
        ('[assumptions]\ntick = ""\n', r"assumptions.tick: a text, not"),
        ("[assumptions]\ntick = 1\n", r"assumptions.tick: a text, not 1"),
        ('assumptions = "x"\n', r"assumptions: a table of key = text"),
        ("[assumptions\n", r"shared.toml is not valid TOML"),
    ],
)
def test_a_bad_shared_file_names_itself_and_the_key(tmp_path, shared_toml, message):
    with pytest.raises(experiment.ExperimentError, match=message) as e:
        experiment.load(write(tmp_path, '[{ shared = "tick" }]', shared_toml=shared_toml))
    assert str(tmp_path / shared.FILE) in str(e.value)


def test_the_shared_file_is_not_taken_for_an_experiment(tmp_path):
    write(tmp_path, '["a"]')
    with pytest.raises(
        experiment.ExperimentError, match="holds the texts a paper's experiments share"
    ):
        experiment.load(tmp_path / shared.FILE)


def repeats(paper: Path) -> list[str]:
    """What a paper folder writes more than once: an assumption or variant text written out in
    two places (experiment files or shared.toml), or a shared key fewer than two experiments name
    (a text of one experiment belongs in its own file)."""
    written: Counter[str] = Counter()
    named: Counter[str] = Counter()
    for f in sorted(paper.glob("*.toml")):
        if f.name == shared.FILE:
            continue
        data = tomllib.loads(f.read_text(encoding="utf-8"))
        texts = [("assumptions", a) for a in data.get("assumptions", [])]
        texts += [("variant_texts", v["text"]) for v in data.get("variants", [])]
        written.update(t for _, t in texts if isinstance(t, str))
        named.update({f"{table}.{t['shared']}" for table, t in texts if isinstance(t, dict)})
    path = paper / shared.FILE
    owned = shared.load(path) if path.exists() else {}
    out = []
    for table, texts in owned.items():
        written.update(texts.values())
        out += [
            f"{shared.FILE} {table}.{key} is named by {named[f'{table}.{key}']} experiment(s)"
            for key in texts
            if named[f"{table}.{key}"] < 2
        ]
    return out + [f"written {n} times: {t[:60]}" for t, n in written.items() if n > 1]


def across_papers(catalogue: Path) -> list[str]:
    """What the catalogue writes in more than one paper's folder (a text of several papers
    belongs in its own shared.toml), and a key of that file fewer than two papers name."""
    papers: dict[str, set[str]] = {}
    named: dict[str, set[str]] = {}
    for f in sorted(catalogue.glob("*/*.toml")):
        paper = f.parent.name
        data = tomllib.loads(f.read_text(encoding="utf-8"))
        if f.name == shared.FILE:
            texts = [t for table in data.values() for t in table.values()]
        else:
            items = data.get("assumptions", []) + [v["text"] for v in data.get("variants", [])]
            texts = [t for t in items if isinstance(t, str)]
            for t in items:
                if isinstance(t, dict):
                    named.setdefault(t["shared"], set()).add(paper)
        for t in texts:
            papers.setdefault(t, set()).add(paper)
    out = [f"in {', '.join(sorted(p))}: {t[:60]}" for t, p in papers.items() if len(p) > 1]
    common = catalogue / shared.FILE
    for table in shared.load(common).values() if common.exists() else []:
        out += [
            f"{shared.FILE} {key} is named by {len(named.get(key, ()))} paper(s)"
            for key in table
            if len(named.get(key, ())) < 2
        ]
    return out


def test_no_text_is_written_in_two_papers_folders():
    """A text experiments of several papers state lives in the catalogue's shared.toml."""
    assert across_papers(CATALOGUE) == []


def test_a_text_copied_into_two_papers_is_found(tmp_path):
    """The check above fails when one paper's text is written into another paper's file too,
    and when only one paper names a key of the catalogue's file."""
    for f in CATALOGUE.glob("**/*.toml"):
        (tmp_path / f.relative_to(CATALOGUE)).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f.relative_to(CATALOGUE)).write_text(f.read_text(encoding="utf-8"))
    text = shared.load(tmp_path / "sync" / shared.FILE)["assumptions"]["recovery"]
    line = f"recovery = {json.dumps(text, ensure_ascii=False)}\n"
    ctcp = tmp_path / "ctcp" / shared.FILE
    ctcp.write_text(
        ctcp.read_text(encoding="utf-8").replace("[assumptions]\n", "[assumptions]\n" + line)
    )
    assert across_papers(tmp_path) == [f"in ctcp, sync: {text[:60]}"]
    # Moved to the catalogue's file, but named by Sync-TCP's experiments alone.
    ctcp.write_text((CATALOGUE / "ctcp" / shared.FILE).read_text(encoding="utf-8"))
    sync = tmp_path / "sync" / shared.FILE
    sync.write_text(sync.read_text(encoding="utf-8").replace(line, ""))
    (tmp_path / shared.FILE).write_text("[assumptions]\n" + line)
    assert across_papers(tmp_path) == [f"{shared.FILE} recovery is named by 1 paper(s)"]
