"""Small document files in each format, and reading them, for the document parser tests."""

from __future__ import annotations

from pathlib import Path

from collection.core.formats.documents import DocumentRecord, documents_of

FT = """<DOC>
<DOCNO> FT911-3 </DOCNO>
<PROFILE>_AN-BEOA7AAIFT</PROFILE>
<DATE>910514
</DATE>
<HEADLINE>
FT  14 MAY 91 / AT&T &amp; partners &hyph; a deal
</HEADLINE>
<TEXT>
First paragraph, line one
   and line two.

Second paragraph &lt;quoted&gt;.
</TEXT>
<TEXT>A second TEXT element.</TEXT>
</DOC>
"""
LA = (
    "<doc><docno>LA010189-0001</docno><headline><P>Lower-case tags</P></headline>"
    "<text><P>One.</P><!-- a comment --><P>Two <F P=100>nested</F>.</P></text></doc>\n"
)
WEB = """<DOC>
<DOCNO>GX000-00-0000000</DOCNO>
<DOCHDR>
http://www.example.gov/page.html
HTTP/1.1 200 OK
Content-Type: text/html
</DOCHDR>
<html><head><title>A web page</title></head><body><p>Hello &amp; welcome</p></body></html>
</DOC>
"""
FBIS = """<DOC>
<DOCNO> FBIS3-1 </DOCNO>
<HEADER>
<H2>   March Reports   </H2>
<DATE1>  1 March 1994 </DATE1>
<H3> <TI>      Nested FBIS Title     </TI></H3>
</HEADER>
<TEXT>
Body text.
</TEXT>
</DOC>
"""


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def read(path: Path, file_format: str = "auto") -> list[DocumentRecord]:
    records, problems = documents_of(path, file_format)
    assert not problems, problems.messages()
    return records


def problems_of(path: Path, file_format: str = "auto") -> list[str]:
    _, problems = documents_of(path, file_format)
    assert problems, f"no problem found in {path.name}"
    return problems.messages()
