"""The package itself: Python 3.9 syntax, the standard library only, typed, documented."""

from __future__ import annotations

import ast
import importlib.util
import inspect
import re
import sysconfig
import unittest
from pathlib import Path
from typing import Iterator, Tuple

import svc_client
from svc_client import Client

PYTHON_ROOT = Path(__file__).resolve().parents[1]
PACKAGE = PYTHON_ROOT / "src" / "svc_client"


def modules() -> Iterator[Tuple[Path, ast.Module]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"), str(path), feature_version=(3, 9))


def is_standard_library(name: str) -> bool:
    spec = importlib.util.find_spec(name)
    if spec is None:
        return False
    if spec.origin in (None, "built-in", "frozen"):
        return True
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    platstdlib = Path(sysconfig.get_paths()["platstdlib"]).resolve()
    origin = Path(spec.origin).resolve()
    return "site-packages" not in origin.parts and (stdlib in origin.parents or platstdlib in origin.parents)


class PackageTest(unittest.TestCase):
    def test_every_module_parses_as_python_3_9_and_postpones_annotations(self) -> None:
        count = 0
        for path, tree in modules():
            count += 1
            first = [node for node in tree.body if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))][0]
            self.assertIsInstance(first, ast.ImportFrom, path)
            self.assertEqual((first.module, [alias.name for alias in first.names]), ("__future__", ["annotations"]), path)  # type: ignore[attr-defined]
            # (Python 3.9 cannot parse a match statement at all; later versions parse it into ast.Match.)
            match_statement = getattr(ast, "Match", ())
            self.assertFalse(any(isinstance(node, match_statement) for node in ast.walk(tree)), f"{path}: match needs Python 3.10")
        self.assertGreaterEqual(count, 10)

    def test_imports_only_the_standard_library(self) -> None:
        for path, tree in modules():
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module != "__future__":
                    names = [node.module or ""]
                for name in names:
                    self.assertTrue(is_standard_library(name.split(".")[0]), f"{path}: {name} is not in the standard library")

    def test_declares_no_dependencies_and_python_3_9(self) -> None:
        pyproject = (PYTHON_ROOT / "pyproject.toml").read_text(encoding="utf-8")
        self.assertRegex(pyproject, r'(?m)^dependencies = \[\]$')
        self.assertRegex(pyproject, r'(?m)^requires-python = ">=3\.9"$')
        self.assertRegex(pyproject, r'(?m)^build-backend = "setuptools\.build_meta"$')
        self.assertTrue((PACKAGE / "py.typed").is_file())

    def test_every_public_function_is_annotated_and_documented(self) -> None:
        for path, tree in modules():
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                    self.assertIsNotNone(ast.get_docstring(node), f"{path}:{node.lineno} {node.name} has no docstring")
                if isinstance(node, ast.FunctionDef):
                    arguments = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
                    unannotated = [arg.arg for arg in arguments if arg.annotation is None and arg.arg not in ("self", "cls")]
                    self.assertEqual(unannotated, [], f"{path}:{node.lineno} {node.name}")
                    self.assertIsNotNone(node.returns, f"{path}:{node.lineno} {node.name} has no return annotation")

    def test_exports_what_all_names(self) -> None:
        for name in svc_client.__all__:
            self.assertTrue(hasattr(svc_client, name), name)
        self.assertEqual(svc_client.__version__, re.search(r'(?m)^version = "(.+)"$', (PYTHON_ROOT / "pyproject.toml").read_text()).group(1))  # type: ignore[union-attr]

    def test_openai_base_url(self) -> None:
        self.assertEqual(Client("http://127.0.0.1:9997/").openai_base_url, "http://127.0.0.1:9997/v1")
        self.assertEqual(svc_client.openai_base_url("https://svc.example//"), "https://svc.example/v1")

    def test_every_resource_method_is_documented_in_the_guide(self) -> None:
        guide = (PYTHON_ROOT.parent / "docs" / "python.md").read_text(encoding="utf-8")
        client = Client("http://unused.test")
        for name in ("health", "setup", "auth", "users", "keys", "models", "registrations", "chat", "completions", "embeddings", "security", "audit"):
            resource = getattr(client, name)
            methods = [method for method, _ in inspect.getmembers(type(resource), inspect.isfunction) if not method.startswith("_")]
            self.assertGreater(len(methods), 0, name)
            for method in methods:
                self.assertIn(f"| `client.{name}.{method}(", guide, f"client.{name}.{method} is missing from docs/python.md")
        for method in ("login", "logout"):
            self.assertIn(f"| `client.{method}(", guide)
