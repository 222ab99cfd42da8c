"""Pydantic's validation errors as Issues: the field path as written in a file
("flows[1].algorithm"), the value given and what is allowed."""

from __future__ import annotations

from typing import Annotated, Literal, get_args, get_origin

from pydantic import BaseModel, ValidationError

from hscc.errors import MISSING, Issue


def issues_from(error: ValidationError, model: type[BaseModel]) -> list[Issue]:
    return [_issue(e, model) for e in error.errors(include_url=False)]


def _issue(e: dict, model: type[BaseModel]) -> Issue:
    path, parent, info, candidates = _walk(model, e["loc"])
    kind, ctx, value = e["type"], e.get("ctx") or {}, e.get("input")
    cause = ctx.get("error")
    if isinstance(cause, Issue):
        return cause.at(path)
    if kind == "missing":
        return Issue(path, MISSING, info.description if info and info.description else "required")
    if kind == "extra_forbidden":
        known = ", ".join(parent.model_fields) if parent else "?"
        return Issue(path, value, f"no such field here; the fields are: {known}")
    if kind in ("union_tag_invalid", "union_tag_not_found"):
        tags = ", ".join(t for t in map(_tag, candidates) if t)
        return Issue(_join(path, "kind"), ctx.get("tag", MISSING), f"one of: {tags}")
    if kind == "model_type" or kind == "dict_type":
        return Issue(path, value, "a table of fields, e.g. { rate = \"100Mbps\", delay = \"5ms\" }")
    if cause is not None:
        return Issue(path, value, str(cause))
    if kind == "too_short":
        return Issue(path, value, f"at least {ctx.get('min_length', 1)} item(s)")
    return Issue(path, value, _EXPECTED.get(kind.split("_")[0], e["msg"].removeprefix("Input should be ")))


_EXPECTED = {"bool": "true or false", "int": "an integer", "float": "a number", "string": "a string", "list": "a list", "tuple": "a list"}


def _walk(model: type[BaseModel], loc: tuple) -> tuple[str, type[BaseModel] | None, object, list]:
    """(display path, model holding the last field, its FieldInfo, the model
    classes the value may be) along `loc`.

    Discriminator tags that pydantic puts in `loc` (e.g. "dumbbell") are left out
    of the path, as they are not written in the file as a key.
    """
    path, candidates, parent, info = "", [model], None, None
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
            continue
        tagged = [m for m in candidates if _tag(m) == part]
        if len(candidates) > 1 and tagged:
            candidates = tagged
            continue
        owner = next((m for m in candidates if part in m.model_fields), None)
        path = _join(path, str(part))
        if owner is None:
            parent = candidates[0] if len(candidates) == 1 else None
            candidates, info = [], None
            continue
        parent, info = owner, owner.model_fields[part]
        candidates = _models(info.annotation)
    return path, parent, info, candidates


def _join(path: str, part: str) -> str:
    return f"{path}.{part}" if path else part


def _tag(m: type[BaseModel]) -> str | None:
    f = m.model_fields.get("kind")
    if f is None or get_origin(f.annotation) is not Literal:
        return None
    return get_args(f.annotation)[0]


def _models(tp: object) -> list[type[BaseModel]]:
    """Every model class inside an annotation (through Optional, list, Union, Annotated)."""
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [tp]
    if get_origin(tp) is Annotated:
        return _models(get_args(tp)[0])
    return [m for a in get_args(tp) for m in _models(a)]
