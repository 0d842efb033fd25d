"""The viewer's submission form (Flask-WTF: CSRF on; labels translated with Flask-Babel)."""

from __future__ import annotations

from functools import lru_cache

from babel import support
from flask_babel import get_locale
from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileAllowed, FileField, FileRequired, FileSize
from wtforms import (
    BooleanField,
    DateField,
    EmailField,
    FieldList,
    FormField,
    HiddenField,
    SelectChoice,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.i18n import messages_path
from wtforms.validators import DataRequired, Email, Length, Optional

from webapp.core.fields import SovaForm, TextForm
from webapp.submissions.images import MAX_BYTES
from webapp.submissions.operations import LIMITS, MIN_QUESTION

REQUIRED = _l("Заполните это поле.")


def _len(name: str, minimum: int = -1) -> Length:
    return Length(
        min=minimum,
        max=LIMITS[name],
        message=_l(
            "Допускается от %(min)s до %(max)s символов.", min=max(minimum, 0), max=LIMITS[name]
        ),
    )


class CoauthorForm(TextForm):
    """One co-author: name and city (both optional; an empty row is ignored)."""

    name = StringField(_l("Имя и фамилия соавтора"), validators=[Optional(), _len("name")])
    city = StringField(_l("Город соавтора"), validators=[Optional(), _len("city")])


@lru_cache(maxsize=8)
def wtforms_translations(locale: str) -> support.NullTranslations:
    """WTForms' own messages for ``locale`` ("ru", "be", "en"), loaded once per process
    (Flask-WTF loads the catalogue again on every request)."""
    return support.Translations.load(messages_path(), [locale], domain="wtforms")


class QuestionFields(SovaForm):
    """The quiz fields every intake form shares (glossary: question, answer, accepted
    answers, comment, sources, handout); lengths from ``operations.LIMITS``."""

    class Meta:
        def get_translations(self, form):
            return wtforms_translations(str(get_locale()))

    question = TextAreaField(
        _l("Вопрос"), validators=[DataRequired(REQUIRED), _len("question", MIN_QUESTION)]
    )
    answer = StringField(_l("Ответ"), validators=[DataRequired(REQUIRED), _len("answer")])
    accepted = StringField(
        _l("Зачёт (другие верные ответы)"), validators=[Optional(), _len("accepted")]
    )
    comment = TextAreaField(_l("Комментарий"), validators=[Optional(), _len("comment")])
    sources = TextAreaField(
        _l("Источники (по одному в строке)"), validators=[Optional(), _len("sources")]
    )
    handout = TextAreaField(
        _l("Раздаточный материал (текст)"), validators=[Optional(), _len("handout")]
    )


class SubmitForm(QuestionFields):
    """Every field of a viewer's question; the operation re-checks everything.

    ``website`` is a honeypot (must stay empty); ``started`` carries a signed start time for
    the minimum fill time; ``idempotency_key`` makes a double click one question.
    """

    handout_image = FileField(
        _l("Раздаточный материал (изображение JPEG, PNG или WebP, до 5 МБ)"),
        validators=[
            Optional(),
            FileAllowed(["jpg", "jpeg", "png", "webp"], _l("Допускаются только JPEG, PNG и WebP.")),
            FileSize(MAX_BYTES, message=_l("Изображение больше 5 МБ.")),
        ],
    )
    name = StringField(_l("Имя и фамилия"), validators=[DataRequired(REQUIRED), _len("name")])
    city = StringField(_l("Город"), validators=[Optional(), _len("city")])
    coauthors = FieldList(FormField(CoauthorForm), min_entries=2, max_entries=5)
    # email-validator without DNS (as operations.normalise_email), so a bad address is
    # listed together with the other mistakes
    email = EmailField(
        _l("Электронная почта"),
        validators=[
            DataRequired(REQUIRED),
            Length(max=254),
            Email(_l("Неверный адрес электронной почты."), check_deliverability=False),
        ],
    )
    consent = BooleanField(
        _l("Даю согласие на обработку моих персональных данных для участия в проекте"),
        validators=[
            DataRequired(
                _l("Без согласия на обработку персональных данных мы не можем принять вопрос.")
            )
        ],
    )
    consent_on_air = BooleanField(_l("Даю согласие, чтобы моё имя и город назвали в эфире"))
    age_confirmed = BooleanField(
        _l("Мне исполнилось 16 лет, или у меня есть согласие родителей (законных представителей)"),
        validators=[
            DataRequired(
                _l("Подтвердите, что вам исполнилось 16 лет или у вас есть согласие родителей.")
            )
        ],
    )
    website = StringField(_l("Не заполняйте это поле"))  # honeypot
    started = HiddenField()
    idempotency_key = HiddenField()


class LetterForm(QuestionFields):
    """An editor types in a paper letter (channel ``mail``) or a partner's question
    (channel ``partner``, 2023 §3.3). No e-mail or consent checkbox: the letter is the
    consent; its scan is kept."""

    channel = SelectField(
        _l("Канал"),
        choices=[
            SelectChoice("mail", _l("Письмо")),
            SelectChoice("partner", _l("Вопрос партнёра (13 сектор)")),
        ],
    )
    name = StringField(_l("Имя и фамилия"), validators=[DataRequired(REQUIRED), _len("name")])
    city = StringField(_l("Город"), validators=[Optional(), _len("city")])
    email = EmailField(_l("Электронная почта"), validators=[Optional(), Length(max=254)])
    postmark_date = DateField(_l("Дата почтового штемпеля"), validators=[Optional()])
    scan = FileField(
        _l("Скан письма (JPEG, PNG, WebP)"),
        validators=[
            Optional(),
            FileAllowed(["jpg", "jpeg", "png", "webp"], _l("Допускаются только JPEG, PNG и WebP.")),
            FileSize(MAX_BYTES, message=_l("Изображение больше 5 МБ.")),
        ],
    )


#: Bytes of an uploaded packet or images zip at most (the request's own limit is raised to
#: twice this for the import page).
IMPORT_MAX_BYTES = 40 * 1024 * 1024
TOO_BIG = _l("Файл больше %(n)s МБ.", n=IMPORT_MAX_BYTES // (1024 * 1024))


class PacketUploadForm(SovaForm):
    """A 4s or db.chgk.info packet uploaded by an editor (``sova import`` on the web)."""

    packet = FileField(
        _l("Файл пакета (4s или формат db.chgk.info) или архив ZIP с пакетом и изображениями"),
        validators=[
            FileRequired(_l("Выберите файл.")),
            FileSize(IMPORT_MAX_BYTES, message=TOO_BIG),
        ],
    )
    images = FileField(
        _l("Изображения пакета (архив ZIP), если их нет в архиве пакета"),
        validators=[
            Optional(),
            FileAllowed(["zip"], _l("Изображения загружаются одним архивом ZIP.")),
            FileSize(IMPORT_MAX_BYTES, message=TOO_BIG),
        ],
    )
    as_ = SelectField(
        _l("Как импортировать"),
        choices=[
            SelectChoice("submissions", _l("Как присланные вопросы (на модерацию)")),
            SelectChoice("archive", _l("Как архив сыгранных вопросов")),
        ],
    )
    channel = SelectField(
        _l("Канал"),
        choices=[
            SelectChoice("import", _l("импорт пакета")),
            SelectChoice("mail", _l("письмо")),
            SelectChoice("partner", _l("партнёр (13 сектор)")),
        ],
    )
