"""The viewer's submission form (Flask-WTF: CSRF on; labels translated with Flask-Babel)."""

from __future__ import annotations

from datetime import date, datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

from babel import support
from flask import current_app
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
from wtforms.validators import DataRequired, Email, Length, Optional, ValidationError

from webapp.core.fields import SovaForm, TextForm
from webapp.submissions.images import MAX_BYTES
from webapp.submissions.operations import LIMITS, MIN_QUESTION
from webapp.submissions.scans import MAX_PDF_BYTES

REQUIRED = _l("Заполните это поле.")


def _len(name: str, minimum: int = -1) -> Length:
    """The length check of field ``name`` (at most ``LIMITS[name]`` characters, at least
    ``minimum``; -1 or 0: no minimum). Its message says only the maximum when there is no
    minimum: «Не длиннее 3000 символов.», else «Допускается от 20 до 3000 символов.»."""
    if minimum <= 0:
        message = _l("Не длиннее %(max)s символов.", max=LIMITS[name])
    else:
        message = _l("Допускается от %(min)s до %(max)s символов.", min=minimum, max=LIMITS[name])
    return Length(min=minimum, max=LIMITS[name], message=message)


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
    the minimum fill time; ``idempotency_key`` makes a double click one question;
    ``handout_upload`` names the image kept from an earlier send of the form.
    """

    handout_image = FileField(
        _l("Раздаточный материал (изображение JPEG, PNG или WebP, до 5 МБ)"),
        validators=[
            Optional(),
            FileAllowed(["jpg", "jpeg", "png", "webp"], _l("Допускаются только JPEG, PNG и WebP.")),
            FileSize(MAX_BYTES, message=_l("Изображение больше 5 МБ.")),
        ],
    )
    # the signed token of the image kept from an earlier send of this form, and the
    # viewer's choice to drop it (webapp.submissions.views.submit_form)
    handout_upload = HiddenField()
    handout_image_remove = BooleanField(_l("Убрать это изображение из вопроса"))
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
    # a staff page: Russian only. The content decides what the file is
    # (webapp.submissions.scans); the name's suffix and the size only sort out a wrong
    # choice early (an image is held to 5 MB there)
    scan = FileField(
        "Скан письма (JPEG, PNG, WebP или PDF)",
        validators=[
            Optional(),
            FileAllowed(
                ["jpg", "jpeg", "png", "webp", "pdf"], "Допускаются только JPEG, PNG, WebP и PDF."
            ),
            FileSize(MAX_PDF_BYTES, message="Скан больше 10 МБ."),
        ],
    )

    def validate_postmark_date(self, field: DateField) -> None:
        """A postmark is no later than today (:func:`letter_today`): a date to come
        («2030-02-14») is a typing error. A Russian message (a staff page)."""
        today = letter_today()
        if field.data is not None and field.data > today:
            raise ValidationError(
                f"Дата штемпеля {field.data:%d.%m.%Y} ещё не наступила (сегодня "
                f"{today:%d.%m.%Y}): укажите дату с конверта."
            )


def letter_today() -> date:
    """Today's date in ``SOVA_TIMEZONE``, the latest possible postmark: a letter belongs to
    no season when it is typed in, and that is the zone of the pages without a season (the
    2023 season's Europe/Minsk by default; Europe/Moscow where the 2009 book is played)."""
    return datetime.now(ZoneInfo(current_app.config["SOVA_TIMEZONE"])).date()


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
    # offered once the page has said the packet's questions are there already (a staff
    # page: Russian only, like its warning)
    again = BooleanField("Импортировать ещё раз, хотя эти вопросы уже есть в базе")
