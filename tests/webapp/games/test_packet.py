"""A game's packet (``GET /api/v1/games/{id}/packet``, ``sova export``): a 2023 game played
through the API — a lost blitz, an image handout (a viewer's upload and an imported
packet's image), a text handout, two authors, an author without consent, «» and — in the
text — read back through chgksuite's own readers (``parse_4s``, the db.chgk.info lexer
``chgk_parse_db``) with every field equal to what Sova holds."""

from __future__ import annotations

import io
import os
import zipfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from flask import current_app
from flask_babel import refresh

from tests.webapp.games import helpers as h
from webapp.core.models import utcnow
from webapp.domain.handouts import leading_handout_span
from webapp.domain.text import normalise
from webapp.extensions import db
from webapp.games.models import Game
from webapp.games.operations import assign_envelopes
from webapp.submissions.models import Author, QuestionAuthor, QuestionImage

ANON = "Автор пожелал остаться неизвестным"
TABLE = {"blitz": 4, "superblitz": None, "sector13": None}
#: sector 4 (blitz): right, wrong (its third question is never asked); the others one answer
#: each; the experts win 6:2 on sector 8. Play order: 1, 2, 4, 3, 5, 6, 7, 8.
EVENTS = [
    ("spin", 1, [True]),
    ("spin", 2, [False]),
    ("spin", 4, [True, False]),
    ("spin", 3, [True]),
    ("spin", 5, [True]),
    ("spin", 6, [True]),
    ("spin", 7, [True]),
    ("spin", 8, [True]),
]
PNG = (
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa7\x35\x81"
    b"\x84\x00\x00\x00\x00IEND\xaeB`\x82"
)


def _oracles():
    if os.environ.get("CI") != "true":
        pytest.importorskip("chgksuite")
    from chgksuite.common import DummyLogger
    from chgksuite.composer.chgksuite_parser import parse_4s
    from chgksuite.parser_db import chgk_parse_db

    return {
        "4s": lambda text: parse_4s(text, logger=DummyLogger()),
        "db": lambda text: chgk_parse_db(text, logger=DummyLogger()),
    }


def _value(v):
    """chgksuite's str / [items] / [preamble, [items]], each string normalised as Sova
    stores text (trailing spaces on lines dropped)."""
    if isinstance(v, str):
        return normalise(v)
    return [_value(x) for x in v]


def read_back(fmt: str, text: str) -> list[dict]:
    """chgksuite's reading of the packet: each question's fields, a leading
    ``[Раздаточный материал: …]`` block of the question (how db.chgk.info writes a handout)
    split off into ``handout`` as Sova keeps it."""
    structure = _oracles()[fmt](text)
    out = []
    for kind, q in structure:
        if kind != "Question" or "question" not in q:  # a db "Тур:" opens an empty one
            continue
        fields = {k: _value(v) for k, v in q.items() if k != "number"}
        question = fields["question"]
        if isinstance(question, str):
            span = leading_handout_span(question)
            if span is not None:
                assert "handout" not in fields
                fields["handout"] = span[0]
                fields["question"] = question[span[1] :].lstrip("\n")
        out.append(fields)
    return out


@pytest.fixture
def played(app, api):
    """The game through the API (host's events, producer's close); its questions set up
    after the fill as each case needs. Returns (game id, {sector: [question, …]})."""
    h.approved_questions(15)
    g = h.game(h.season(), table=TABLE, status="draft")
    assign_envelopes(g)
    qs = {e.sector: [eq.question for eq in e.questions] for e in g.envelopes}
    uploads = Path(current_app.config["SOVA_INSTANCE_PATH"]) / "uploads"
    uploads.mkdir(parents=True, exist_ok=True)

    # sector 1: «» and — in the text, two authors who agreed to be named, every field
    q = qs[1][0]
    q.text = "Персонаж «Мастера и Маргариты» — кто он?\nНазовите его."
    q.answer = "Воланд"
    q.accepted = "Мессир"
    q.rejected = "Сатана"
    q.comment = "Булгаков — о «князе тьмы»."
    q.sources = ["М. Булгаков. Мастер и Маргарита.", "https://ru.wikipedia.org/wiki/Воланд"]
    q.consent_on_air = True
    # a co-author who confirmed through her own link: her city is published too
    q.authors.append(
        QuestionAuthor(
            author=Author(name="Ольга Соавтор", city="Гомель"),
            position=1,
            confirmed_at=datetime(2023, 12, 1, tzinfo=UTC),
        )
    )
    # sector 2: a text handout; the author did not agree to be named
    q = qs[2][0]
    q.handout = "Раз — два — «три»"
    q.text = "Перед вами раздаточный материал. Что пропущено?"
    q.consent_on_air = False
    # sector 3: a viewer's uploaded handout image
    q = qs[3][0]
    (uploads / "u1a2b3.png").write_bytes(PNG)
    q.handout_image = "u1a2b3.png"
    q.consent_on_air = True
    # sector 5: a question of an imported packet, its image in the text
    q = qs[5][0]
    (uploads / "s9f8e7.png").write_bytes(PNG + b"5")
    q.channel = "import"
    q.text = "[Раздаточный материал:(img kubok-01.png)]\nЧто изображено на снимке?"
    q.handout = "(img kubok-01.png)"
    q.images.append(QuestionImage(name="kubok-01.png", file="s9f8e7.png"))
    q.author_line = "Иван Сапего (Брест — Минск), при участии Анны Бойко (Минск)"
    # the blitz: its first author named, its second not; a comment on the second
    b1, b2, _b3 = qs[4]
    b1.consent_on_air = True
    b1.text, b1.answer = "Блиц-вопрос «один»?", "Один"
    b2.text, b2.answer, b2.comment = "Блиц-вопрос — два?", "Два", "Комментарий ко второму."
    for sector in (6, 7, 8):
        qs[sector][0].consent_on_air = True
    # sector 6: a credited co-author, printed by the phrase as written
    qs[6][0].authors.append(
        QuestionAuthor(
            author=Author(name="Дарья Третья", city="Лида"),
            position=1,
            name="Дарья Третья",
            city="Лида",
            credit="при участии Дарьи Третьей (Лида)",
        )
    )
    h.startable(g)
    h.commit()

    def call(method, path, role, **kw):
        r = api(method, path, role=role, **kw)
        assert r.status_code in (200, 201), r.json
        return r

    for _, sector, answers in EVENTS:
        call(
            "post", f"/api/v1/games/{g.id}/events", "host", json={"type": "spin", "sector": sector}
        )
        for correct in answers:
            call(
                "post",
                f"/api/v1/games/{g.id}/events",
                "host",
                json={"type": "answer", "correct": correct},
            )
    call("post", f"/api/v1/games/{g.id}/close", "producer")
    return g.id, qs


def expected(qs) -> list[dict]:
    """What Sova holds, field by field, in the order asked (the packet's rules:
    webapp.domain.packets.write_4s)."""
    b1, b2, _ = qs[4]

    def single(q, author, **extra):
        fields = {"question": q.text, "answer": q.answer, "author": author}
        fields.update(extra)
        return fields

    return [
        {
            "question": "Персонаж «Мастера и Маргариты» — кто он?\nНазовите его.",
            "answer": "Воланд",
            "zachet": "Мессир",
            "nezachet": "Сатана",
            "comment": "Булгаков — о «князе тьмы».",
            "source": [
                "М. Булгаков. Мастер и Маргарита.",
                "https://ru.wikipedia.org/wiki/Воланд",
            ],
            "author": f"{qs[1][0].authors[0].name} ({qs[1][0].authors[0].city}), "
            "Ольга Соавтор (Гомель)",
        },
        single(qs[2][0], ANON, handout="Раз — два — «три»"),
        {
            "question": ["Блиц.", ["Блиц-вопрос «один»?", "Блиц-вопрос — два?"]],
            "answer": ["Один", "Два"],
            "comment": "2. Комментарий ко второму.",
            "author": f"1. {b1.authors[0].name} ({b1.authors[0].city})\n2. {ANON}",
        },
        single(
            qs[3][0],
            f"{qs[3][0].authors[0].name} ({qs[3][0].authors[0].city})",
            handout=f"(img handout_{qs[3][0].id}.png)",
        ),
        {
            "question": "Что изображено на снимке?",
            "handout": "(img kubok_01.png)",
            "answer": qs[5][0].answer,
            "author": "Иван Сапего (Брест — Минск), при участии Анны Бойко (Минск)",
        },
        single(
            qs[6][0],
            f"{qs[6][0].authors[0].name} ({qs[6][0].authors[0].city}), "
            "при участии Дарьи Третьей (Лида)",
        ),
        *(
            single(qs[s][0], f"{qs[s][0].authors[0].name} ({qs[s][0].authors[0].city})")
            for s in (7, 8)
        ),
    ]


@pytest.mark.parametrize("fmt", ["4s", "db"])
def test_the_packet_reads_back_through_chgksuite(played, api, tmp_path, monkeypatch, fmt):
    game_id, qs = played
    r = api("get", f"/api/v1/games/{game_id}/packet?format={fmt}", role="host")
    assert r.status_code == 200
    assert r.mimetype == "application/zip"
    ext = {"4s": "4s", "db": "txt"}[fmt]
    game = db.session.get(Game, game_id)
    name = f"Пакет — игра {game_id} — {game.air_date.isoformat()}"
    assert "filename*=UTF-8''" in r.headers["Content-Disposition"]
    with zipfile.ZipFile(io.BytesIO(r.data)) as zf:
        assert sorted(zf.namelist()) == sorted(
            [f"{name}.{ext}", f"handout_{qs[3][0].id}.png", "kubok_01.png"]
        )
        assert zf.read(f"handout_{qs[3][0].id}.png") == PNG
        assert zf.read("kubok_01.png") == PNG + b"5"
        zf.extractall(tmp_path)
        text = zf.read(f"{name}.{ext}").decode("utf-8")
    # chgksuite's db reader fetches a (pic: …) file it does not find beside it: here all are
    monkeypatch.chdir(tmp_path)
    assert read_back(fmt, text) == expected(qs)
    assert "Блиц-вопрос" in text and qs[4][2].text not in text  # the unasked one stays out
    assert str(qs[4][2].authors[0].name) not in text
    # Sova's own readers agree on the questions and their order
    from webapp.domain.packets import parse_4s, parse_db

    ours = (parse_4s if fmt == "4s" else parse_db)(text)
    assert [q.answer for q in ours.questions] == [
        "Воланд",
        qs[2][0].answer,
        "1. Один\n2. Два",
        qs[3][0].answer,
        qs[5][0].answer,
        *(qs[s][0].answer for s in (6, 7, 8)),
    ]
    assert ours.title == f"{game.season.name} — {game.display_title}"


def test_the_packet_is_for_staff_before_the_air_and_public_after(played, api, client):
    """Contract: «producer, host; public once aired … Before the game has aired: staff
    only; 404 for anyone else». After the air a reader without a staff role gets the packet
    without the questions an editor held back."""
    game_id, qs = played
    game = db.session.get(Game, game_id)
    game.air_at = utcnow() + timedelta(days=1)  # closed, airs tomorrow
    game.air_time_given = True
    h.commit()
    url = f"/api/v1/games/{game_id}/packet?format=4s"
    assert api("get", url, role="producer").status_code == 200
    assert api("get", url, role="admin").status_code == 200
    for role in ("editor", "chief_editor", "accountant"):
        assert api("get", url, role=role).status_code == 403
    assert client.get(url).status_code == 404  # as if the game did not exist
    assert client.get(f"/api/v1/games/{game_id}/packet").status_code == 404
    held = qs[7][0]
    held.held_back_at, held.held_back_reason = utcnow(), "жалоба правообладателя"
    game.air_at = utcnow() - timedelta(minutes=1)  # aired
    h.commit()
    public = client.get(url)
    assert public.status_code == 200
    with zipfile.ZipFile(io.BytesIO(public.data)) as zf:
        text = next(zf.read(n) for n in zf.namelist() if n.endswith(".4s")).decode()
    assert held.text not in text and qs[8][0].text in text
    staff = api("get", url, role="host")
    with zipfile.ZipFile(io.BytesIO(staff.data)) as zf:
        text = next(zf.read(n) for n in zf.namelist() if n.endswith(".4s")).decode()
    assert held.text in text  # staff read every question asked
    r = api("get", f"/api/v1/games/{game_id}/packet?format=docx", role="host")
    assert (r.status_code, r.json) == (
        422,
        {"errors": {"format": ["Допустимые значения: 4s, db."]}},
    )
    refresh()  # the requests share this test's app context, and Flask-Babel caches on it
    r = api(
        "get", f"/api/v1/games/{game_id}/packet", role="host", headers={"Accept-Language": "en"}
    )
    assert (r.status_code, r.json) == (
        422,
        {"errors": {"format": ["Missing data for required field."]}},
    )
    assert api("get", "/api/v1/games/999999/packet?format=4s", role="host").status_code == 404


def test_a_game_without_a_question_asked_has_no_packet(app, api):
    h.approved_questions(15)
    g = h.game(h.season(), table=TABLE, status="draft")
    assign_envelopes(g)
    h.commit()
    r = api("get", f"/api/v1/games/{g.id}/packet?format=db", role="producer")
    assert r.status_code == 409
    assert r.json["error"]["message"] == f"игра {g.id}: ни один вопрос ещё не задан — пакет пуст"
    runner = app.test_cli_runner()
    result = runner.invoke(args=["export", "game", str(g.id), "--format", "4s"])
    assert (result.exit_code, result.stderr.strip()) == (
        2,
        f"Error: игра {g.id}: ни один вопрос ещё не задан — пакет пуст",
    )
    result = runner.invoke(args=["export", "season", str(g.season_id), "--format", "4s"])
    assert (result.exit_code, result.stderr.strip()) == (
        2,
        f"Error: в сезоне «{g.season.name}» нет сыгранных игр — пакет пуст",
    )


def test_plain_text_without_images(app, api):
    """A game whose asked questions have no image: the packet is the text itself."""
    h.approved_questions(15)
    g = h.game(h.season(), table=TABLE, status="draft")
    assign_envelopes(g)
    h.startable(g)
    h.commit()
    for body in ({"type": "spin", "sector": 1}, {"type": "answer", "correct": False}):
        assert (
            api("post", f"/api/v1/games/{g.id}/events", role="host", json=body).status_code == 201
        )
    r = api("get", f"/api/v1/games/{g.id}/packet?format=4s", role="host")
    assert r.status_code == 200
    assert r.mimetype == "text/plain"
    assert r.mimetype_params == {"charset": "utf-8"}
    q = next(e for e in db.session.get(Game, g.id).envelopes if e.sector == 1).questions[0].question
    assert r.get_data(as_text=True) == (
        f"### {g.season.name} — {g.display_title}\n\n? {q.text}\n! {q.answer}\n@ {ANON}\n"
    )


def test_cli_exports_a_game_and_a_season(played, app, tmp_path, monkeypatch):
    game_id, qs = played
    runner = app.test_cli_runner()
    game = db.session.get(Game, game_id)
    out = tmp_path / "game.zip"
    result = runner.invoke(args=["export", "game", str(game_id), "--format", "db", "-o", str(out)])
    assert result.exit_code == 0, result.output
    with zipfile.ZipFile(out) as zf:
        assert len(zf.namelist()) == 3
    # to standard output: the text alone
    result = runner.invoke(args=["export", "game", str(game_id), "--format", "4s"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"### {game.season.name} — {game.display_title}\n")
    assert "note: the packet has images; -o FILE writes them in a zip" in result.stderr
    # a season: its games that are over, one tour each, in play order
    result = runner.invoke(
        args=["export", "season", str(game.season_id), "--format", "4s", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    with zipfile.ZipFile(out) as zf:
        text = zf.read(f"Пакет — сезон {game.season.name}.4s").decode("utf-8")
        zf.extractall(tmp_path / "season")
    assert text.startswith(f"### {game.season.name}\n\n## {game.display_title}\n\n? ")
    monkeypatch.chdir(tmp_path / "season")
    assert read_back("4s", text) == expected(qs)
    for args, message in (
        (["game", "999999", "--format", "4s"], "Error: no game 999999"),
        (["season", "999999", "--format", "db"], "Error: no season 999999"),
    ):
        result = runner.invoke(args=["export", *args])
        assert (result.exit_code, result.stderr.strip()) == (2, message)
    result = runner.invoke(args=["export", "game", str(game_id), "--format", "docx"])
    assert result.exit_code == 2


def test_image_names_a_packet_can_write(tmp_path):
    """A name db.chgk.info cannot write gets "_" for its other characters; a name already
    taken by another file gets the question's id in front; references follow."""
    from webapp.games.packet import PacketImages, renamed_references

    a, b = tmp_path / "a.png", tmp_path / "b.png"
    images = PacketImages(tmp_path)
    assert images.add(7, "фото 1.png", a) == "фото_1.png"  # letters of any script are \w
    assert images.add(8, "фото 1.png", a) == "фото_1.png"  # the same file: the same name
    assert images.add(9, "фото_1.png", b) == "9_фото_1.png"
    assert images.add(10, "x-1.png", b) == "x_1.png"
    assert images.files == {"фото_1.png": a, "9_фото_1.png": b, "x_1.png": b}
    assert renamed_references("См. (img w=5cm x-1.png) и (img y.png)", {"x-1.png": "x_1.png"}) == (
        "См. (img w=5cm x_1.png) и (img y.png)"
    )


def _play(api, game_id: int, rounds) -> None:
    """``rounds``: ``[(sector, [correct, …])]``, the host's spins and answers in order."""
    for sector, answers in rounds:
        bodies = [{"type": "spin", "sector": sector}]
        bodies += [{"type": "answer", "correct": c} for c in answers]
        for body in bodies:
            r = api("post", f"/api/v1/games/{game_id}/events", role="host", json=body)
            assert r.status_code == 201, r.json


def test_a_season_packet_has_its_games_in_play_order(app, api, tmp_path, monkeypatch):
    """Two games, the later made first; a superblitz won; one image name in both games for
    two different files; a game not played stays out."""
    season = h.season()
    uploads = Path(current_app.config["SOVA_INSTANCE_PATH"]) / "uploads"
    uploads.mkdir(parents=True, exist_ok=True)
    games = {}
    for day in (8, 1, 15):
        h.approved_questions_more(20)
        g = h.game(
            season,
            day=day,
            table={"blitz": None, "superblitz": 9, "sector13": None},
            status="draft",
        )
        assign_envelopes(g)
        first = next(e for e in g.envelopes if e.sector == 1).questions[0].question
        first.text = f"[Раздаточный материал:(img kubok.png)]\nИгра {day}: что на снимке?"
        first.handout = "(img kubok.png)"
        (uploads / f"k{day}.png").write_bytes(PNG + bytes([day]))
        first.images.append(QuestionImage(name="kubok.png", file=f"k{day}.png"))
        h.startable(g)
        games[day] = (g.id, first.id)
    h.commit()
    # the 8th: 6:0 with the superblitz won; the 1st: 0:6; the 15th is never played
    _play(
        api,
        games[8][0],
        [(1, [True]), (9, [True, True, True]), *((s, [True]) for s in range(2, 6))],
    )
    _play(api, games[1][0], [(s, [False]) for s in range(1, 7)])
    result = app.test_cli_runner().invoke(
        args=["export", "season", str(season.id), "--format", "db", "-o", str(tmp_path / "s.zip")]
    )
    assert result.exit_code == 0, result.output
    with zipfile.ZipFile(tmp_path / "s.zip") as zf:
        zf.extractall(tmp_path)
        names = sorted(zf.namelist())
        text = zf.read(f"Пакет — сезон {season.name}.txt").decode("utf-8")
    later_image = f"{games[8][1]}_kubok.png"
    assert names == sorted([f"Пакет — сезон {season.name}.txt", "kubok.png", later_image])
    assert (tmp_path / "kubok.png").read_bytes() == PNG + bytes([1])  # the first game aired
    assert (tmp_path / later_image).read_bytes() == PNG + bytes([8])
    monkeypatch.chdir(tmp_path)
    got = read_back("db", text)
    assert len(got) == 6 + 6  # the 1st: six rounds; the 8th: six rounds, the superblitz one
    assert [q["handout"] for q in got if "handout" in q] == [
        "(img kubok.png)",
        f"(img {later_image})",
    ]
    assert got[0]["question"] == "Игра 1: что на снимке?"
    assert got[6]["question"] == "Игра 8: что на снимке?"
    assert got[7]["question"][0] == "Суперблиц."
    assert len(got[7]["question"][1]) == len(got[7]["answer"]) == 3
    tours = [line for line in text.split("\n\n") if line.startswith("Тур:")]
    assert tours == ["Тур:\nИгра 01.03.2023", "Тур:\nИгра 08.03.2023"]


def test_the_shared_lost_blitz_game(app, api):
    """``tests/game_data.py``'s 3:6 game: nine rounds in play order; the blitz of sector 4 is
    one question of its two asked parts, its third never asked is not in the packet."""
    from tests.game_data import LOSE_3_6_WITH_LOST_BLITZ

    h.approved_questions(15)
    g = h.game(h.season(), table=TABLE, status="draft")
    assign_envelopes(g)
    h.startable(g)
    h.commit()
    for body in LOSE_3_6_WITH_LOST_BLITZ:
        assert (
            api("post", f"/api/v1/games/{g.id}/events", role="host", json=body).status_code == 201
        )
    assert api("post", f"/api/v1/games/{g.id}/close", role="producer").status_code == 200
    r = api("get", f"/api/v1/games/{g.id}/packet?format=4s", role="producer")
    assert r.status_code == 200
    by_sector = {e.sector: [eq.question for eq in e.questions] for e in g.envelopes}
    got = read_back("4s", r.get_data(as_text=True))
    played = [1, 2, 4, 13, 5, 6, 7, 8, 9]
    assert len(got) == len(played)
    for fields, sector in zip(got, played, strict=True):
        if sector == 4:
            first, second, third = by_sector[4]
            assert fields["question"] == ["Блиц.", [first.text, second.text]]
            assert fields["answer"] == [first.answer, second.answer]
            assert fields["author"] == ANON  # both without consent: one line
            assert third.status == "approved"  # back in the pool, not published
        else:
            q = by_sector[sector][0]
            assert (fields["question"], fields["answer"]) == (q.text, q.answer)
