"""Fixtures for the engine tests: small streaming programs, a shared engine, history readers."""

from __future__ import annotations

import sys
import textwrap

import pytest

from jobsize.engine import LocalEngine

PROGRAMS = {
    # word count, as a Hadoop Streaming user writes it
    "wc_map.py": """
        import sys
        for line in sys.stdin:
            for word in line.split():
                sys.stdout.write(word + "\\t1\\n")
    """,
    "wc_reduce.py": """
        import sys
        current, total = None, 0
        for line in sys.stdin:
            key, value = line.rstrip("\\n").split("\\t", 1)
            if key != current:
                if current is not None:
                    sys.stdout.write(f"{current}\\t{total}\\n")
                current, total = key, 0
            total += int(value)
        if current is not None:
            sys.stdout.write(f"{current}\\t{total}\\n")
    """,
    # fails on its first attempt of every task, succeeds on the next
    "fail_once_map.py": """
        import os, sys
        if os.environ["mapreduce_task_attempt_id"].endswith("_0"):
            sys.stdin.read()
            sys.stderr.write("first attempt: deliberate failure\\n")
            sys.exit(3)
        for line in sys.stdin:
            for word in line.split():
                sys.stdout.write(word + "\\t1\\n")
    """,
    "fail_always_map.py": """
        import sys
        sys.stdin.read()
        sys.stderr.write("some warning\\nboom: the mapper cannot go on\\n")
        sys.exit(7)
    """,
    "fail_reduce_once.py": """
        import os, sys
        data = sys.stdin.read()
        if os.environ["mapreduce_task_attempt_id"].endswith("_0"):
            sys.stderr.write("reduce hiccup\\n")
            sys.exit(1)
        sys.stdout.write(data)
    """,
    # echoes which input file each record came from
    "input_file_map.py": """
        import os, sys
        name = os.environ["mapreduce_map_input_file"]
        assert os.environ["map_input_file"] == name
        for line in sys.stdin:
            sys.stdout.write(name + "\\t" + line)
    """,
    "cat.py": """
        import sys
        sys.stdout.buffer.write(sys.stdin.buffer.read())
    """,
    # emits keys without a value (no tab)
    "no_tab_map.py": """
        import sys
        for line in sys.stdin:
            for word in line.split():
                sys.stdout.write(word + "\\n")
    """,
    # reports a custom counter the Hadoop Streaming way
    "counter_map.py": """
        import sys
        n = 0
        for line in sys.stdin:
            n += 1
            sys.stdout.write(line.split()[0] + "\\t1\\n")
        sys.stderr.write(f"reporter:counter:custom,LINES,{n}\\n")
        sys.stderr.write("reporter:status:done\\n")
        sys.stderr.write("reporter:counter:jobsize,MAP_FUNCTION_MILLIS,999999\\n")
    """,
}


@pytest.fixture(scope="session")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, ...]]:
    """argv of each test program, keyed by name without ``.py``."""
    root = tmp_path_factory.mktemp("programs")
    argv = {}
    for name, source in PROGRAMS.items():
        path = root / name
        path.write_text(textwrap.dedent(source).lstrip())
        argv[name[:-3]] = (sys.executable, "-S", str(path))
    return argv


@pytest.fixture(scope="session")
def engine() -> LocalEngine:
    with LocalEngine(2) as eng:
        yield eng
