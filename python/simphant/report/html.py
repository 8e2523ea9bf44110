"""The self-contained HTML page: every figure embedded as a base64 PNG, the key numbers as
tables (the same numbers as report.json)."""
from __future__ import annotations

import base64
import html
from typing import Dict, List, Optional, Sequence

STYLE = """body{font-family:sans-serif;max-width:1200px;margin:1em auto;color:#222}
table{border-collapse:collapse;font-size:12px;margin:0.5em 0}td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}
th{background:#eee}td.l,th.l{text-align:left}img{max-width:100%;border:1px solid #ddd;margin:0.3em 0}
.skip{color:#777;font-size:12px}.warn{color:#a00}"""


def esc(x) -> str:
    return html.escape(str(x))


def fmt(v) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.4g}"
    return esc(v)


def table(header: Sequence[str], rows: Sequence[Sequence], left: int = 1) -> str:
    h = "".join(f'<th class="l">{esc(c)}</th>' if i < left else f"<th>{esc(c)}</th>" for i, c in enumerate(header))
    body = "".join("<tr>" + "".join(f'<td class="l">{fmt(c)}</td>' if i < left else f"<td>{fmt(c)}</td>"
                                    for i, c in enumerate(r)) + "</tr>" for r in rows)
    return f"<table><tr>{h}</tr>{body}</table>"


def image(title: str, png: bytes) -> str:
    return (f"<figure><img alt=\"{esc(title)}\" src=\"data:image/png;base64,{base64.b64encode(png).decode()}\">"
            f"<figcaption>{esc(title)}</figcaption></figure>")


def page(title: str, blocks: List[str]) -> str:
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{esc(title)}</title>"
            f"<style>{STYLE}</style></head><body>\n" + "\n".join(blocks) + "\n</body></html>\n")


def lines(items: Sequence[str], cls: str) -> str:
    return "<ul>" + "".join(f'<li class="{cls}">{esc(s)}</li>' for s in items) + "</ul>" if items else ""
