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

The loaded experiment holds the texts themselves, so nothing downstream sees the keys. A file
that names no shared text needs no shared file; a user's own experiment file may name the texts
of a ``shared.toml`` in its own folder.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hscc.errors import show
from hscc.inputs import InputError, load_toml
from hscc.reproduce.experiment import ExperimentError

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
            raise ExperimentError(f"{path}: {table}: not a table of shared texts (one of {allowed})")
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


def resolve(data: dict[str, Any], source: str, folder: Path | None) -> dict[str, Any]:
    """The experiment's data with each ``{ shared = KEY }`` replaced by the text `folder`'s
    shared.toml owns under that key (ExperimentError naming the experiment file, the place,
    the key and the keys there are). `folder` None: the data was not read from a file."""
    found: dict[str, dict[str, str]] | None = None

    def text(ref: dict[str, Any], where: str, table: str) -> str:
        nonlocal found
        key = ref.get("shared")
        if set(ref) != {"shared"} or not isinstance(key, str):
            raise ExperimentError(
                f"{source}: {where}: a text or {{ shared = KEY }} (a key of {FILE} "
                f"[{table}]), not {show(ref)}"
            )
        if folder is None:
            raise ExperimentError(
                f"{source}: {where}: shared {key!r} needs a {FILE}, and this experiment "
                "was not read from a file"
            )
        path = folder / FILE
        if found is None:
            if not path.is_file():
                raise ExperimentError(
                    f"{source}: {where}: shared {key!r} needs the shared texts file {path}, "
                    "which does not exist"
                )
            found = load(path)
        texts = found.get(table, {})
        if key not in texts:
            from hscc.suggest import did_you_mean

            raise ExperimentError(
                f"{source}: {where}: shared {key!r} is not a key of {path} [{table}] "
                f"(one of {', '.join(texts) or 'none'})" + did_you_mean(key, texts)
            )
        return texts[key]

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
