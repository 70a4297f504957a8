"""The ``python models`` examples of docs/python.md run against a real server with the model routes."""

from __future__ import annotations

from tests.support.docs import GUIDE, add_example_tests, code_blocks
from tests.support.fixtures import ServerTestCase

BLOCKS = code_blocks(GUIDE.read_text(encoding="utf-8"))


class GuideModelExamplesTest(ServerTestCase):
    """One test per ``python models`` example, in the guide's order."""


add_example_tests(GuideModelExamplesTest, BLOCKS, "python models")
