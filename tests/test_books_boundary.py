"""The rule-book boundary: outside ``webapp/domain/books/`` nothing compares a book's name.

Every layer asks the book (``book(season.ruleset)``, ``Season.book``) for a capability or a
value and enumerates ``BOOKS`` for choices, so a new book is one folder and one registry line
(``docs/architecture.md``, "Adding a rule book"). This test reads the code — Python by its
syntax tree, Jinja templates and JavaScript by patterns — and fails on a book's name
(``"2009"``, ``"2023"``) or a rule-book file name compared (``==``, ``!=``, ``in (…)``, a
``match`` case, ``OneOf([...])``, ``===`` in JavaScript, ``{% if … == … %}`` in Jinja) or
used as the key of a lookup (``RULESETS["2023"]``, ``{"2023": …}``, also inside
``MappingProxyType(…)``), in the rest of ``webapp/domain`` too. Docstrings, messages and
citations (``"002_e025d5ded135c1c4.txt §3.1"``) are not comparisons; migrations are data.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BOOK_NAMES = frozenset({"2009", "2023", "000_90d7c8192601ed3a.txt", "002_e025d5ded135c1c4.txt"})
NAME = r"(?:2009|2023|000_90d7c8192601ed3a\.txt|002_e025d5ded135c1c4\.txt)"
QUOTED = rf"""['"`]{NAME}['"`]"""

#: Where the books themselves live, and the stored data: never read.
EXEMPT = ("webapp/domain/books/", "webapp/migrations/")


def _is_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value in BOOK_NAMES


def _holds_name(node: ast.AST) -> bool:
    if _is_name(node):
        return True
    return isinstance(node, ast.Tuple | ast.List | ast.Set) and any(map(_is_name, node.elts))


def python_uses(source: str) -> list[int]:
    """Lines of ``source`` that compare a book's name or look one up by it."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            if any(_holds_name(n) for n in (node.left, *node.comparators)):
                lines.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and _is_name(node.value):
            lines.append(node.lineno)
        elif isinstance(node, ast.Subscript) and _is_name(node.slice):
            lines.append(node.lineno)
        elif isinstance(node, ast.Dict) and any(k is not None and _is_name(k) for k in node.keys):
            lines.append(node.lineno)
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if called == "OneOf" and any(_holds_name(a) for a in node.args):
                lines.append(node.lineno)
    return sorted(lines)


_JINJA_TAG = re.compile(r"\{%-?(.*?)-?%\}|\{\{(.*?)\}\}", re.S)
_JINJA_USE = re.compile(
    rf"(?:==|!=)\s*{QUOTED}|{QUOTED}\s*(?:==|!=)|\bin\s*[(\[][^)\]]*{QUOTED}|\[\s*{QUOTED}\s*\]"
)
_JS_USE = re.compile(
    rf"(?:===?|!==?)\s*{QUOTED}|{QUOTED}\s*(?:===?|!==?)|\bcase\s+{QUOTED}\s*:"
    rf"|\[\s*{QUOTED}\s*\]|\.includes\(\s*{QUOTED}\s*\)"
)


def jinja_uses(source: str) -> list[int]:
    """Lines of a template whose ``{% %}``/``{{ }}`` compare a book's name or look one up."""
    lines = []
    for tag in _JINJA_TAG.finditer(source):
        body = tag.group(1) if tag.group(1) is not None else tag.group(2)
        for use in _JINJA_USE.finditer(body):
            start = (tag.start(1) if tag.group(1) is not None else tag.start(2)) + use.start()
            lines.append(source.count("\n", 0, start) + 1)
    return lines


def js_uses(source: str) -> list[int]:
    """Lines of a script that compare a book's name or look one up."""
    return [source.count("\n", 0, m.start()) + 1 for m in _JS_USE.finditer(source)]


def _files() -> list[tuple[str, Path]]:
    found = []
    for top, pattern in (
        ("webapp", "*.py"),
        ("workers", "*.py"),
        ("webapp", "*.js"),
        ("templates", "*.html"),
        ("templates", "*.txt"),
        ("templates", "*.xml"),
    ):
        for path in sorted((ROOT / top).rglob(pattern)):
            rel = path.relative_to(ROOT).as_posix()
            if not rel.startswith(EXEMPT) and "/vendor/" not in rel:
                found.append((rel, path))
    return found


def uses(rel: str, source: str) -> list[int]:
    if rel.endswith(".py"):
        # the rest of the domain included: a table by book's name there (even wrapped,
        # ``MappingProxyType({"2023": …})``) is a rule kept away from its book
        return python_uses(source)
    if rel.endswith(".js"):
        return js_uses(source)
    return jinja_uses(source)


def test_nothing_outside_the_books_compares_a_books_name():
    found = {}
    for rel, path in _files():
        lines = uses(rel, path.read_text(encoding="utf-8"))
        if lines:
            found[rel] = lines
    assert not found, f"a book's name compared or looked up (ask the book instead): {found}"


def test_the_checks_find_a_planted_comparison():
    planted = {
        'if season.ruleset == "2009":\n    pass\n': [1],
        'x = ruleset != "2023"\n': [1],
        'ok = game.season.ruleset in ("2009", "2023")\n': [1],
        'plan = usual_plan(RULESETS["2023"])\n': [1],
        'LANG = {"2023": "be"}\n': [1],
        'RULE = MappingProxyType({"2023": "4.11.1", "2009": "1.2.2"})\n': [1],
        'v = validate.OneOf(["2023", "2009"])\n': [1],
        'match r:\n    case "2009":\n        pass\n': [2],
        'f = "002_e025d5ded135c1c4.txt" == rule.split()[0]\n': [1],
    }
    for source, lines in planted.items():
        assert python_uses(source) == lines, source
    assert jinja_uses("<p>\n{% if game.season.ruleset == '2009' %}x{% endif %}") == [2]
    assert jinja_uses("{% if s.ruleset in ('2023', '2009') %}{% endif %}") == [1]
    assert jinja_uses("{{ 'a' if season.ruleset != \"2023\" }}") == [1]
    assert js_uses('const a = 1;\nif (c.game.ruleset === "2009") {}') == [2]
    assert js_uses("switch (r) {\n case '2023': break; }") == [2]


def test_the_checks_pass_what_is_not_a_comparison():
    clean = (
        '"""Clause 002_e025d5ded135c1c4.txt §3.1 of the 2009 book."""\n'
        'RULE = "002_e025d5ded135c1c4.txt §3.1"\n'
        'label = "2009 (Россия, RUB)"\n'
        "if book(season.ruleset).audience_vote:\n    pass\n"
        'year = "2023" + "-0001"\n'
    )
    assert python_uses(clean) == []
    assert jinja_uses("<p>Правила 2009 г. {{ '002_e025d5ded135c1c4.txt §3.1'|rule_ref }}</p>") == []
    assert jinja_uses("{% if game.season.book.audience_vote %}2009{% endif %}") == []
    assert js_uses('const y = "2023";\nlabel("2009 rules");') == []
