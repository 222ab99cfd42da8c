"""Every algorithm the engine offers is named where the docs list them: in the README's
first paragraph and with its own entry in docs/algorithms.md (a new algorithm fails here
until both mention it); likewise every reference stack (`stack = ...`) in the README."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hscc import _core, catalog

ROOT = Path(__file__).resolve().parents[2]

# How the README names each algorithm (ctcp-la is CTCP's Linux variant, named with it).
README_NAMES = {
    "reno": "Reno/NewReno",
    "multcp": "MulTCP",
    "ctcp": "Compound TCP",
    "ctcp-la": "Compound TCP",
    "fit": "TCP-FIT",
    "sync": "Sync-TCP",
    "africa": "TCP-Africa",
    "highspeed": "HighSpeed",
    "scalable": "Scalable",
    "bic": "BIC",
    "cubic": "CUBIC",
    "htcp": "H-TCP",
    "vegas": "Vegas",
    "fast": "FAST",
    "illinois": "Illinois",
    "westwood": "Westwood+",
    "veno": "Veno",
    "hybla": "Hybla",
    "yeah": "YeAH",
    "cdg": "CDG",
    "nv": "NV",
    "bbr": "BBR",
    "bbr3": "BBRv3",
    "lp": "LP",
    "ledbat": "LEDBAT",
    "dctcp": "DCTCP",
}


def test_the_readme_names_every_algorithm():
    names = {a.name for a in catalog.algorithms()}
    assert names == set(README_NAMES), f"name them in README_NAMES: {names ^ set(README_NAMES)}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    intro = readme.split("\n- **a packet-level simulator**")[0]
    missing = [
        n
        for n, shown in README_NAMES.items()
        if not re.search(rf"(?<![\w-]){re.escape(shown)}(?![\w-])", intro)
    ]
    assert not missing, f"the README's first paragraph does not name: {missing}"


def test_algorithms_md_has_an_entry_for_every_algorithm():
    page = (ROOT / "docs" / "algorithms.md").read_text(encoding="utf-8")
    missing = [a.name for a in catalog.algorithms() if f"`{a.name}`" not in page]
    assert not missing, f"docs/algorithms.md has no entry for: {missing}"


def test_the_readme_names_every_reference_stack():
    schema = json.loads(_core.scenario_schema())
    stacks = {v["const"] for v in schema["$defs"]["Stack"]["oneOf"]}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"`stack = \"linux\"` \(or ([^)]*)\)", readme)
    assert m, "the README no longer lists the stacks: update this test"
    listed = {"linux", *re.findall(r'`"([^"`]+)"`', m.group(1))}
    assert listed == stacks, f"README: {sorted(listed)}; the scenario format: {sorted(stacks)}"
