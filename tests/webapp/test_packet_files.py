"""webapp.submissions.packet_files: encoding detection and file reading."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from webapp.domain.packets import PacketError, parse_packet
from webapp.submissions.packet_files import (
    SAMPLE_PACKET,
    decode_packet_bytes,
    read_packet_file,
)

ACUTE = "\u0301"

# Only characters that KOI8-R and cp1251 both have (straight quotes, hyphens).
DB_PACKET = """Чемпионат:
Проверка кодировок - "Сова"

Вопрос 1:
Какая птица считается символом мудрости, а в телевизионной игре
"Что? Где? Когда?" - символом клуба? Ее иногда называют птицей АфИны.

Ответ:
Сова.

Зачет:
Филин.

Автор:
Ольга Лебедева (Тверь)

Вопрос 2:
Сколько секунд длится обсуждение вопроса в телевизионной игре?

Ответ:
Шестьдесят.

Зачет:
Минута; 60.
"""


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize(
    ("encoding", "expected"),
    [("utf-8", "utf-8"), ("utf-8-sig", "utf-8-sig"), ("koi8_r", "koi8_r"), ("cp1251", "cp1251")],
)
def test_read_db_packet_in_each_encoding(tmp_path, encoding, expected):
    path = _write(tmp_path, "packet.txt", DB_PACKET.encode(encoding))
    packet = read_packet_file(path)
    assert packet.meta["encoding"] == expected
    assert packet.meta["filename"] == "packet.txt"
    assert packet.meta["format"] == "db"
    assert packet.title == "Проверка кодировок — «Сова»"
    q1, q2 = packet.questions
    assert "«Что? Где? Когда?» — символом клуба" in q1.question
    assert "Афи" + ACUTE + "ны" in q1.question
    assert q1.answer == "Сова." and q1.accepted == "Филин."
    assert q2.accepted == "Минута; 60." and q2.line == 17


@pytest.mark.parametrize("encoding", ["koi8_r", "cp1251"])
def test_decode_short_russian_texts(encoding):
    for text in ["Вопрос 1:\nКак называется эта птица?", "Ответ: сова", "ещё один пример текста"]:
        decoded, used = decode_packet_bytes(text.encode(encoding))
        assert (decoded, used) == (text, encoding)


def test_decode_utf8_is_tried_first():
    text = "Сова — «птица»"
    assert decode_packet_bytes(text.encode("utf-8")) == (text, "utf-8")
    assert decode_packet_bytes(codecs.BOM_UTF8 + text.encode("utf-8")) == (text, "utf-8-sig")
    assert decode_packet_bytes(b"plain ascii") == ("plain ascii", "utf-8")


def test_decode_bom_with_broken_utf8():
    with pytest.raises(PacketError) as info:
        decode_packet_bytes(codecs.BOM_UTF8 + b"ok\nok\n\xff\xfe")
    assert info.value.line == 3


def test_sample_packet_file():
    packet = read_packet_file(SAMPLE_PACKET)
    assert packet.meta["encoding"] == "utf-8"
    assert 8 <= len(packet.questions) <= 12
    assert packet.questions == parse_packet(SAMPLE_PACKET.read_text("utf-8")).questions


def test_sample_packet_with_bom_and_crlf(tmp_path):
    text = SAMPLE_PACKET.read_text("utf-8").replace("\n", "\r\n")
    path = _write(tmp_path, "sample.4s", codecs.BOM_UTF8 + text.encode("utf-8"))
    assert read_packet_file(path).questions == read_packet_file(SAMPLE_PACKET).questions


def test_balt_koi8r_from_shared(shared_dir):
    path = shared_dir / "data/chgk/alexander-pecheny__chgksuite/balt09-1.txt"
    packet = read_packet_file(path)
    assert packet.meta["encoding"] == "koi8_r"
    assert packet.meta["format"] == "db"
    assert len(packet.questions) == 36
    assert "Свентови" + ACUTE + "т" in packet.questions[2].question


def test_balt_recoded_to_cp1251(shared_dir, tmp_path):
    raw = (shared_dir / "data/chgk/alexander-pecheny__chgksuite/balt09-1.txt").read_bytes()
    text = raw.decode("koi8_r")
    path = _write(tmp_path, "balt-cp1251.txt", text.encode("cp1251"))
    packet = read_packet_file(path)
    assert packet.meta["encoding"] == "cp1251"
    assert (
        packet.questions
        == read_packet_file(
            shared_dir / "data/chgk/alexander-pecheny__chgksuite/balt09-1.txt"
        ).questions
    )


def test_broken_file_error_names_file_and_line(tmp_path):
    path = _write(tmp_path, "broken.4s", "? Вопрос\n! Ответ\n\n? Без ответа\n/ ком\n".encode())
    with pytest.raises(PacketError) as info:
        read_packet_file(path)
    assert info.value.filename == "broken.4s"
    assert info.value.line == 4
    assert str(info.value).startswith("broken.4s, line 4: ")


def test_broken_cp1251_db_file(tmp_path):
    text = "Вопрос 1:\nТекст\n\nОтвет:\nДа\n\nВопрос 2:\nЕщё\n"
    path = _write(tmp_path, "broken.txt", text.encode("cp1251"))
    with pytest.raises(PacketError) as info:
        read_packet_file(path)
    assert (info.value.filename, info.value.line) == ("broken.txt", 7)


def test_binary_garbage_file(tmp_path):
    data = b"? \xd7\xef\xf0\xee\xf1\n! \xce\xf2\xe2\xe5\xf2\n\n" + bytes(range(256))
    path = _write(tmp_path, "garbage.bin", data)
    with pytest.raises(PacketError) as info:
        read_packet_file(path)
    assert info.value.filename == "garbage.bin"
    assert info.value.line == 4


def test_empty_file(tmp_path):
    with pytest.raises(PacketError) as info:
        read_packet_file(_write(tmp_path, "empty.4s", b""))
    assert (info.value.filename, info.value.line) == ("empty.4s", 1)


def test_too_large_file(tmp_path):
    path = _write(tmp_path, "big.4s", b"? x\n! y\n" * 10)
    with pytest.raises(PacketError) as info:
        read_packet_file(path, max_bytes=20)
    assert info.value.line is None and "larger" in info.value.message
