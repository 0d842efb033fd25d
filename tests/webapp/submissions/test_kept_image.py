"""A viewer's handout image survives an error page: the form comes back with the image
kept on the server (shown, with a way to remove it), and the corrected form, sent as
rendered without attaching the file again, stores the question with its image. On
``/submit`` and on the 2009 live form ``/live``; CSRF on, forms sent as the page renders
them (:class:`tests.webapp.submissions.live_form.RenderedForm`)."""

from __future__ import annotations

import html
import io
import re
import stat
from pathlib import Path

import pytest
from PIL import Image

from tests.webapp.games import helpers as h
from tests.webapp.submissions.live_form import (
    QUESTION,
    TYPED,
    RenderedForm,
    rendered,
    viewer_question,
)

KEPT_NOTE = (
    "Изображение сохранено: оно будет отправлено вместе с вопросом, прикладывать его "
    "заново не нужно. Чтобы заменить его, выберите другой файл."
)


@pytest.fixture
def site(make_app):
    """A deployed-like app (CSRF on) with a live 2009 game: ``(app, client, api, game_id)``
    (:func:`tests.webapp.games.helpers.live_site`)."""
    app = make_app()
    with app.app_context():
        yield h.live_site(app)


def jpeg(size=(64, 48), colour=(20, 90, 200)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, colour).save(out, format="JPEG")
    return out.getvalue()


def uploads(app) -> Path:
    return Path(app.config["SOVA_INSTANCE_PATH"]) / "uploads"


def send(client, form: RenderedForm, typed: dict, image: bytes | None = None, ticked=None):
    data = form.filled(typed, **({"ticked": ticked} if ticked is not None else {}))
    if image is not None:
        data["handout_image"] = (io.BytesIO(image), "map.jpg")
    return client.post(form.action, data=data, content_type="multipart/form-data")


def kept_src(page: str) -> str | None:
    found = re.search(r'<div class="kept-image" id="kept-image">\s*<img src="([^"]+)"', page)
    return html.unescape(found.group(1)) if found else None


def private(path: Path) -> bool:
    return stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize("url", ["/submit", "/live"])
def test_the_image_is_kept_across_an_error_and_stored_with_the_corrected_question(site, url):
    app, client, _api, _game_id = site
    form = rendered(client.get(url))
    assert form.action == url
    refused = send(client, form, dict(TYPED, question="Слишком короткий"), jpeg())
    assert refused.status_code == 422
    page = refused.get_data(as_text=True)
    assert "Слишком коротко" in page or "Допускается от 20 до 3000 символов." in page
    # the image is shown, said to be kept, with a way to remove it, its block unfolded
    src = kept_src(page)
    assert src is not None and src.startswith("/submit/image/")
    assert KEPT_NOTE in page
    assert re.search(r"<details open>\s*<summary>Раздаточный материал</summary>", page)
    again = rendered(refused)
    assert "handout_image_remove" in again.checkboxes
    assert "Убрать это изображение из вопроса" in page
    assert again.fields["handout_upload"]  # a signed token, never a path
    assert (
        "/" not in again.fields["handout_upload"] and ".jpg" not in again.fields["handout_upload"]
    )
    shown = client.get(src)
    assert shown.status_code == 200 and shown.mimetype == "image/jpeg"
    assert "no-store" in shown.headers["Cache-Control"]
    with Image.open(io.BytesIO(shown.data)) as img:
        assert (img.format, img.size) == ("JPEG", (64, 48))
    pending = list((uploads(app) / "pending").iterdir())
    assert len(pending) == 1 and private(pending[0])

    # corrected and sent as rendered, the file not attached again
    sent = send(client, again, TYPED)
    assert sent.status_code == 302, sent.get_data(as_text=True)[:500]
    q = viewer_question()
    assert q.text == QUESTION and q.handout_image
    stored = uploads(app) / q.handout_image
    assert private(stored)
    with Image.open(stored) as img:
        assert (img.format, img.size) == ("JPEG", (64, 48))
    assert list((uploads(app) / "pending").iterdir()) == []  # the kept copy is gone
    assert client.get(src).status_code == 404


def test_the_viewer_removes_the_kept_image(site):
    app, client, _api, _game_id = site
    refused = send(client, rendered(client.get("/submit")), dict(TYPED, answer=""), jpeg())
    assert refused.status_code == 422 and kept_src(refused.get_data(as_text=True))
    # removed, with another error still on the page: the image is gone from the page too
    again = send(
        client,
        rendered(refused),
        dict(TYPED, answer="", question=QUESTION),
        ticked=("consent", "age_confirmed", "handout_image_remove"),
    )
    assert again.status_code == 422
    page = again.get_data(as_text=True)
    assert kept_src(page) is None and KEPT_NOTE not in page
    assert rendered(again).fields["handout_upload"] == ""
    assert list((uploads(app) / "pending").iterdir()) == []
    assert send(client, rendered(again), TYPED).status_code == 302
    assert viewer_question().handout_image is None


def test_a_new_file_replaces_the_kept_one_and_a_forged_token_is_ignored(site):
    app, client, _api, _game_id = site
    refused = send(client, rendered(client.get("/submit")), dict(TYPED, answer=""), jpeg())
    first = kept_src(refused.get_data(as_text=True))
    replaced = send(client, rendered(refused), dict(TYPED, answer=""), jpeg((32, 32)))
    second = kept_src(replaced.get_data(as_text=True))
    assert second and second != first and client.get(first).status_code == 404
    assert len(list((uploads(app) / "pending").iterdir())) == 1
    # a token not signed by Sova (here a path) names nothing: the question has no image
    form = rendered(replaced)
    name = next((uploads(app) / "pending").iterdir()).name
    form.fields["handout_upload"] = f"../pending/{name}"
    assert send(client, form, TYPED).status_code == 302
    assert viewer_question().handout_image is None
    assert client.get(f"/submit/image/{name}").status_code == 404


def test_kept_images_older_than_a_day_are_purged(site):
    """A kept image whose form was never sent again is removed after 24 hours (by the
    next image kept); a younger one stays."""
    import os
    import time

    app, client, _api, _game_id = site
    first = send(client, rendered(client.get("/submit")), dict(TYPED, answer=""), jpeg())
    (old,) = (uploads(app) / "pending").iterdir()
    day_ago = time.time() - 24 * 3600 - 60
    os.utime(old, (day_ago, day_ago))
    other = send(client, rendered(client.get("/submit")), dict(TYPED, answer=""), jpeg())
    assert other.status_code == 422 and kept_src(other.get_data(as_text=True))
    (young,) = (uploads(app) / "pending").iterdir()
    assert young != old and not old.exists()
    assert client.get(kept_src(first.get_data(as_text=True))).status_code == 404
