"""The import checks import-linter's contracts cannot express, run by `make lint`.

1. No import circle among the modules of `webapp` and `workers`, counting imports inside
   functions and under `if TYPE_CHECKING:` too: a circle that only type checking closes
   still ties the two modules into one room, so it is one change away from a real circle
   (the few type-only back-edges still allowed are listed in ``TYPE_ONLY_BACK_EDGES``).
2. No private name crosses a module: `from x import _name`, `import x` then `x._name`,
   `from p import x` then `x._name`, or `monkeypatch.setattr(x, "_name", …)`, where `x` is
   another module of ours (the code or the tests). A name another module needs is public, with a docstring, or it lives there.

Exit 0 when clean; exit 1 listing every circle and every crossing private otherwise.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("webapp", "workers")
SCANNED = ("webapp", "workers", "tests", "tools")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def ours(name: str) -> bool:
    return name.split(".")[0] in SCANNED


#: Type-only imports a circle may still close, each with its reason; the check fails when
#: one of them becomes a real import or is no longer there, so the list only shrinks. The
#: season engine's base rule book and helpers name the engine's ``Season`` in their
#: signatures while the engine calls them; they are to take the state they read, not the
#: engine.
TYPE_ONLY_BACK_EDGES = frozenset(
    ("webapp.domain.season." + importer, "webapp.domain.season.engine")
    for importer in ("rulebook", "games", "withdrawals")
)


def cycles() -> list[str]:
    """Each circle once, as the chain of modules that closes it, and each entry of
    :data:`TYPE_ONLY_BACK_EDGES` that no longer holds."""
    graph = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=False, cache_dir=None)
    runtime = grimp.build_graph(*PACKAGES, exclude_type_checking_imports=True, cache_dir=None)
    problems: list[str] = []
    for importer, imported in sorted(TYPE_ONLY_BACK_EDGES):
        if importer not in graph.modules or not graph.direct_import_exists(
            importer=importer, imported=imported
        ):
            problems.append(f"{importer} -> {imported}: no longer imported, drop it from the list")
        elif runtime.direct_import_exists(importer=importer, imported=imported):
            problems.append(f"{importer} -> {imported}: imported at run time now")
        else:
            graph.remove_import(importer=importer, imported=imported)
    seen: set[frozenset[str]] = set()
    for module in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back is None:
                continue
            circle = (module, *back)
            key = frozenset(circle)
            if key not in seen:
                seen.add(key)
                problems.append(" -> ".join(circle))
    return problems


def resolve(module: str, is_package: bool, level: int, target: str | None) -> str:
    """The absolute name of a (possibly relative) `from … import`."""
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, target] if target else base)


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def crossings(path: Path) -> Iterator[str]:
    """Every private name this file takes from another module of ours."""
    label = str(path.relative_to(ROOT))
    source = path.read_text(encoding="utf-8")
    yield from crossings_in(source, module_name(path), path.name == "__init__.py", label)


def crossings_in(source: str, module: str, is_package: bool, label: str) -> Iterator[str]:
    """Every private name the source of ``module`` takes from another module of ours, each
    as ``label:line: what``."""
    tree = ast.parse(source, filename=label)
    aliases: dict[str, str] = {}  # local name -> a module of ours it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if ours(alias.name):
                    if alias.asname:
                        aliases[alias.asname] = alias.name
                    else:
                        aliases.setdefault(alias.name.split(".")[0], alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            source_module = resolve(module, is_package, node.level, node.module)
            if not ours(source_module) or source_module == module:
                continue
            for alias in node.names:
                if private(alias.name):
                    yield f"{label}:{node.lineno}: from {source_module} import {alias.name}"
                else:
                    aliases[alias.asname or alias.name] = f"{source_module}.{alias.name}"
    for node in ast.walk(tree):
        # monkeypatch.setattr(module, "_name", …): a private patched from outside
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "setattr"
            and len(node.args) >= 2
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id in aliases
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and private(node.args[1].value)
            and is_module(aliases[node.args[0].id])
        ):
            target = aliases[node.args[0].id]
            yield f"{label}:{node.lineno}: setattr {target}.{node.args[1].value}"
        if isinstance(node, ast.Attribute) and private(node.attr):
            chain: list[str] = []
            value: ast.expr = node.value
            while isinstance(value, ast.Attribute):
                chain.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in aliases:
                target = ".".join([aliases[value.id], *reversed(chain)])
                if target != module and is_module(target):
                    yield f"{label}:{node.lineno}: {target}.{node.attr}"


def is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def main() -> int:
    problems = cycles()
    if problems:
        problems.insert(0, "import circles (type-checking imports included):")
    private_names = [
        line
        for folder in SCANNED
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "migrations" not in path.parts
        for line in crossings(path)
    ]
    if private_names:
        problems.append("private names imported across modules:")
        problems.extend(private_names)
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
