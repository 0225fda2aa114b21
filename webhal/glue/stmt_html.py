"""compile_to_lowered_stmt(..., hl.StmtOutputFormat.HTML): the lowered statement as one
self-contained page, syntax-highlighted, each produce/consume/for/realize block foldable."""

from __future__ import annotations

import html
import re

_KEYWORDS = {"for", "parallel", "vectorized", "unrolled", "gpu_block", "gpu_thread", "let",
             "if", "else", "produce", "consume", "realize", "allocate", "free", "assert",
             "func", "module"}
_TOKEN = re.compile(r"(?P<string>'[^']*'|\"[^\"]*\")|(?P<number>\b\d+(\.\d+)?(e[-+]?\d+)?[fh]?\b)"
                    r"|(?P<word>[A-Za-z_][\w.$]*)|(?P<other>.)", re.S)

_STYLE = """
body { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
       background: #fbfbfa; color: #222; margin: 1.5em; }
h1 { font: 600 16px system-ui, sans-serif; } p.meta { font: 13px system-ui; color: #666; }
details { margin-left: 1.2em; border-left: 1px solid #ddd; padding-left: .6em; }
details > summary { cursor: pointer; list-style: none; white-space: pre; }
details > summary::before { content: "\\25be "; color: #999; }
details:not([open]) > summary::before { content: "\\25b8 "; }
.line { white-space: pre; margin-left: 1.2em; }
.kw { color: #8959a8; font-weight: 600; } .num { color: #c76b29; }
.str { color: #718c00; } .call { color: #3e999f; } .func { color: #4271ae; font-weight: 600; }
"""


def _highlight(text: str, funcs: set[str]) -> str:
    out = []
    for m in _TOKEN.finditer(text):
        token = html.escape(m.group(0))
        if m.group("string"):
            out.append(f'<span class="str">{token}</span>')
        elif m.group("number"):
            out.append(f'<span class="num">{token}</span>')
        elif m.group("word"):
            word = m.group("word")
            follows = text[m.end():m.end() + 1]
            if word in _KEYWORDS:
                out.append(f'<span class="kw">{token}</span>')
            elif word in funcs:
                out.append(f'<span class="func">{token}</span>')
            elif follows == "(":
                out.append(f'<span class="call">{token}</span>')
            else:
                out.append(token)
        else:
            out.append(token)
    return "".join(out)


def stmt_page(title: str, text: str, funcs: set[str]) -> str:
    """The page of a lowered statement's text (webhal's printer: blocks open with `{` at the
    end of a line and close with a line of `}`)."""
    body = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.endswith("{"):
            body.append(f"<details open><summary>{_highlight(stripped, funcs)}</summary>")
        elif stripped.startswith("}"):
            rest = stripped[1:].strip()
            if rest.endswith("{"):  # } else {
                body.append(f"</details><details open><summary>}} {_highlight(rest, funcs)}"
                            "</summary>")
            else:
                body.append("</details>" + (f'<div class="line">}} {_highlight(rest, funcs)}'
                                             "</div>" if rest else ""))
        elif stripped:
            body.append(f'<div class="line">{_highlight(stripped, funcs)}</div>')
    return (f"<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head>\n<body>\n"
            f"<h1>{html.escape(title)}</h1>\n<p class=\"meta\">Lowered statement, as webhal "
            f"compiles it; click a line ending in {{ to fold its block.</p>\n"
            + "\n".join(body) + "\n</body></html>\n")
