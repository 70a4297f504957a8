"""Every ``python`` example of docs/python.md runs against a real server and prints what the guide
says (the ``python models`` ones are run by ``python/tests_models``)."""

from __future__ import annotations

from .support.docs import GUIDE, add_example_tests, code_blocks
from .support.fixtures import ServerTestCase

BLOCKS = code_blocks(GUIDE.read_text(encoding="utf-8"))


class GuideShapeTest(ServerTestCase):
    set_up_admin = False

    def test_every_block_is_run_except_the_openai_one(self) -> None:
        no_run = [block for block in BLOCKS if block.info == "python no-run"]
        self.assertEqual(len(no_run), 1, [block.line for block in no_run])
        self.assertIn("from openai import", no_run[0].code)
        others = [f"{block.line}: {block.info or '(no language)'}" for block in BLOCKS if block.info not in ("python", "python models", "python no-run", "sh")]
        self.assertEqual(others, [], "a block in another language would not be run")
        self.assertGreaterEqual(len([block for block in BLOCKS if block.info == "python"]), 7)
        self.assertGreaterEqual(len([block for block in BLOCKS if block.info == "python models"]), 2)


class GuideExamplesTest(ServerTestCase):
    """One test per example, in the guide's order (they share one server, as a reader's would)."""


add_example_tests(GuideExamplesTest, BLOCKS, "python")
