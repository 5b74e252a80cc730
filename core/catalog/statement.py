"""A problem's statement: its two languages, what both must say, and how it is rendered.

README.md has a `## English` and a `## 中文` section. What is code in one must be code in the
other: every signature (a `def` in a code block), every table (its shape and its code) and every
constraint (an inline code span with a comparison, `1 <= n <= 64`) appears in both, so that a
reader of either language is held to the same contract. Rendering joins Chinese lines that
Markdown would join with a space (a soft line break between two CJK characters).
"""

from __future__ import annotations

import html.parser
import re
from dataclasses import dataclass

ENGLISH, CHINESE = "English", "中文"
_HEADING = {ENGLISH: re.compile(r"^##\s*English\s*$", re.M), CHINESE: re.compile(r"^##\s*中文\s*$", re.M)}
_FENCE = re.compile(r"^\s*(```|~~~)")
# CJK ideographs, kana, and the full-width punctuation that wraps with them.
_CJK = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_ENDS_CJK = re.compile(f"[{_CJK}]$")
_STARTS_CJK = re.compile(f"^\\s*[{_CJK}]")


@dataclass(frozen=True)
class Item:
    """Something a statement must say in both languages, and where it says it."""

    kind: str  # "signature", "table", "constraint"
    text: str  # normalised: what must be equal in both languages
    line: int  # 1-based, in the whole README


def sections(markdown: str) -> dict[str, tuple[int, str]]:
    """Language -> (first line, text) of its section; a section runs to the next `## ` heading of a language."""
    starts = sorted((m.end(), language) for language, h in _HEADING.items() for m in [h.search(markdown)] if m)
    found = {}
    for index, (start, language) in enumerate(starts):
        end = len(markdown)
        if index + 1 < len(starts):
            end = markdown.rfind("\n", 0, starts[index + 1][0] - 1)
        found[language] = (markdown.count("\n", 0, start) + 1, markdown[start:end])
    return found


def items(text: str, first_line: int = 1) -> list[Item]:
    """The signatures, tables and constraints of one section."""
    found: list[Item] = []
    lines = text.splitlines()
    prose: list[str] = []  # the section with code blocks blanked, for inline spans (which may wrap)
    fenced = False
    index = 0
    while index < len(lines):
        line = lines[index]
        if _FENCE.match(line):
            fenced = not fenced
            line = ""
        elif (fenced or line.startswith("    ")) and re.match(r"\s*(async\s+)?def\s", line):
            start = index
            signature = _code(line)
            while signature.count("(") > signature.count(")") and index + 1 < len(lines):
                index += 1
                prose.append("")
                signature += " " + _code(lines[index])
            found.append(Item("signature", " ".join(signature.split()), first_line + start))
            line = ""
        elif not fenced and line.lstrip().startswith("|") and index + 1 < len(lines) \
                and re.match(r"^\s*\|?\s*:?-{3,}", lines[index + 1]):
            rows: list[str] = []
            while index + len(rows) < len(lines) and lines[index + len(rows)].lstrip().startswith("|"):
                rows.append(lines[index + len(rows)])
            columns = rows[0].strip().strip("|").count("|") + 1
            code = " ".join(sorted(re.findall(r"`[^`\n]+`", "\n".join(rows))))
            found.append(Item("table", f"{len(rows) - 2} rows x {columns} columns: {code}", first_line + index))
        prose.append("" if fenced or line.startswith("    ") else line)
        index += 1
    joined = "\n".join(prose)
    for match in re.finditer(r"`([^`]+)`", joined):
        span = " ".join(match.group(1).split())
        if "\n\n" not in match.group(1) and re.search(r"<=|>=|==|!=|<|>", span.replace("->", "").replace("=>", "")):
            found.append(Item("constraint", span, first_line + joined.count("\n", 0, match.start())))
    return found


def _code(line: str) -> str:
    """A line of Python without its comment (a `#` inside a string is not expected in a signature)."""
    return line.split("#", 1)[0].rstrip()


def bilingual_gaps(markdown: str, filename: str = "README.md") -> list[str]:
    """What one language's section says in code that the other's does not: one message per item."""
    found = sections(markdown)
    if ENGLISH not in found or CHINESE not in found:
        return []  # the statements check reports a missing section
    said = {language: items(text, first) for language, (first, text) in found.items()}
    gaps = []
    for language, other in ((ENGLISH, CHINESE), (CHINESE, ENGLISH)):
        theirs = {item.text for item in said[other]}
        for item in said[language]:
            if item.text not in theirs:
                shown = item.text if len(item.text) <= 100 else item.text[:97] + "..."
                gaps.append(f"{filename}:{item.line}: the {language} section's {item.kind} is not in the {other} "
                            f"section: `{shown}`")
    return gaps


def rendered(markdown: str) -> str:
    """The statement as it should render: a line break between two CJK characters is removed, since
    Markdown turns it into a space that Chinese does not have. Code blocks are left as written."""
    out: list[str] = []
    fenced = False
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            out.append(line)
            continue
        if not fenced and out and _ENDS_CJK.search(out[-1]) and _STARTS_CJK.match(line) \
                and not out[-1].startswith("    ") and not out[-1].lstrip().startswith(("#", "|")):
            out[-1] += line.lstrip()
        else:
            out.append(line)
    return "\n".join(out)


class _HtmlText(html.parser.HTMLParser):
    """HTML (a LeetGPU challenge.html) as the Markdown a terminal or an editor shows: headings, paragraphs,
    lists, `code`, ```pre``` blocks and $math$ kept as written."""

    BLOCKS = {"p", "div", "ul", "ol", "table", "tr", "h1", "h2", "h3", "h4", "pre"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.pre = 0
        self.code: list[str] = []  # a <pre>'s text, as it is

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("h1", "h2", "h3", "h4"):
            self.out.append("\n\n" + "#" * min(int(tag[1]) + 1, 4) + " ")
        elif tag == "pre":
            self.pre += 1
        elif tag in self.BLOCKS:
            self.out.append("\n\n")
        elif tag == "li":
            self.out.append("\n- ")
        elif tag == "br":
            self.out.append("\n")
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag in ("td", "th"):
            self.out.append(" | ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self.pre -= 1
            self.out.append("\n\n```\n" + "".join(self.code).strip("\n") + "\n```\n\n")
            self.code = []
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag in self.BLOCKS:
            self.out.append("\n\n")

    def handle_data(self, data: str) -> None:
        (self.code if self.pre else self.out).append(data if self.pre else re.sub(r"\s+", " ", data))


def html_text(markup: str) -> str:
    """A statement in HTML, as Markdown text (see _HtmlText)."""
    parser = _HtmlText()
    parser.feed(markup)
    parser.close()
    text = "".join(parser.out)
    text = re.sub(r"[ \t]+\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
