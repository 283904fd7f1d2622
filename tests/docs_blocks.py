"""Fenced code blocks of the documentation, and a runner that executes one page's blocks.

A page's ``python`` blocks run in one namespace, in order, interleaved with its ``sh`` blocks
(``bash -euo pipefail``), in a scratch directory; blocks of any other language (``text``,
``json``, ...) are shown, never run. Run as a script, this module is the runner:

    python tests/docs_blocks.py BLOCKS.json     # [{"lang", "code", "where"}, ...]
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import traceback
import types
from dataclasses import dataclass
from pathlib import Path

RUN = {"python": "python", "py": "python", "sh": "sh", "bash": "sh"}
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass(frozen=True)
class Block:
    lang: str      # the info string's first word, lower case ('' when untagged)
    code: str
    line: int      # 1-based line of the opening fence

    @property
    def runs(self) -> bool:
        return self.lang in RUN


def blocks(text: str) -> list[Block]:
    """Every fenced block of a Markdown text (fences may be indented, as in lists)."""
    found: list[Block] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence = match["indent"], match["fence"]
        info = match["info"].strip().strip("{}").lstrip(".")
        lang = info.split()[0].lower() if info else ""
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not (lines[j].strip().startswith(fence[0] * len(fence))
                                      and lines[j].strip().strip(fence[0]) == ""):
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        found.append(Block(lang, textwrap.dedent("\n".join(body)) + "\n", i + 1))
        i = j + 1
    return found


def run(spec: list[dict]) -> int:
    """Run the blocks in order; report the first failure by page and line."""
    # The blocks run as the __main__ module, so the functions they define can be pickled to
    # the local engine's worker processes, as a user's script's can.
    main = types.ModuleType("__main__")
    sys.modules["__main__"] = main
    namespace = vars(main)
    for block in spec:
        try:
            if block["lang"] == "python":
                exec(compile(block["code"], block["where"], "exec"), namespace)
            else:
                subprocess.run(["bash", "-euo", "pipefail", "-c", block["code"]], check=True)
        except BaseException as exc:  # report which block failed, then stop
            print(f"{block['where']}: the {block['lang']} block failed:\n{block['code']}",
                  file=sys.stderr)
            if isinstance(exc, subprocess.CalledProcessError):
                print(f"exit status {exc.returncode}", file=sys.stderr)
            else:
                traceback.print_exc()
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(run(json.loads(Path(sys.argv[1]).read_text())))
