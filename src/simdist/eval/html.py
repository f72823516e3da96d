"""The markdown the reports write, as a self-contained HTML page: headings, paragraphs, bullet lists, tables,
images, **bold** and `code`. Only this subset (what `simdist.eval.report` emits), so no markdown dependency."""

from __future__ import annotations

import html
import re

_STYLE = (
    "body{font-family:system-ui,sans-serif;max-width:70em;margin:2em auto;padding:0 1em;line-height:1.45}"
    "table{border-collapse:collapse;margin:0.5em 0}th,td{border:1px solid #ccc;padding:0.25em 0.6em;"
    "text-align:left;vertical-align:top}th{background:#f3f3f3}img{max-width:100%}"
    "code{background:#f3f3f3;padding:0 0.2em}"
)


def inline(text: str) -> str:
    """Escape, then images, `code` and **bold**."""
    out = html.escape(text, quote=False)
    out = re.sub(
        r"!\[([^\]]*)\]\(([^)\s]+)\)",
        lambda m: f'<img src="{html.escape(m.group(2))}" alt="{html.escape(m.group(1))}">',
        out,
    )
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


def _table(rows: list[str]) -> str:
    head, body = _cells(rows[0]), rows[2:] if len(rows) > 1 and set(rows[1]) <= set("|-: ") else rows[1:]
    parts = ["<table><thead><tr>", *(f"<th>{inline(c)}</th>" for c in head), "</tr></thead><tbody>"]
    for row in body:
        parts += ["<tr>", *(f"<td>{inline(c)}</td>" for c in _cells(row)), "</tr>"]
    return "".join(parts + ["</tbody></table>"])


def _kind(line: str) -> str:
    return "table" if line.startswith("|") else "list" if line.startswith("- ") else "p"


def markdown_to_html(md: str, title: str) -> str:
    blocks: list[str] = []
    lines = md.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            i += 1
        elif heading := re.match(r"(#{1,6})\s+(.*)", line):
            level = len(heading.group(1))
            blocks.append(f"<h{level}>{inline(heading.group(2))}</h{level}>")
            i += 1
        else:
            kind = _kind(line)
            block = []
            while i < len(lines) and lines[i].strip() and not lines[i].startswith("#") and _kind(lines[i]) == kind:
                block.append(lines[i])
                i += 1
            if kind == "table":
                blocks.append(_table(block))
            elif kind == "list":
                blocks.append("<ul>" + "".join(f"<li>{inline(b[2:])}</li>" for b in block) + "</ul>")
            else:
                blocks.append(f"<p>{inline(' '.join(block))}</p>")
    return (
        f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
        f"<style>{_STYLE}</style></head><body>\n" + "\n".join(blocks) + "\n</body></html>\n"
    )
