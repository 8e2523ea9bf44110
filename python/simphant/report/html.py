"""The self-contained HTML page: every figure embedded as a base64 PNG, the key numbers as
tables (the same numbers as report.json)."""
from __future__ import annotations

import base64
import html
from typing import Dict, List, Optional, Sequence

STYLE = """body{font-family:sans-serif;max-width:1200px;margin:1em auto;color:#222}
table{border-collapse:collapse;font-size:12px;margin:0.5em 0}td,th{border:1px solid #bbb;padding:2px 6px;text-align:right}
th{background:#eee}td.l,th.l{text-align:left}img{max-width:100%;border:1px solid #ddd;margin:0.3em 0}
.skip{color:#777;font-size:12px}.warn{color:#a00}.facts{color:#444;margin:0.2em 0 0.6em}
h1{font-size:1.5em;margin:0.3em 0}h2{font-size:1.2em;margin:0.8em 0 0.3em}
.note{font-size:12px;color:#444;margin:0.3em 0}table.answer{font-size:13px}
table.answer th,table.answer td{white-space:nowrap}table.answer td:first-child{font-weight:bold}
details{margin:0.4em 0;border-top:1px solid #ddd;padding-top:0.3em}summary{cursor:pointer;font-weight:bold}"""


def esc(x) -> str:
    return html.escape(str(x))


def fmt(v) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, float):
        return f"{v:.4g}"
    return esc(v)


def table(header: Sequence[str], rows: Sequence[Sequence], left: int = 1, cls: str = "",
          left_cols: Sequence[int] = ()) -> str:
    """A table: the first `left` columns (and those in left_cols) left-aligned, numbers
    right-aligned."""
    def is_left(i):
        return i < left or i in left_cols

    h = "".join(f'<th class="l">{esc(c)}</th>' if is_left(i) else f"<th>{esc(c)}</th>" for i, c in enumerate(header))
    body = "".join("<tr>" + "".join(f'<td class="l">{fmt(c)}</td>' if is_left(i) else f"<td>{fmt(c)}</td>"
                                    for i, c in enumerate(r)) + "</tr>" for r in rows)
    c = f' class="{cls}"' if cls else ""
    return f"<table{c}><tr>{h}</tr>{body}</table>"


def details(summary: str, blocks: Sequence[str], open_: bool = False) -> str:
    """A collapsed section (<details>): its summary line shows, the blocks on a click."""
    return (f"<details{' open' if open_ else ''}><summary>{esc(summary)}</summary>\n" + "\n".join(blocks) +
            "\n</details>")


def image(title: str, png: bytes) -> str:
    return (f"<figure><img alt=\"{esc(title)}\" src=\"data:image/png;base64,{base64.b64encode(png).decode()}\">"
            f"<figcaption>{esc(title)}</figcaption></figure>")


def page(title: str, blocks: List[str]) -> str:
    return (f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{esc(title)}</title>"
            f"<style>{STYLE}</style></head><body>\n" + "\n".join(blocks) + "\n</body></html>\n")


def lines(items: Sequence[str], cls: str) -> str:
    return "<ul>" + "".join(f'<li class="{cls}">{esc(s)}</li>' for s in items) + "</ul>" if items else ""
