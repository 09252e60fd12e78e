"""The package stays Python 3.9 compatible, whichever Python runs the tests: no 3.10+ syntax or APIs."""
from __future__ import annotations

import ast
import pathlib
import unittest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "generation_service"
#: Names from Python 3.10 and later that 3.9 does not have.
NEWER_NAMES = {"NotRequired", "Required", "Self", "TypeAlias", "ParamSpec", "Concatenate", "TypeGuard", "LiteralString", "Never", "Unpack",
               "ExceptionGroup", "BaseExceptionGroup", "aiter", "anext", "tomllib", "UTC", "StrEnum", "pairwise", "batched", "kw_only"}


def sources():
    return sorted(PACKAGE.glob("*.py"))


class Python39Syntax(unittest.TestCase):
    def test_every_module_parses_as_python_3_9(self) -> None:
        self.assertGreater(len(sources()), 5)
        for path in sources():
            with self.subTest(module=path.name):
                ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 9))

    def test_no_newer_names_and_no_union_operator_in_annotations(self) -> None:
        for path in sources():
            tree = ast.parse(path.read_text(encoding="utf-8"))
            with self.subTest(module=path.name):
                used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
                used |= {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
                used |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) for alias in node.names}
                used |= {kw.arg for node in ast.walk(tree) if isinstance(node, ast.Call) for kw in node.keywords if kw.arg}
                self.assertEqual(used & NEWER_NAMES, set())
                # `X | None` in an annotation is evaluated by typing.get_type_hints, which fails on 3.9.
                annotations = [n.annotation for n in ast.walk(tree) if isinstance(n, (ast.arg, ast.AnnAssign)) and n.annotation is not None]
                annotations += [n.returns for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.returns is not None]
                unions = [ast.unparse(a) for a in annotations for n in ast.walk(a) if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr)]
                self.assertEqual(unions, [])

    def test_type_hints_resolve(self) -> None:
        import typing

        import generation_service as sdk

        for name in ("Generation", "Model", "Credits", "LedgerEntry", "WebhookEvent", "StreamEvent", "VerifiedWebhook", "Batch", "BatchLineResult"):
            with self.subTest(type=name):
                self.assertTrue(typing.get_type_hints(getattr(sdk, name)))
        for function in (sdk.verify_webhook, sdk.GenerationClient.__init__, sdk.Generations.create, sdk.Generations.wait, sdk.Batches.create, sdk.Batches.results):
            with self.subTest(function=function.__qualname__):
                self.assertIn("return", typing.get_type_hints(function))


if __name__ == "__main__":
    unittest.main()
