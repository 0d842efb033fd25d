"""One author per person in Chromium (CSRF on): the chief editor sees the Kubok packet's two Shahlovs
suggested, previews and confirms their merge, then confirms a question's author line from
the question page (the author-line confirmation button)."""

from __future__ import annotations

import pytest

pytest.importorskip("tests.e2e.conftest")  # the lead's live_server / page fixtures
from playwright.sync_api import expect  # noqa: E402

# Full run only: a local `make test` runs the browser smoke (tests/e2e/conftest.py).
pytestmark = pytest.mark.slow


KUBOK = "data/chgk/peczony__chgksuite/Kubok_knyagini_Olgi-2015.docx.canon"


@pytest.fixture
def kubok(live_server, shared_dir) -> dict[str, int]:
    """The Kubok packet imported as submissions: ``{"riga": id, "plain": id}`` of
    «Дмитрий Шахлов (Рига)» and «Дмитрий Шахлов»."""
    from webapp.extensions import db
    from webapp.submissions.models import Author

    app = live_server.app
    result = app.test_cli_runner().invoke(
        args=["import", str(shared_dir / KUBOK), "--as", "submissions"]
    )
    assert result.exit_code == 0, result.output
    with app.app_context():
        rows = db.session.scalars(
            db.select(Author).where(Author.name == "Дмитрий Шахлов").order_by(Author.id)
        ).all()
        assert [a.city for a in rows] == ["Рига", None]
        return {"riga": rows[0].id, "plain": rows[1].id}


def test_chief_editor_merges_the_two_shahlovs_and_confirms_an_author(live_server, page, kubok):
    riga, plain = kubok["riga"], kubok["plain"]
    live_server.login(page, "chief_editor")
    page.get_by_role("link", name="Авторы").click()
    page.wait_for_url("**/editor/authors/")
    row = page.locator(f'tr[data-pair="{riga}-{plain}"]')
    assert row.locator("td").all_inner_texts()[:3] == [
        f"№ {riga}: Дмитрий Шахлов, Рига",
        f"№ {plain}: Дмитрий Шахлов",
        "то же имя, у одного город не указан",
    ]
    assert page.locator("tr[data-pair]").count() == 2  # and Вадим Германенко's pair
    row.get_by_role("button", name=f"Объединить: оставить № {riga}").click()
    page.wait_for_load_state()
    expect(page.locator("h1")).to_have_text(f"Объединить автора № {plain} с автором № {riga}")
    assert (
        page.locator("p.preview")
        .inner_text()
        .startswith(f"Перейдут к автору № {riga}: вопросов 2, призов 0.")
    )
    page.get_by_role("button", name="Объединить окончательно").click()
    page.wait_for_url(f"**/editor/authors/{riga}")
    assert f"Автор №{plain} объединён с автором №{riga}: вопросов 2, призов 0." in page.inner_text(
        "body"
    )
    assert page.locator("ul.links li").all_inner_texts() == [
        "№ 3: «Дмитрий Шахлов, Рига» — не подтверждён",
        "№ 4: «Дмитрий Шахлов» — не подтверждён",
        "№ 7: «Дмитрий Шахлов» — не подтверждён",
        "№ 12: «Дмитрий Шахлов, Рига» — не подтверждён",
    ]
    # the question page: reveal the authors (audited), confirm the line «Дмитрий Шахлов»
    page.goto(f"{live_server.url}/editor/questions/4")
    page.get_by_role("button", name="Показать авторов (записывается в журнал)").click()
    page.wait_for_load_state()
    page.get_by_role("button", name=f"Подтвердить: это автор № {riga}").click()
    page.wait_for_url(f"**/editor/authors/{riga}")
    assert f"Автор подтверждён: «Дмитрий Шахлов» — автор №{riga}." in page.inner_text("body")
    assert page.locator("ul.links li").nth(1).inner_text() == "№ 4: «Дмитрий Шахлов» — подтверждён"
    # the journal lists the merge; only Вадим Германенко's pair is left to decide
    page.get_by_role("link", name="Авторы").click()
    page.wait_for_url("**/editor/authors/")
    expect(page.locator("tr[data-pair]")).to_have_count(1)
    (entry,) = page.locator("ul.merges li").all_inner_texts()
    assert entry.endswith(
        f"автор № {plain} (Дмитрий Шахлов) → № {riga} (Дмитрий Шахлов, Рига); вопросов 2, призов 0"
    )


def test_an_editor_does_not_see_the_author_pages(live_server, page, kubok):
    """Blind moderation: no «Авторы» link for an editor, and the page answers 403."""
    live_server.login(page, "editor")
    assert page.get_by_role("link", name="Авторы").count() == 0
    resp = page.goto(f"{live_server.url}/editor/authors/")
    assert resp is not None and resp.status == 403
