#!/usr/bin/env python3
"""Writes the Python API reference (docs/python-api.md) from the docstrings of the
simphant package.

    PYTHONPATH=build/python python3 scripts/python_api_doc.py            # writes docs/python-api.md
    PYTHONPATH=build/python python3 scripts/python_api_doc.py --check    # exit 1 if it is out of date

tests/python/test_api_doc.py runs the check.
"""
from __future__ import annotations

import argparse
import enum
import inspect
import pathlib
import sys
from typing import Any, List

HEADER = """# Python API reference

Generated from the docstrings by `scripts/python_api_doc.py` (do not edit by hand; the
tutorial is [python.md](python.md)). Shapes use n = instances, B = bodies, J = joints;
units are SI; frames as in the README's "Output (HDF5)".
"""


def _doc(obj: Any) -> str:
    return inspect.cleandoc(obj.__doc__) if obj.__doc__ else ""


def _annotation(a: Any) -> str:
    """An annotation as written in the source (the package uses postponed annotations)."""
    text = a if isinstance(a, str) else inspect.formatannotation(a)
    return text.replace("'", "").replace('"', "")  # forward references as plain names


def _signature(obj: Any) -> str:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    parts, star_done = [], False
    for p in sig.parameters.values():
        if p.name in ("self", "cls"):
            continue
        if p.kind == p.KEYWORD_ONLY and not star_done:
            parts.append("*")
            star_done = True
        prefix = "*" if p.kind == p.VAR_POSITIONAL else "**" if p.kind == p.VAR_KEYWORD else ""
        star_done |= p.kind == p.VAR_POSITIONAL
        text = prefix + p.name
        if p.annotation is not p.empty:
            text += ": " + _annotation(p.annotation)
        if p.default is not p.empty:
            text += " = " + repr(p.default)
        parts.append(text)
    ret = "" if sig.return_annotation is sig.empty else " -> " + _annotation(sig.return_annotation)
    return "(" + ", ".join(parts) + ")" + ret


def _block(text: str) -> List[str]:
    return ["", "```text", text, "```"] if text else []


def _members(cls: type) -> List[str]:
    out: List[str] = []
    for name, member in cls.__dict__.items():
        if name.startswith("_") and name != "__init__":
            continue
        if isinstance(member, property):
            out += [f"#### `{cls.__name__}.{name}` (property)"] + _block(_doc(member)) + [""]
        elif isinstance(member, (classmethod, staticmethod)):
            f = member.__func__
            out += [f"#### `{cls.__name__}.{name}{_signature(f)}`"] + _block(_doc(f)) + [""]
        elif inspect.isfunction(member) and name != "__init__":
            out += [f"#### `{cls.__name__}.{name}{_signature(member)}`"] + _block(_doc(member)) + [""]
    return out


def _entry(qualname: str, obj: Any) -> List[str]:
    if inspect.isclass(obj) and issubclass(obj, enum.Enum):
        lines = [f"### `{qualname}` (enum)"] + _block(_doc(obj)) + [""]
        lines += [f"- `{m.name}` = {m.value!r}" + (f": {_doc(m)}" if m.__doc__ and m.__doc__ != obj.__doc__ else "")
                  for m in obj]
        return lines + [""]
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return [f"### `{qualname}` (exception, a {obj.__mro__[1].__name__})"] + _block(_doc(obj)) + [""]
    if inspect.isclass(obj):
        init = obj.__dict__.get("__init__")
        sig = _signature(init).replace(" -> None", "") if init else ""
        return [f"### `{qualname}{sig}`"] + _block(_doc(obj)) + [""] + _members(obj)
    if callable(obj):
        return [f"### `{qualname}{_signature(obj)}`"] + _block(_doc(obj)) + [""]
    return [f"### `{qualname}`", "", f"`{obj!r}`", ""]


def render() -> str:
    import simphant
    import simphant.distributed
    import simphant.gym

    lines = [HEADER]
    for module in (simphant, simphant.gym, simphant.distributed):
        lines += [f"## `{module.__name__}`"] + _block(_doc(module)) + [""]
        for name in sorted(module.__all__, key=str.lower):
            obj = getattr(module, name)
            if name == "__version__":
                lines += ["### `simphant.__version__`", "", "The version of the C++ core the module was built from "
                          "(CMake's project version).", ""]
                continue
            lines += _entry(f"{module.__name__}.{name}", obj)
    return "\n".join(lines).rstrip() + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when docs/python-api.md is out of date")
    ap.add_argument("--out", default=str(pathlib.Path(__file__).resolve().parents[1] / "docs" / "python-api.md"))
    args = ap.parse_args()
    text = render()
    out = pathlib.Path(args.out)
    if args.check:
        if not out.exists() or out.read_text() != text:
            print(f"{out} is out of date: run python3 scripts/python_api_doc.py", file=sys.stderr)
            return 1
        return 0
    out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
