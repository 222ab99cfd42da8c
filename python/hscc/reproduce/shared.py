"""Texts that several experiments of a paper share, written once: the paper folder's
``shared.toml`` owns each under a short key, and an experiment file names the key where it
would write the text::

    # experiments/ctcp/shared.toml
    [assumptions]
    tick = "Dummynet's 1000 Hz polling (§VI.A) is not modelled in the main set-up: ..."

    [variant_texts]
    tick = "Dummynet's 1000 Hz polling modelled as a 1 ms service tick on the bottleneck, ..."

    # experiments/ctcp/ctcp-table2.toml
    assumptions = [
        "a text of this experiment's own",
        { shared = "tick" },                # the text of [assumptions] tick, in this place
    ]

    [[variants]]
    name = "tick"
    text = { shared = "tick" }              # the text of [variant_texts] tick

The loaded experiment holds the texts themselves, so nothing downstream sees the keys. A key
is looked up in the ``shared.toml`` beside the experiment file, or, where there is none, in
the catalogue's of the file's paper; then in the catalogue's own ``experiments/shared.toml``,
which holds the texts experiments of several papers state. A copy of a catalogue file works in
any folder, and a user's own file may name the texts of a ``shared.toml`` of its own. A file
that names no shared text needs none.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path
from typing import Any

from hscc.errors import show
from hscc.inputs import InputError, load_toml
from hscc.reproduce.experiment import PAPERS, ExperimentError

FILE = "shared.toml"
MAX_FILE_BYTES = 1 << 20
KEY = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
# where an experiment names a shared text, and the table of shared.toml that owns it
TABLES = {"assumptions": "assumptions", "variants": "variant_texts"}


def load(path: Path) -> dict[str, dict[str, str]]:
    """A shared texts file: each table of TABLES, key → text (ExperimentError naming the
    file, the key and what is allowed)."""
    try:
        data = load_toml(path, "shared texts", MAX_FILE_BYTES)
    except InputError as e:
        raise ExperimentError(str(e)) from None
    allowed = ", ".join(TABLES.values())
    out: dict[str, dict[str, str]] = {}
    for table, texts in data.items():
        if table not in TABLES.values():
            raise ExperimentError(
                f"{path}: {table}: not a table of shared texts (one of {allowed})"
            )
        if not isinstance(texts, dict):
            raise ExperimentError(f"{path}: {table}: a table of key = text, not {show(texts)}")
        for key, text in texts.items():
            if not KEY.match(key):
                raise ExperimentError(
                    f"{path}: {table}.{key}: a key is lower-case letters, digits and '-' "
                    "(at most 40)"
                )
            if not isinstance(text, str) or not text:
                raise ExperimentError(f"{path}: {table}.{key}: a text, not {show(text)}")
        out[table] = texts
    return out


def catalogue_file(paper: str | None = None) -> Path:
    """The catalogue's shared texts of `paper`, or (None) those experiments of several papers
    state."""
    root = resources.files("hscc.reproduce") / "experiments"
    return Path(str(root / paper / FILE if paper else root / FILE))


def find(data: dict[str, Any], folder: Path | None) -> list[Path]:
    """The shared texts an experiment's keys name, in the order a key is looked up: the
    shared.toml in `folder` (the experiment file's; None: it was not read from a file), else the
    catalogue's of its paper; then the catalogue's of several papers (`catalogue_file`)."""
    paths = []
    paper = data.get("paper")
    if folder is not None and (folder / FILE).is_file():
        paths.append(folder / FILE)
    elif isinstance(paper, str) and paper in PAPERS and catalogue_file(paper).is_file():
        paths.append(catalogue_file(paper))
    common = catalogue_file()
    if common.is_file() and all(p.resolve() != common.resolve() for p in paths):
        paths.append(common)
    return paths


def resolve(data: dict[str, Any], source: str, folder: Path | None) -> dict[str, Any]:
    """The experiment's data with each ``{ shared = KEY }`` replaced by the text its shared
    texts (`find`) own under that key (ExperimentError naming the experiment file, the place,
    the key and the keys there are)."""
    found: list[tuple[Path, dict[str, dict[str, str]]]] | None = None

    def text(ref: dict[str, Any], where: str, table: str) -> str:
        nonlocal found
        key = ref.get("shared")
        if set(ref) != {"shared"} or not isinstance(key, str):
            raise ExperimentError(
                f"{source}: {where}: a text or {{ shared = KEY }} (a key of {FILE} "
                f"[{table}]), not {show(ref)}"
            )
        if found is None:
            found = [(path, load(path)) for path in find(data, folder)]
        for _, texts in found:
            if key in texts.get(table, {}):
                return texts[table][key]
        from hscc.suggest import did_you_mean

        keys = [k for _, texts in found for k in texts.get(table, {})]
        where_keys = " or ".join(f"{path} [{table}]" for path, _ in found) or f"any {FILE}"
        raise ExperimentError(
            f"{source}: {where}: shared {key!r} is not a key of {where_keys} "
            f"(one of {', '.join(keys) or 'none'})" + did_you_mean(key, keys)
        )

    out = dict(data)
    assumptions = data.get("assumptions")
    if isinstance(assumptions, list):
        out["assumptions"] = [
            text(a, f"assumptions.{i}", TABLES["assumptions"]) if isinstance(a, dict) else a
            for i, a in enumerate(assumptions)
        ]
    variants = data.get("variants")
    if isinstance(variants, list):
        out["variants"] = [
            {**v, "text": text(v["text"], f"variants.{i}.text", TABLES["variants"])}
            if isinstance(v, dict) and isinstance(v.get("text"), dict)
            else v
            for i, v in enumerate(variants)
        ]
    return out
