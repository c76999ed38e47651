"""The README's judging script ("Judging from a script"), read from README.md and run as a
reader would run it: a separate Python process talking to a live server with a token."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def readme_judging_script() -> str:
    """The Python block of the README's "Judging from a script" section."""
    section = README.read_text().split("### Judging from a script", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert block, "README's judging section has no python example"
    return block.group(1)


def run_judging_script(
    *, server: str, token: str, grades: list[tuple[str, str, int]], folder: Path
) -> subprocess.CompletedProcess[str]:
    """Run the README's script against ``server`` with a grades file of ``grades``."""
    script = folder / "judge.py"
    script.write_text(readme_judging_script())
    grades_file = folder / "grades.txt"
    grades_file.write_text("".join(f"{topic} {id_} {grade}\n" for topic, id_, grade in grades))
    environment = {**os.environ, "TOKEN": token, "QRELSMITH": server}
    return subprocess.run(  # noqa: S603 (our own script, our own interpreter)
        [sys.executable, str(script), str(grades_file)],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
