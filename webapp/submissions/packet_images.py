"""A packet's images: read from a zip or a folder, stored with the imported questions.

A packet refers to its images by file name (``(img name)``, db.chgk.info ``(pic: name)``;
:mod:`webapp.domain.handouts`). The files come beside it: in a zip (with the packet text
or alone) or a folder. Nothing is ever downloaded from the packet's URLs.

Limits (:class:`BundleError` with a Russian message otherwise; nothing is written): at most
:data:`MAX_MEMBERS` files, :data:`MAX_TOTAL_BYTES` uncompressed in all (counted while
reading, not taken from the zip's headers, so a zip bomb stops at the limit), each image
at most ``images.MAX_BYTES``; names with a folder part ``..``, an absolute path, a
drive letter or a backslash are refused; two files of one name in different folders are
refused (a reference names the file only). Each image is verified, decoded within the
pixel budget and re-encoded by :func:`webapp.submissions.images.store_image`.
"""

from __future__ import annotations

import io
import stat
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from flask_babel import gettext as _

from webapp.domain.handouts import image_refs
from webapp.domain.packets import PacketError
from webapp.submissions.images import MAX_BYTES, ImageError, store_image
from webapp.submissions.models import Question, QuestionImage

__all__ = [
    "IMAGE_SUFFIXES",
    "MAX_MEMBERS",
    "MAX_TOTAL_BYTES",
    "PACKET_SUFFIXES",
    "Bundle",
    "BundleError",
    "attach_packet_images",
    "missing_refs",
    "packet_error_text",
    "read_bundle",
]

#: Files in one zip or folder at most.
MAX_MEMBERS = 500
#: Uncompressed bytes of one zip or folder at most (all files together).
MAX_TOTAL_BYTES = 100 * 1024 * 1024
#: Suffixes read as images; anything else but a packet text is skipped.
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".webp", ".gif"})
#: Suffixes read as the packet text of a zip.
PACKET_SUFFIXES = frozenset({".4s", ".txt", ".canon"})


class BundleError(ValueError):
    """A zip or folder that is refused; the message is for the editor (Russian)."""


@dataclass
class Bundle:
    """What a zip or folder holds: ``packet`` = ``(file name, bytes)`` of its packet text
    (None without one), ``images`` = ``{file name: bytes}`` (names without folders)."""

    packet: tuple[str, bytes] | None = None
    images: dict[str, bytes] = field(default_factory=dict)


def _member_name(raw: str) -> PurePosixPath:
    """The member's path, refused when it could leave the folder it is unpacked into."""
    path = PurePosixPath(raw)
    if (
        "\\" in raw
        or raw.startswith("/")
        or ".." in path.parts
        or (path.parts and ":" in path.parts[0])
    ):
        raise BundleError(_("Недопустимое имя файла в архиве: %(name)s", name=raw[:200]))
    return path


def _skipped(path: PurePosixPath) -> bool:
    """macOS resource forks and hidden files are not the packet's."""
    return any(p.startswith(".") or p == "__MACOSX" for p in path.parts)


class _Collector:
    def __init__(self) -> None:
        self.bundle = Bundle()
        self.total = 0
        self.count = 0

    def budget(self) -> int:
        return MAX_TOTAL_BYTES - self.total

    def add(self, path: PurePosixPath, data: bytes) -> None:
        self.total += len(data)
        if self.total > MAX_TOTAL_BYTES:
            raise _too_big()
        suffix = path.suffix.lower()
        if suffix in IMAGE_SUFFIXES:
            if path.name in self.bundle.images:
                raise BundleError(_("Два файла с именем %(name)s.", name=path.name))
            if len(data) > MAX_BYTES:
                raise BundleError(f"{path.name}: " + _("Изображение больше 5 МБ."))
            self.bundle.images[path.name] = data
        elif suffix in PACKET_SUFFIXES:
            if self.bundle.packet is not None:
                raise BundleError(
                    _(
                        "В архиве больше одного файла пакета: %(a)s и %(b)s.",
                        a=self.bundle.packet[0],
                        b=path.name,
                    )
                )
            self.bundle.packet = (path.name, data)

    def wants(self, path: PurePosixPath) -> bool:
        if _skipped(path):
            return False
        self.count += 1
        if self.count > MAX_MEMBERS:
            raise BundleError(_("Слишком много файлов: не более %(n)s.", n=MAX_MEMBERS))
        return path.suffix.lower() in IMAGE_SUFFIXES | PACKET_SUFFIXES


def _too_big() -> BundleError:
    return BundleError(
        _(
            "Файлы пакета слишком велики: не более %(n)s МБ в распакованном виде.",
            n=MAX_TOTAL_BYTES // (1024 * 1024),
        )
    )


def _read_zip(source: Path | bytes) -> Bundle:
    collect = _Collector()
    try:
        archive = zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
    except (zipfile.BadZipFile, OSError) as exc:
        raise BundleError(_("Файл не является архивом ZIP.")) from exc
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS * 2:  # directories and skipped files count too
            raise BundleError(_("Слишком много файлов: не более %(n)s.", n=MAX_MEMBERS))
        for info in members:
            path = _member_name(info.filename)
            if info.is_dir() or not collect.wants(path):
                continue
            if info.file_size > collect.budget():
                raise _too_big()
            try:
                with archive.open(info) as member:
                    data = member.read(collect.budget() + 1)  # headers may lie: count
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError) as exc:
                raise BundleError(_("Файл %(name)s в архиве не читается.", name=path.name)) from exc
            collect.add(path, data)
    return collect.bundle


def _read_folder(folder: Path) -> Bundle:
    collect = _Collector()
    for path in sorted(folder.rglob("*")):
        rel = PurePosixPath(path.relative_to(folder).as_posix())
        mode = path.lstat().st_mode
        if not stat.S_ISREG(mode) or not path.resolve().is_relative_to(folder.resolve()):
            continue  # symlinks are not followed out of the folder
        if not collect.wants(rel):
            continue
        if path.stat().st_size > collect.budget():
            raise _too_big()
        with path.open("rb") as f:
            collect.add(rel, f.read(collect.budget() + 1))
    return collect.bundle


def read_bundle(source: Path | bytes) -> Bundle:
    """Read a zip (a path or its bytes) or a folder (a path) into a :class:`Bundle`.
    Raises :class:`BundleError` (see the module's limits); ``OSError`` if a path cannot
    be read."""
    if isinstance(source, Path) and source.is_dir():
        return _read_folder(source)
    return _read_zip(source)


def _find(images: dict[str, bytes], name: str) -> str | None:
    """The bundle's file for reference ``name``: the same name, else the only one that
    differs from it in letter case only."""
    if name in images:
        return name
    folded = [n for n in images if n.casefold() == name.casefold()]
    return folded[0] if len(folded) == 1 else None


def attach_packet_images(
    questions: Iterable[Question], images: dict[str, bytes], uploads: Path
) -> list[str]:
    """Store the images the ``questions`` refer to (question, handout and comment) and
    attach them (:class:`QuestionImage`). Each file is stored once however many questions
    refer to it. Returns the stored file names (the caller removes them if its transaction
    fails). Raises :class:`BundleError` for a file that is not an acceptable image (its
    name and why); the files stored so far are removed then. Flushes nothing: the rows are
    added to the questions."""
    stored: dict[str, str] = {}
    try:
        for q in questions:
            have = set(q.image_files)
            for ref in image_refs(q.text, q.handout, q.comment):
                source = _find(images, ref)
                if ref in have or source is None:
                    continue
                if source not in stored:
                    try:
                        stored[source] = store_image(images[source], uploads)
                    except ImageError as exc:
                        raise BundleError(f"{source}: {exc}") from exc
                q.images.append(QuestionImage(name=ref, file=stored[source]))
                have.add(ref)
    except BaseException:
        discard(uploads, stored.values())
        raise
    return list(stored.values())


def discard(uploads: Path, names: Iterable[str]) -> None:
    """Remove stored files (after a refused or failed import)."""
    for name in names:
        (uploads / name).unlink(missing_ok=True)


def missing_refs(questions: Iterable[Question]) -> list[str]:
    """The referenced image names no question of ``questions`` has a file for, each once."""
    out: list[str] = []
    for q in questions:
        have = q.image_files
        out.extend(
            r for r in image_refs(q.text, q.handout, q.comment) if r not in have and r not in out
        )
    return out


def _packet_problem(exc: PacketError) -> str:
    """What is wrong with a packet, in the page's language (the parser's ``code``)."""
    code = exc.code
    if code == "outside_field":
        return _(
            "текст вне полей вопроса: строка пакета 4s должна начинаться с метки, "
            "например «?» (вопрос), «!» (ответ), «/» (комментарий), «^» (источник), "
            "«@» (автор) или «#» (заголовок)."
        )
    if code == "no_question":
        return _("в блоке нет вопроса (строки, начинающейся с «?»).")
    if code == "no_answer":
        return _("у вопроса нет ответа (строки, начинающейся с «!»).")
    if code == "no_questions":
        return _("в пакете нет ни одного вопроса (строк, начинающихся с «?»).")
    if code == "control_chars":
        return _("двоичные или управляющие символы: это не текстовый пакет.")
    if code == "unfit_char":
        return _(
            "недопустимый символ %(code)s: его нельзя сохранить и напечатать.",
            code=exc.params.get("code", ""),
        )
    if code == "db_outside_field":
        return _(
            "текст вне полей вопроса: блок должен начинаться с заголовка, например "
            "«Вопрос 1:», «Ответ:» или «Комментарий:»."
        )
    if code == "db_empty_question":
        return _("в блоке «Вопрос N:» нет текста вопроса.")
    if code == "db_field_before_question":
        return _("«%(label)s:» стоит до первого «Вопрос N:».", label=exc.params.get("label", ""))
    if code == "db_no_answer":
        return _("у вопроса нет ответа (блока «Ответ:»).")
    if code == "db_no_questions":
        return _("в пакете нет ни одного вопроса (блоков «Вопрос N:»).")
    if code == "bom_not_utf8":
        return _("файл начинается с метки UTF-8 (BOM), но записан не в UTF-8.")
    if code == "too_large":
        return _(
            "файл больше %(n)s МБ: это не пакет.",
            n=int(exc.params.get("max_bytes", 0)) // (1024 * 1024),
        )
    if code == "zip_no_packet":
        return _("В архиве нет файла пакета (.4s или .txt).")
    return exc.message  # pragma: no cover - every reader's error has a code


def packet_error_text(exc: PacketError, upload_name: str) -> str:
    """A packet error for the editors' import page, whose field error starts with the
    uploaded file's name: the line and what is wrong (the packet file's own name too when
    it came in a zip), e.g. ``"строка 1 — текст вне полей вопроса: …"``."""
    where = []
    if exc.filename and exc.filename != upload_name:
        where.append(exc.filename)
    if exc.line is not None:
        where.append(_("строка %(n)s", n=exc.line))
    problem = _packet_problem(exc)
    return f"{', '.join(where)} — {problem}" if where else problem
