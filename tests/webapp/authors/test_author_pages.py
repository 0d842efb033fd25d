"""The chief editor's author pages through the test client: the preview of a refused merge
(409, the reasons listed, nothing written), bad input, and the confirm button's way back."""

from __future__ import annotations

import pytest

from webapp.authors.models import AuthorMerge
from webapp.extensions import db
from webapp.submissions.models import Author, QuestionAuthor
from webapp.submissions.operations import create_question


def two_authors():
    """«Пётр Ёлкин, Минск» through the form (address not confirmed) and «Петр Елкин» from
    a letter; ids ``(web, letter, web question id)``."""
    web = create_question(
        {
            "question": "Какой город основал Ярослав Мудрый на Волге в XI веке?",
            "answer": "Ярославль",
            "authors": [("Пётр Ёлкин", "Минск", "elkin@example.com")],
        },
        "web",
    )
    letter = create_question(
        {
            "question": "Что в письме прислал автор без адреса?",
            "answer": "Ответ",
            "authors": [("Петр Елкин", None, None)],
        },
        "mail",
    )
    ids = web.authors[0].author_id, letter.authors[0].author_id, web.id
    db.session.commit()
    return ids


def test_the_list_and_a_refused_preview(app, login):
    web, letter, _ = two_authors()
    client = login("chief_editor")
    page = client.get("/editor/authors/").get_data(as_text=True)
    assert f'data-pair="{web}-{letter}"' in page
    assert "то же имя, у одного город не указан" in page
    resp = client.post("/editor/authors/merge", data={"source": letter, "target": web})
    assert resp.status_code == 409
    page = resp.get_data(as_text=True)
    assert "Объединить нельзя" in page
    assert (
        f"адрес автора №{web} не подтверждён: его нельзя оставить при объединении "
        "(адрес в форме мог ввести кто угодно); оставьте другого автора"
    ) in page
    assert "Объединить окончательно" not in page
    # confirm=1 on a refused plan writes nothing either
    resp = client.post(
        "/editor/authors/merge", data={"source": letter, "target": web, "confirm": "1"}
    )
    assert resp.status_code == 409
    assert db.session.scalar(db.select(db.func.count(AuthorMerge.id))) == 0
    # the other way round is allowed: the preview, then the merge
    resp = client.post("/editor/authors/merge", data={"source": web, "target": letter})
    assert resp.status_code == 200
    assert f"Перейдут к автору № {letter}: вопросов 1, призов 0." in resp.get_data(as_text=True)
    resp = client.post(
        "/editor/authors/merge", data={"source": web, "target": letter, "confirm": "1"}
    )
    assert (resp.status_code, resp.headers["Location"]) == (302, f"/editor/authors/{letter}")
    db.session.expire_all()
    assert db.session.get(Author, web).merged_into_id == letter


def test_bad_input_and_an_editor(app, login):
    client = login("chief_editor")
    resp = client.post("/editor/authors/merge", data={"source": "x", "target": "1"})
    assert (resp.status_code, resp.headers["Location"]) == (302, "/editor/authors/")
    resp = client.post("/editor/authors/merge", data={"source": "999998", "target": "999999"})
    assert resp.status_code == 302
    page = client.get("/editor/authors/").get_data(as_text=True)
    assert "нет автора №999998, №999999" in page
    assert client.get("/editor/authors/999999").status_code == 404
    editor = login("editor")
    assert editor.get("/editor/authors/").status_code == 403


def test_confirm_goes_back_only_to_an_editor_page(app, login):
    web, _, qid = two_authors()
    client = login("chief_editor")
    resp = client.post(
        f"/editor/authors/questions/{qid}/0/confirm", data={"next": "https://evil.example/"}
    )
    assert (resp.status_code, resp.headers["Location"]) == (302, f"/editor/questions/{qid}")
    link = db.session.scalars(db.select(QuestionAuthor).filter_by(question_id=qid)).one()
    assert link.confirmed_at is not None
    resp = client.post(
        f"/editor/authors/questions/{qid}/0/confirm", data={"next": f"/editor/authors/{web}"}
    )
    assert resp.headers["Location"] == f"/editor/authors/{web}"
    page = client.get(f"/editor/authors/{web}").get_data(as_text=True)
    assert f"Автор подтверждён: «Пётр Ёлкин, Минск» — автор №{web}." in page
    assert "<dd>подтверждён</dd>" in page  # the address now counts as confirmed
    resp = client.post(f"/editor/authors/questions/{qid}/3/confirm")
    assert resp.status_code == 302
    assert "Автор не подтверждён: такого автора у вопроса нет" in client.get(
        f"/editor/questions/{qid}"
    ).get_data(as_text=True)


def _links_index_migration_down_and_up() -> None:
    """Migration 0049: the author's links index is keyed ``(author_id, question_id)`` (a
    page of links by question id is its first rows in order); down gives back
    ``(author_id)``, up again the two."""
    from flask_migrate import downgrade, upgrade

    from webapp.extensions import db

    def keys() -> list[str]:
        db.session.remove()
        (ix,) = [
            ix
            for ix in db.inspect(db.engine).get_indexes("question_author")
            if ix["name"] == "ix_question_author_author_id"
        ]
        return ix["column_names"]

    assert keys() == ["author_id", "question_id"]
    downgrade(revision="0048_duplicate_bucket_trigger")
    assert keys() == ["author_id"]
    upgrade(revision="heads")
    assert keys() == ["author_id", "question_id"]


def test_the_links_index_and_its_migration(app):
    _links_index_migration_down_and_up()


@pytest.mark.integration
def test_the_links_index_and_its_migration_on_postgresql(pg_app):
    _links_index_migration_down_and_up()
