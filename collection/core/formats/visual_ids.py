"""Visual ids: which formula instances look the same (docs/runs.md).

ARQMath groups formula instances that are rendered identically under one *visual id*. Where the
formula index gives one, it is kept (as its decimal text). Where it does not, one is computed
from a canonical string: the symbol-layout tree (SLT) of the Presentation MathML, walked depth
first, when there is MathML; else the LaTeX with all white space removed. The stored id is
``"c"`` + the first 16 hex digits of the SHA-256 of that string, so it fits the 40-character
column and can never be mistaken for a given (decimal) id.

Canonical SLT: element names without namespace, leaf text normalized (NFKC, so the styled
Unicode letters of ``mathvariant`` italics fold to plain ones; white space collapsed); every
attribute dropped (fonts, ``mathvariant``, ``stretchy``, ids, ``alttext``); ``<semantics>``
reduced to its presentation child (annotations dropped); ``<math>``, ``<mstyle>`` and the other
elements with an inferred ``<mrow>`` count as ``<mrow>``, and an ``<mrow>`` of one child is
that child, because LaTeXML and MathJax wrap the same symbols differently.
"""

import hashlib
import re
import unicodedata

from lxml import etree

COMPUTED_PREFIX = "c"
_WHITESPACE = re.compile(r"\s+")
_ATTRIBUTE = re.compile(r'\s[\w:.-]+\s*=\s*(?:"[^"]*"|\'[^\']*\')')
_BARE_LT = re.compile(r"<(?![A-Za-z_/!?])")
_BARE_AMP = re.compile(r"&(?!#?\w+;)")
# Elements whose children form an inferred <mrow> (MathML 3, 3.1.3.1): they only group or
# style, so they count as an <mrow>.
_INFERRED_MROW = frozenset({"math", "mrow", "mstyle", "mpadded", "mphantom"})
_ANNOTATIONS = frozenset({"annotation", "annotation-xml"})
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True)


class MathMLError(ValueError):
    """The Presentation MathML is not well-formed XML."""


def _local(tag: object) -> str:
    if not isinstance(tag, str):  # comments, processing instructions
        return ""
    return tag.rpartition("}")[2]


def _leaf_text(text: str | None) -> str:
    return _WHITESPACE.sub(" ", unicodedata.normalize("NFKC", text or "")).strip()


def _children(element: etree._Element) -> list[etree._Element]:
    return [c for c in element if _local(c.tag) and _local(c.tag) not in _ANNOTATIONS]


def _walk(element: etree._Element, out: list[str]) -> None:
    name = _local(element.tag)
    children = _children(element)
    if name == "semantics":
        if children:
            _walk(children[0], out)
        return
    if name in _INFERRED_MROW:
        if len(children) == 1:  # a group of one symbol is that symbol
            _walk(children[0], out)
            return
        name = "mrow"
    if not children:
        out.append(f"{name}[{_leaf_text(element.text)}]")
        return
    out.append(f"{name}(")
    for child in children:
        _walk(child, out)
    out.append(")")


def _repaired(text: str) -> str:
    """Real ARQMath SLT is not always XML: ``alttext="a<1"``, ``<mo><</mo>``, a bare ``&``.

    Attributes are ignored anyway, so they are dropped; then a ``<`` that opens no tag and an
    ``&`` that starts no entity are escaped.
    """
    text = _ATTRIBUTE.sub("", text)
    text = _BARE_LT.sub("&lt;", text)
    return _BARE_AMP.sub("&amp;", text)


def canonical_slt(mathml: str) -> str:
    """The canonical symbol-layout string of Presentation MathML (see the module docstring)."""
    text = mathml.strip()
    if text.startswith("<?xml"):  # lxml refuses a declaration in a str; it says nothing here
        text = text.partition("?>")[2]
    try:
        root = etree.fromstring(text, _PARSER)
    except etree.XMLSyntaxError:
        try:
            root = etree.fromstring(_repaired(text), _PARSER)
        except etree.XMLSyntaxError as error:
            raise MathMLError(f"malformed MathML: {error}") from error
    out: list[str] = []
    _walk(root, out)
    return "".join(out)


def canonical_latex(latex: str) -> str:
    """LaTeX with every white space character removed."""
    return "".join(latex.split())


def computed_visual_id(canonical: str) -> str:
    """The stored id of a computed visual id: "c" + 16 hex digits of SHA-256(canonical)."""
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return COMPUTED_PREFIX + digest[:16]


def visual_id_for(*, latex: str, slt: str = "") -> str:
    """Visual id of a formula without a given one: from its SLT when it has one, else LaTeX.

    SLT that is not XML even after repair (real ARQMath files hold a few, e.g. an unescaped
    ``0<r`` inside ``<mtext>``) is no usable MathML: the LaTeX decides, as for a formula that
    has none. canonical_slt() itself raises MathMLError for callers that must know.
    """
    if slt.strip():
        try:
            return computed_visual_id(canonical_slt(slt))
        except MathMLError:
            pass
    return computed_visual_id(canonical_latex(latex))
