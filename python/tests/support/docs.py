"""Runs the ``python`` examples of ``docs/python.md``. The convention the guide follows:

- A ```` ```python ```` block is a standalone program, run with this interpreter and ``svc_client`` on
  its path, against a real server. ```` ```python models ```` blocks need the model routes (issue 4)
  and are run by ``python/tests_models``; exactly one ```` ```python no-run ```` block (the ``openai``
  one) is not run. Every other block is ``sh``.
- The harness defines ``base_url`` (the server), ``api_key`` (a fresh key of its admin, one per
  block) and ``admin_password``, on one line before the block.
- A line with ``print(…)`` ending in ``# text`` expects ``text`` as the block's next line of output
  (a trailing `` (remark)`` is allowed); a block prints nothing else.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import unittest
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, List

from .server import ADMIN_PASSWORD, REPO_ROOT, create_admin_key

GUIDE = REPO_ROOT / "docs" / "python.md"
BLOCK_DEADLINE_SECONDS = 60


@dataclass
class CodeBlock:
    """A fenced block of the guide."""

    info: str
    code: str
    #: The line of docs/python.md where the code starts.
    line: int


def code_blocks(markdown: str) -> List[CodeBlock]:
    """Every fenced block of ``markdown``."""
    found: List[CodeBlock] = []
    open_info = None
    start = 0
    body: List[str] = []
    for index, text in enumerate(markdown.split("\n")):
        if open_info is None:
            fence = re.match(r"^```(.*)$", text)
            if fence:
                open_info, start, body = fence.group(1).strip(), index + 2, []
        elif text.rstrip() == "```":
            found.append(CodeBlock(open_info, "\n".join(body), start))
            open_info = None
        else:
            body.append(text)
    if open_info is not None:
        raise AssertionError("docs/python.md has an unclosed code fence")
    return found


def expected_output(code: str) -> List[str]:
    """The output a block announces with ``print(…)  # text`` comments, in order."""
    expected = []
    for line in code.split("\n"):
        if "print(" in line:
            comment = re.search(r"  # (.+)$", line)
            if comment is None:
                raise AssertionError(f"a print without its expected output: {line.strip()}")
            expected.append(comment.group(1).strip())
    return expected


def run_block(test: unittest.TestCase, block: CodeBlock, base_url: str) -> None:
    """Runs ``block`` against the server at ``base_url`` and checks what it prints."""
    key = create_admin_key(base_url, f"docs/python.md:{block.line}")
    prelude = f"base_url, api_key, admin_password = {base_url!r}, {key!r}, {ADMIN_PASSWORD!r}"
    source_root = REPO_ROOT / "python" / "src"
    env = {name: value for name, value in os.environ.items() if name not in ("SVC_ENDPOINT", "SVC_API_KEY")}
    env["PYTHONPATH"] = str(source_root)
    with tempfile.TemporaryDirectory(prefix="svc-docs-example-") as directory:
        program = Path(directory) / "example.py"
        program.write_text(f"{prelude}\n{block.code}\n", encoding="utf-8")
        result = subprocess.run(
            [sys.executable, str(program)], cwd=directory, env=env, capture_output=True, text=True, timeout=BLOCK_DEADLINE_SECONDS
        )
    where = f"docs/python.md:{block.line} (line N of example.py is line N + {block.line - 2} of the guide)"
    test.assertEqual(result.returncode, 0, f"{where} failed:\n{result.stderr}\n{result.stdout}")
    printed = [line for line in result.stdout.split("\n") if line != ""]
    expected = expected_output(block.code)
    test.assertEqual(len(printed), len(expected), f"{where} printed:\n{result.stdout}\nexpected:\n" + "\n".join(expected))
    for line, comment in zip(printed, expected):
        test.assertTrue(comment == line or comment.startswith(f"{line} ("), f'{where}: printed "{line}", the guide says "{comment}"')


def add_example_tests(test_class: type, blocks: List[CodeBlock], info: str) -> None:
    """Adds to ``test_class`` (a ``ServerTestCase``) one test per block of ``blocks`` whose info is
    ``info``, named after its line in the guide (so they run in the guide's order)."""
    for block in blocks:
        if block.info == info:
            setattr(test_class, f"test_docs_python_md_line_{block.line:04d}", _example_test(block))


def _example_test(block: CodeBlock) -> Callable[[Any], None]:
    def test(self: Any) -> None:
        run_block(self, block, self.base_url)

    return test
