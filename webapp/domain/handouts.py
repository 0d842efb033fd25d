"""Handouts and image references in question texts (pure: stdlib only).

Packets refer to images by file name: chgksuite's 4s ``(img [options] file.jpg)`` and
db.chgk.info's ``(pic: file.jpg)`` (turned into ``(img file.jpg)`` by
:func:`webapp.domain.packets.parse_db`). The files come with the packet (a zip or a folder)
or are attached by an editor; printing shows the image in place of the reference, never the
reference text.

A question imported from a packet keeps a leading ``[Раздаточный материал: …]`` block in
its text and the same body in ``handout`` (:mod:`webapp.domain.packets`); printed
documents show it once, in the handout box (:func:`without_leading_handout`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "Part",
    "image_refs",
    "image_spans",
    "leading_handout_span",
    "missing_images",
    "plain_text",
    "split_images",
    "strip_images",
    "without_leading_handout",
]

_IMG_START = re.compile(r"\(img\b", re.IGNORECASE)
_HANDOUT_PREFIX = re.compile(r"\[\s*Раздаточный материал\s*:?", re.IGNORECASE)


def image_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, file name)`` of every ``(img [options] file)`` reference of ``text``
    (``text[start:end]`` is the whole reference, parentheses may nest inside it); a
    reference without a file name or without its closing parenthesis is not one."""
    found: list[tuple[int, int, str]] = []
    if "(" not in text:  # most fields: no reference possible, no regular expression run
        return found
    for m in _IMG_START.finditer(text):
        if found and m.start() < found[-1][1]:
            continue  # inside the previous reference
        depth, i = 0, m.start()
        while i < len(text):
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        words = text[m.end() : i].split()
        if words and i < len(text):
            found.append((m.start(), i + 1, words[-1]))
    return found


def image_refs(*texts: str | None) -> list[str]:
    """The file names referenced by ``texts`` (``None`` allowed), each once, in order:
    ``image_refs("(img a.png) и (img w=5cm b.jpg)", None, "(img a.png)")`` →
    ``["a.png", "b.jpg"]``."""
    names: list[str] = []
    for text in texts:
        for _start, _end, name in image_spans(text or ""):
            if name not in names:
                names.append(name)
    return names


@dataclass(frozen=True)
class Part:
    """A piece of a text as printed: ``text`` (plain text, may be empty) or ``image`` (the
    referenced file name, as written); exactly one is set."""

    text: str | None = None
    image: str | None = None


def split_images(text: str | None) -> list[Part]:
    """``text`` cut at its image references: text parts and image parts in order; blank
    lines left around a reference are trimmed (an image is a block of its own).
    ``"Вот снимок:\\n(img a.jpg)"`` → ``[Part(text="Вот снимок:"), Part(image="a.jpg")]``."""
    text = text or ""
    parts: list[Part] = []
    pos = 0
    for start, end, name in image_spans(text):
        before = text[pos:start].strip("\n ")
        if before:
            parts.append(Part(text=before))
        parts.append(Part(image=name))
        pos = end
    rest = text[pos:].strip("\n ") if pos else text
    if rest:
        parts.append(Part(text=rest))
    return parts


def strip_images(text: str | None) -> str:
    """``text`` without its image references (what is left to print as text), trimmed."""
    return "\n".join(p.text for p in split_images(text) if p.text).strip()


def leading_handout_span(text: str) -> tuple[str, int] | None:
    """The body and end offset of a ``[Раздаточный материал: …]`` block that opens
    ``text`` (square brackets may nest, ``\\]`` does not close), or None."""
    m = _HANDOUT_PREFIX.match(text)
    if not m:
        return None
    depth = 0
    for i in range(m.start(), len(text)):
        if text[i] == "[" and (i == 0 or text[i - 1] != "\\"):
            depth += 1
        elif text[i] == "]" and text[i - 1] != "\\":
            depth -= 1
            if depth == 0:
                return text[m.end() : i].strip(), i + 1
    return None


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def without_leading_handout(text: str, handout: str | None) -> str:
    """``text`` without its leading ``[Раздаточный материал: …]`` block when that block is
    the question's ``handout`` (whitespace aside), so that a document printing the handout
    in its own box prints it once; otherwise ``text`` unchanged."""
    span = leading_handout_span(text)
    if span is None or not handout or _squeeze(span[0]) != _squeeze(handout):
        return text
    return text[span[1] :].lstrip("\n ")


def plain_text(text: str | None, *, handout_mark: str, image_mark: str) -> str:
    """``text`` as one plain line, for a quotation or a preview where no image can show: a
    leading ``[Раздаточный материал: …]`` block becomes ``handout_mark``, every other image
    reference ``image_mark``, whitespace runs one space.
    ``plain_text("[Раздаточный материал:\\n(img k_001.png)]\\nАвтор сравнил", handout_mark=
    "(раздаточный материал)", image_mark="(изображение)")`` → ``"(раздаточный материал)
    Автор сравнил"``. The marks are the caller's (a page translates them)."""
    text = text or ""
    head = ""
    span = leading_handout_span(text)
    if span is not None:
        head, text = handout_mark, text[span[1] :]
    pieces = [head] if head else []
    for part in split_images(text):
        pieces.append(image_mark if part.image is not None else part.text or "")
    return _squeeze(" ".join(pieces))


def missing_images(refs: Iterable[str], attached: Iterable[str]) -> list[str]:
    """The names of ``refs`` that are not in ``attached``, in order."""
    have = set(attached)
    return [r for r in refs if r not in have]
