"""webapp.domain.handouts: image references and the handout printed once."""

from __future__ import annotations

from webapp.domain.handouts import (
    Part,
    image_refs,
    missing_images,
    plain_text,
    split_images,
    strip_images,
    without_leading_handout,
)

KUBOK_ALTAR = (
    "[Раздаточный материал:\n(img Kubok_knyagini_Olgi-2015_004.jpeg)]\nПеред вами створки алтаря."
)


def test_image_refs_in_order_once_with_options_and_nested_parentheses():
    assert image_refs("(img a.png) и (IMG w=5cm b.jpg)", None, "снова (img a.png)") == [
        "a.png",
        "b.jpg",
    ]
    assert image_refs("(img (w=5cm) c.png)") == ["c.png"]
    assert image_refs("(img )", "(img unclosed.png", "post_img/x.jpg") == []


def test_split_images_keeps_the_text_around_each_image():
    assert split_images("Вот этот снимок на фишай:\n(img k_001.jpeg)") == [
        Part(text="Вот этот снимок на фишай:"),
        Part(image="k_001.jpeg"),
    ]
    assert split_images("(img a.png) между (img b.png)\nпосле") == [
        Part(image="a.png"),
        Part(text="между"),
        Part(image="b.png"),
        Part(text="после"),
    ]
    assert split_images("без ссылок\n  отступ") == [Part(text="без ссылок\n  отступ")]
    assert split_images(None) == [] == split_images("")
    assert strip_images("Выдержка:\n(img k_002.png)") == "Выдержка:"
    assert strip_images("(img k_002.png)") == ""


def test_the_leading_handout_block_goes_when_it_repeats_the_handout():
    handout = "(img Kubok_knyagini_Olgi-2015_004.jpeg)"
    assert without_leading_handout(KUBOK_ALTAR, handout) == "Перед вами створки алтаря."
    text = "[Раздаточный материал:\nIO(OH)5\n]\nВ статье англоязычной Википедии…"
    assert without_leading_handout(text, "IO(OH)5") == "В статье англоязычной Википедии…"
    # another handout, none, or no block: the text as it is
    assert without_leading_handout(text, "другой") == text
    assert without_leading_handout(text, None) == text
    assert without_leading_handout("Перед вами створки.", "IO(OH)5") == "Перед вами створки."


def test_missing_images():
    assert missing_images(["a.png", "b.jpg"], {"b.jpg": "x"}) == ["a.png"]


def test_plain_text_marks_the_handout_block_and_the_images():
    marks = {"handout_mark": "(раздаточный материал)", "image_mark": "(изображение)"}
    assert plain_text(KUBOK_ALTAR, **marks) == "(раздаточный материал) Перед вами створки алтаря."
    text = "[Раздаточный материал:\nIO(OH)5\n]\nВ статье\n\nВот снимок:\n(img w=5cm k_001.jpeg)"
    assert plain_text(text, **marks) == "(раздаточный материал) В статье Вот снимок: (изображение)"
    assert plain_text("Без  ссылок\nи блока", **marks) == "Без ссылок и блока"
    assert plain_text(None, **marks) == ""
