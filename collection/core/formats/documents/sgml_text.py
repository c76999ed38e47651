"""The text inside TREC SGML fields: inner tags dropped, paragraphs kept, entities decoded.

TREC's newswire and government collections mark paragraphs with ``<P>`` (LA Times), nest
tags such as ``<F P=100>`` (FBIS), leave comments such as ``<!-- PJG … -->`` (Federal
Register) and use SGML entities such as ``&amp;``, ``&hyph;`` and ``&blank;``. A ``&`` that
starts no known entity (``AT&T``) stays as it is.
"""

from __future__ import annotations

import html
import re
from html.entities import html5

_PARAGRAPH_TAG = re.compile(r"</?p(?:\s[^<>]*)?>", re.I)
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9_.:\-]*(?:\s[^<>]*)?/?>")
_ENTITY = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{0,31});")
_BLANK_LINES = re.compile(r"\n[ \t\r\f\v]*\n\s*")
_SPACES = re.compile(r"\s+")
# SGML entities of TREC collections that HTML does not define.
TREC_ENTITIES = {
    "hyph": "-",
    "blank": " ",
    "space": " ",
    "rsquo": "\u2019",
    "lsquo": "\u2018",
    "cir": "\u25cb",
    "bull": "\u2022",
}


def _entity(match: re.Match[str]) -> str:
    name = match.group(1)
    if name[0] == "#":
        decoded = html.unescape(match.group(0))
        # A NUL, surrogate or out-of-range number stays as written.
        return match.group(0) if decoded in ("\x00", "\ufffd") else decoded
    return TREC_ENTITIES.get(name) or html5.get(name + ";") or match.group(0)


def _drop_comments(content: str) -> str:
    """Without its ``<!-- … -->`` comments (an unclosed one runs to the end). str.find, not a
    regex: many unclosed comments would make a lazy ``<!--.*?-->`` quadratic."""
    start = content.find("<!--")
    if start < 0:
        return content
    kept, position = [], 0
    while start >= 0:
        kept.append(content[position:start])
        end = content.find("-->", start + 4)
        if end < 0:
            return "".join(kept)
        position = end + 3
        start = content.find("<!--", position)
    kept.append(content[position:])
    return "".join(kept)


def decode_entities(text: str) -> str:
    return _ENTITY.sub(_entity, text) if "&" in text else text


def field_text(content: str) -> str:
    """A field's content as plain text: paragraphs (``<P>`` or blank lines) separated by one
    blank line, each line trimmed, inner tags and comments dropped, entities decoded."""
    if "<" in content:
        content = _drop_comments(content)
        content = _PARAGRAPH_TAG.sub("\n\n", content)
        content = _TAG.sub("", content)
    content = decode_entities(content)
    paragraphs = []
    for block in _BLANK_LINES.split(content):
        lines = [line.strip() for line in block.splitlines()]
        paragraph = "\n".join(line for line in lines if line)
        if paragraph:
            paragraphs.append(paragraph)
    return "\n\n".join(paragraphs)


def line_text(content: str) -> str:
    """A field's content on one line (titles, metadata): whitespace runs become one space."""
    return _SPACES.sub(" ", field_text(content)).strip()
