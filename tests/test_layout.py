"""The suite's layout, read from its source with ``ast`` (nothing is imported):

- a module of tests/ never imports a test module (``test_*.py``) or a conftest: what several
  test modules share lives in a helper module (``tests/helpers.py``, ``tests/fixtures/``, a
  package's own helper module), so a test module is collected once, under one name, and moving
  or deleting a test never breaks another module;
- a test never patches a private name (a leading ``_``) of a library, anything outside
  ``webapp``, ``workers`` and ``tests`` (``monkeypatch.setattr``/``delattr``, ``mock.patch``,
  ``setattr``, an assignment, a subclass setting its base's private attribute) unless the
  line or the line above says in a comment what it measured to be worth it: a library's
  private name changes without notice in any release."""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
OURS = ("webapp", "workers", "tests")


def _modules() -> Iterator[tuple[Path, str, ast.Module]]:
    """``(path, dotted name, tree)`` of every module under tests/."""
    for path in sorted(TESTS.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield path, name, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _module_file(dotted: str) -> Path | None:
    """The file of the module ``dotted`` under tests/ (None: a package, or not ours)."""
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py") if path.with_suffix(".py").is_file() else None


def _imported(name: str, path: Path, tree: ast.Module) -> Iterator[tuple[int, str]]:
    """``(line, dotted module)`` of every module ``tree`` imports, relative imports resolved
    (``from pkg import mod`` names the module ``pkg.mod`` when that is a file)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            yield node.lineno, module
            for alias in node.names:
                yield node.lineno, f"{module}.{alias.name}"


def test_layout_imports(tmp_path):
    """The check itself: absolute, relative, ``import x`` and ``from x import y`` imports of a
    test module or a conftest are found; a helper module's are not."""
    probe = tmp_path / "tests" / "webapp" / "prizes" / "test_probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text(
        "import tests.webapp.prizes.test_backup\n"
        "from .test_paperwork import TEAM\n"
        "from . import test_accounting, paperwork\n"
        "from tests.webapp.votes.conftest import sign\n"
        "from tests.webapp.prizes.paperwork import TEAM\n"
        "from tests.helpers import COMMISSION\n",
        encoding="utf-8",
    )
    tree = ast.parse(probe.read_text(encoding="utf-8"))
    found = [
        (line, module)
        for line, module in _imported("tests.webapp.prizes.test_probe", probe, tree)
        if _is_test_or_conftest(module)
    ]
    assert found == [
        (1, "tests.webapp.prizes.test_backup"),
        (2, "tests.webapp.prizes.test_paperwork"),
        (3, "tests.webapp.prizes.test_accounting"),
        (4, "tests.webapp.votes.conftest"),
    ]


def _is_test_or_conftest(module: str) -> bool:
    last = module.rpartition(".")[2]
    return module.startswith("tests.") and (last.startswith("test_") or last == "conftest")


def test_no_module_imports_a_test_module_or_a_conftest():
    crossings = [
        f"{path.relative_to(ROOT)}:{line} imports {module}"
        for path, name, tree in _modules()
        for line, module in _imported(name, path, tree)
        if _is_test_or_conftest(module) and _module_file(module) is not None
    ]
    assert crossings == [], "\n".join(
        ["a helper several test modules share goes into a helper module:", *crossings]
    )


# --- private names of libraries --------------------------------------------------------


def _private(attr: str) -> bool:
    return attr.startswith("_") and not (attr.startswith("__") and attr.endswith("__"))


def _origins(tree: ast.Module) -> dict[str, str]:
    """``{local name: dotted origin}`` of every name ``tree`` imports (at any depth)."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    root = alias.name.partition(".")[0]
                    names[root] = root
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _dotted(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; None for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def _library_path(node: ast.expr, origins: dict[str, str]) -> str | None:
    """The dotted path of ``node`` when it names something imported from a library."""
    parts = _dotted(node)
    if not parts or parts[0] not in origins:
        return None
    origin = origins[parts[0]]
    if origin.partition(".")[0] in OURS:
        return None
    return ".".join([origin, *parts[1:]])


def _string(node: ast.expr | None) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _patches(tree: ast.Module) -> Iterator[tuple[int, int, str]]:
    """``(first line, last line, what)`` of every patch of a library's private name."""
    origins = _origins(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = _dotted(node.func) or []
            name = func[-1] if func else ""
            args = node.args
            target = None
            first = _string(args[0]) if args else None
            if name in ("setattr", "delattr", "patch") and first and "." in first:
                # monkeypatch.setattr("pkg.mod._x", v), mock.patch("pkg.mod._x")
                if first.partition(".")[0] not in OURS:
                    target = first
            elif name in ("setattr", "delattr", "object") and len(args) >= 2:
                # monkeypatch.setattr(obj, "_x", v), setattr(obj, "_x", v), patch.object(...)
                attr = _string(args[1])
                where = _library_path(args[0], origins)
                if attr is not None and where is not None:
                    target = f"{where}.{attr}"
            if target and any(_private(p) for p in target.split(".")[1:]):
                yield node.lineno, node.end_lineno or node.lineno, target
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            for target_node in targets:
                if isinstance(target_node, ast.Attribute) and _private(target_node.attr):
                    where = _library_path(target_node, origins)
                    if where is not None:
                        yield node.lineno, node.end_lineno or node.lineno, where
        elif isinstance(node, ast.ClassDef):
            yield from _subclass_patches(node, origins)


def _subclass_patches(node: ast.ClassDef, origins: dict[str, str]) -> Iterator[tuple]:
    """A subclass of a library's class that sets a private attribute its base uses
    (``self._x = …`` where the base's source reads ``self._x``)."""
    bases = [b for b in (_library_path(base, origins) for base in node.bases) if b]
    sources = []
    for base in bases:
        module, _, attr = base.rpartition(".")
        try:
            sources.append(inspect.getsource(getattr(importlib.import_module(module), attr)))
        except (ImportError, AttributeError, TypeError, OSError):
            continue
    for inner in ast.walk(node):
        if not isinstance(inner, ast.Assign):
            continue
        for target in inner.targets:
            elements = target.elts if isinstance(target, ast.Tuple) else [target]
            for element in elements:
                if (
                    isinstance(element, ast.Attribute)
                    and isinstance(element.value, ast.Name)
                    and element.value.id == "self"
                    and _private(element.attr)
                    and any(f"self.{element.attr}" in source for source in sources)
                ):
                    yield (
                        inner.lineno,
                        inner.end_lineno or inner.lineno,
                        (f"{bases[0]}.{element.attr} (in {node.name})"),
                    )


#: Comments that are instructions to a tool, not a reason.
PRAGMAS = ("type:", "noqa", "fmt:", "pragma", "nosec")


def _commented(lines: list[str], first: int, last: int) -> bool:
    """Whether a line of the statement, or the line above it, carries a comment that is not
    only a tool's pragma (``# type: ignore[…]`` says nothing of why)."""
    for line in lines[max(first - 2, 0) : last]:
        for comment in line.split("#")[1:]:
            if comment.strip() and not comment.strip().startswith(PRAGMAS):
                return True
    return False


def test_the_patch_check_finds_each_kind(tmp_path):
    source = (
        "import flask_sqlalchemy\n"
        "from flask_sqlalchemy import SQLAlchemy\n"
        "from werkzeug.routing import Rule\n"
        "import webapp.accounts.operations as accounts\n"
        "def test_x(monkeypatch):\n"
        "    monkeypatch.setattr(SQLAlchemy, '_make_engine', None)\n"
        "    monkeypatch.setattr('flask_sqlalchemy.extension._app_ctx_id', None)\n"
        "    SQLAlchemy._make_engine = None  # type: ignore[method-assign]\n"
        "    monkeypatch.setattr(accounts, '_x', 1)\n"
        "    monkeypatch.setattr(SQLAlchemy, 'init_app', None)\n"
        "    # measured: 2 s a test\n"
        "    flask_sqlalchemy._x = 1\n"
        "class R(Rule):\n"
        "    def compile(self):\n"
        "        self._build = None\n"
        "        self._mine = None\n"
    )
    lines = source.splitlines()
    found = [
        (first, what, _commented(lines, first, last))
        for first, last, what in _patches(ast.parse(source))
    ]
    assert sorted(found) == [
        (6, "flask_sqlalchemy.SQLAlchemy._make_engine", False),
        (7, "flask_sqlalchemy.extension._app_ctx_id", False),
        (8, "flask_sqlalchemy.SQLAlchemy._make_engine", False),
        (12, "flask_sqlalchemy._x", True),
        (15, "werkzeug.routing.Rule._build (in R)", False),
    ]


def test_no_private_name_of_a_library_is_patched_without_its_measured_reason():
    unexplained = []
    for path, _name, tree in _modules():
        lines = path.read_text(encoding="utf-8").splitlines()
        for first, last, what in _patches(tree):
            if not _commented(lines, first, last):
                unexplained.append(f"{path.relative_to(ROOT)}:{first} patches {what}")
    assert unexplained == [], "\n".join(
        ["a library's private name patched without a comment saying why:", *unexplained]
    )
