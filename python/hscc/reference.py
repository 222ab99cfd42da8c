"""The scenario file reference (docs/scenario.md, `hscc fields`), generated
from the JSON Schema the engine derives from its scenario definition: a field
is documented where it is defined, and nowhere else."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from typing import Any

from hscc import _core
from hscc.errors import field_parts
from hscc.units import format_rate, format_seconds

# Quantity schemas by name: how a value of each is written.
_QUANTITIES = {
    "Time": "time",
    "Rate": "rate",
    "Size": "size",
    "Probability": "probability",
    "Buffer": "buffer",
    "ParamValue": "number or bool",
    "Dist_Size": "size or distribution",
    "Dist_Time": "time or distribution",
}
# Sections: the tables a file has, in the order a file is written, with their TOML names.
_SECTIONS = [
    ("ScenarioSpec", "top level"),
    ("OutputSpec", "[output]"),
    ("CcLogSpec", "[output] cc_log = { flows = [...] }"),
    ("PcapSpec", "[output] pcap = { ... }"),
    ("dumbbell", '[topology] kind = "dumbbell"'),
    ("parking_lot", '[topology] kind = "parking_lot"'),
    ("graph", '[topology] kind = "graph"'),
    ("LinkSpecIn", "a link (bottleneck, reverse, link, fwd, rev)"),
    ("QueueSpec", "a link's queue (queue = { kind = ... })"),
    ("PairSpec", "a host pair (pairs[i], access)"),
    ("GraphLink", "a graph link (links[i])"),
    ("FlowSpec", "[[flows]]"),
    ("UdpSpec", "[[udp]]"),
    ("VoipSpec", "[[voip]]"),
    ("WebSpec", "[[web]]"),
    ("ChangeSpec", "[[changes]]"),
]


def schema_nodes() -> Iterator[dict[str, Any]]:
    """Every table of the format's JSON Schema, at any depth (the schema is a small finite tree)."""
    stack: list[object] = [json.loads(_core.scenario_schema())]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


@functools.cache
def definitions() -> dict[str, dict[str, Any]]:
    """Every table of the scenario format by name (as the schema names them:
    "ScenarioSpec", "FlowSpec", "LinkSpecIn", …; topology kinds by their kind)."""
    schema = json.loads(_core.scenario_schema())
    defs = dict(schema.pop("$defs"))
    defs["ScenarioSpec"] = schema
    for variant in defs["TopologySpec"]["oneOf"]:
        defs[variant["properties"]["kind"]["const"]] = variant
    return defs


def field_nodes(field: str) -> list[dict[str, Any]]:
    """The schema nodes of the field at a path such as "flows[1].params.gamma" (empty if the format has no such field)."""
    defs = definitions()
    nodes = [defs["ScenarioSpec"]]
    for part in field_parts(field):
        found = []
        while nodes:
            n = nodes.pop()
            if (ref := _ref(n)) is not None:
                nodes.append(defs[ref])
            nodes += n.get("anyOf", []) + n.get("oneOf", [])
            if part.isdigit() and "items" in n:
                found.append(n["items"])
            elif part in n.get("properties", {}):
                found.append(n["properties"][part])
            elif not part.isdigit() and isinstance(n.get("additionalProperties"), dict):
                found.append(n["additionalProperties"])
        nodes = found
    return nodes


def description(field: str) -> str | None:
    """The doc text of the field at a path such as "topology.bottleneck.rate" (None if unknown)."""
    texts = [n["description"] for n in field_nodes(field) if n.get("description")]
    return _one_line(texts[0]).rstrip(".") if texts else None


def value_kind(field: str) -> str | None:
    """How the field at a path reads a value: "time", "rate", "size", "probability" or
    "buffer" (a distribution field as its values) for a quantity, "integer" for a whole
    number, None otherwise."""
    kinds = {
        "Time": "time",
        "Dist_Time": "time",
        "Rate": "rate",
        "Size": "size",
        "Dist_Size": "size",
        "Probability": "probability",
        "Buffer": "buffer",
    }
    nodes = field_nodes(field)
    while nodes:
        n = nodes.pop()
        if (ref := _ref(n)) is not None and ref in kinds:
            return kinds[ref]
        if n.get("type") == "integer" or (
            isinstance(n.get("type"), list) and "integer" in n["type"]
        ):
            return "integer"
        nodes += n.get("anyOf", []) + n.get("oneOf", [])
    return None


def _ref(node: dict[str, Any]) -> str | None:
    return node["$ref"].rsplit("/", 1)[-1] if "$ref" in node else None


def _type(node: dict[str, Any], defs: dict[str, dict[str, Any]]) -> str:
    """How a value of this schema node is written, in words."""
    if "anyOf" in node:
        kinds = [_type(n, defs) for n in node["anyOf"] if n.get("type") != "null"]
        return " or ".join(kinds)
    name = _ref(node)
    if name in _QUANTITIES:
        return _QUANTITIES[name]
    if name is not None:
        target = defs[name]
        values = target.get("enum") or [
            v.get("const") for v in target.get("oneOf", []) if "const" in v
        ]
        if values:
            return " \\| ".join(f'"{v}"' for v in values)
        return next(
            (title for key, title in _SECTIONS if key == name),
            "[topology]" if name == "TopologySpec" else name,
        )
    kind = node.get("type")
    if isinstance(kind, list):
        return " or ".join(_type({**node, "type": k}, defs) for k in kind if k != "null")
    if kind == "array":
        if "prefixItems" in node:
            return "[" + ", ".join(_type(n, defs) for n in node["prefixItems"]) + "]"
        return "list of " + _type(node.get("items", {}), defs)
    if kind == "object":
        return "table of " + _type(node.get("additionalProperties", {}), defs)
    if kind == "integer":
        return "integer"
    if kind == "number":
        return "number"
    if kind == "boolean":
        return "true / false"
    if kind == "string":
        return "text"
    return "value"


def _default(node: dict[str, Any], required: bool) -> str:
    if required:
        return "required"
    if "default" not in node:
        return "none"
    value: Any = node["default"]
    name = _ref(node)
    if name in ("Time", "Dist_Time") and isinstance(value, (int, float)):
        return format_seconds(value)
    if name == "Rate" and isinstance(value, (int, float)):
        return format_rate(value)
    if isinstance(value, dict):
        return ", ".join(f"{k} = {json.dumps(v)}" for k, v in value.items()) or "{}"
    return json.dumps(value)


def _one_line(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def markdown() -> str:
    """The whole reference as Markdown."""
    defs = definitions()
    lines = [
        "# Scenario file reference",
        "",
        "Generated from the engine's scenario definition (`crates/hscc-sim/src/scenario/spec/`) by `hscc fields`;",
        "do not edit by hand. Quantities take units: a time (`100ms`, `1.5s`), a rate (`700Mbps`), a size (`64KB`,",
        "`1MiB`), a probability (`1e-6`, `0.1%`), a buffer (`1500pkts`, `64KB`, `0.5bdp`); plain numbers are SI",
        "(seconds, bit/s, bytes). A distribution is a value or a table such as",
        '`{ dist = "uniform", min = "5ms", max = "25ms" }` (`fixed`: value; `uniform`: min, max; `exponential`: mean;',
        "`pareto`: mean, shape).",
        "",
    ]
    for key, title in _SECTIONS:
        d = defs[key]
        lines += [f"## {title}", ""]
        if d.get("description"):
            lines += [_one_line(d["description"]), ""]
        lines += ["| field | value | default | meaning |", "|---|---|---|---|"]
        required = set(d.get("required", []))
        for field, node in d.get("properties", {}).items():
            if field == "kind" and "const" in node:
                continue
            lines.append(
                f"| `{field}` | {_type(node, defs)} | {_default(node, field in required)} | {_one_line(node.get('description', ''))} |"
            )
        lines.append("")
        if key == "FlowSpec":
            lines += stacks_markdown()
    return "\n".join(lines)


@functools.cache
def stack_profiles() -> list[dict[str, Any]]:
    """The reference-stack profiles as the engine defines them: [{"name", "about", "settings":
    [{"knob", "value", "algorithm", "source"}]}], each value JSON as a scenario writes it."""
    profiles: list[dict[str, Any]] = json.loads(_core.stack_profiles())
    return profiles


def stacks_markdown() -> list[str]:
    """The "Reference stacks" section: one table per profile, from the engine's tables."""
    names = ", ".join(f'`"{p["name"]}"`' for p in stack_profiles())
    lines = [
        "## Reference stacks (`stack`)",
        "",
        f"`stack` ({names}), at the top of a scenario or in a `[[flows]]` entry, gives a flow the",
        "knobs of a reference stack: each knob in the profile's table that the entry leaves out takes",
        "the table's value, for every flow or only for flows of the algorithm named; a knob the entry",
        "sets wins, and a knob not in the table keeps its default. A flow entry's own `stack` wins over",
        "the scenario's. Without `stack`, flows take hscc's defaults (the default column above), which",
        "are kept as they are so that a scenario gives the results it always gave. `hscc check` prints",
        "what a profile set. A profile acts when a scenario is read: its checked form (`hscc check",
        "--json`, a run's recorded scenario) has every knob set, so a `stack` added to that form sets",
        "nothing (a sweep refuses `stack` as an axis for this reason).",
        "",
    ]
    for p in stack_profiles():
        lines += [f'### `stack = "{p["name"]}"`', "", _one_line(p["about"]), ""]
        lines += ["| knob | value | flows | source |", "|---|---|---|---|"]
        for s in p["settings"]:
            lines.append(
                f"| `{s['knob']}` | `{s['value']}` | {s['algorithm'] or 'every'} | {_one_line(s['source'])} |"
            )
        lines.append("")
    return lines
