"""The ``python models`` examples of docs/python.md run against a real server with the model routes."""

from __future__ import annotations

from tests.support.docs import GUIDE, code_blocks, run_block
from tests.support.fixtures import ServerTestCase

BLOCKS = code_blocks(GUIDE.read_text(encoding="utf-8"))


class GuideModelExamplesTest(ServerTestCase):
    """One test per ``python models`` example, in the guide's order."""


def _example_test(block_index: int):  # type: ignore[no-untyped-def]
    def test(self: GuideModelExamplesTest) -> None:
        run_block(self, BLOCKS[block_index], self.base_url)

    return test


for _index, _block in enumerate(BLOCKS):
    if _block.info == "python models":
        setattr(GuideModelExamplesTest, f"test_docs_python_md_line_{_block.line:04d}", _example_test(_index))
