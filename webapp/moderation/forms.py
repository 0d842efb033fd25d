"""Editor forms: the decision, claim/release/reveal buttons (CSRF only) and the queue
filters (GET, no CSRF: reading changes nothing)."""

from flask_babel import lazy_gettext as _l
from flask_wtf.file import FileAllowed, FileField, FileRequired, FileSize
from wtforms import (
    BooleanField,
    HiddenField,
    IntegerField,
    SelectChoice,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.validators import AnyOf, DataRequired, InputRequired, Length, Optional, ValidationError

from webapp.core.fields import NumberRange, SovaForm
from webapp.domain.question_states import STATES
from webapp.domain.text import has_control_chars
from webapp.moderation.reasons import REASON_LABELS
from webapp.submissions.images import MAX_BYTES
from webapp.submissions.models import CHANNEL_LABELS


class NoControlChars:
    """Refuse a field holding a C0/C1 control character other than a line end or a tab (a
    NUL, say: SQLite's full-text search fails on it with a 500, PostgreSQL refuses it in
    text). The viewer form and the API refuse them too."""

    message = _l("Поле содержит недопустимые управляющие символы.")

    def __call__(self, form, field) -> None:
        data = field.data
        if isinstance(data, str) and has_control_chars(data.replace("\r", "\n")):
            raise ValidationError(self.message)


STATUS_LABELS = {
    "in_review": "На рассмотрении",
    "received": "Получены",
    "prechecked": "Проверены",
    "approved": "Одобрены",
    "rejected": "Отклонены",
    "assigned": "В игре",
    "played": "Сыграны",
    "answered": "Отвечены знатоками",
    "unanswered": "Не отвечены",
    "withdrawn": "Отозваны",
    "archived": "Архив",
}
SORT_LABELS = [
    SelectChoice("oldest", "Сначала старые"),
    SelectChoice("newest", "Сначала новые"),
    SelectChoice("duplicate", "По сходству с повтором"),
    SelectChoice("reading", "Сначала долгие в чтении"),
    SelectChoice("reading_short", "Сначала короткие в чтении"),
    SelectChoice("id", "По номеру"),
]
CHANNEL_CHOICES = [
    SelectChoice("", "все"),
    *(
        SelectChoice(c, CHANNEL_LABELS[c])
        for c in ("web", "api", "mail", "import", "live", "partner")
    ),
]
#: «—» (no template reason), then the reasons of webapp.moderation.reasons
REASON_CHOICES = [
    SelectChoice("", "—"),
    *(SelectChoice(key, label) for key, label in REASON_LABELS.items()),
]
FLAG_CHOICES = [
    SelectChoice("", "все"),
    SelectChoice("question_present", "нет текста"),
    SelectChoice("answer_present", "нет ответа"),
    SelectChoice("question_length", "длина вопроса"),
    SelectChoice("answer_length", "длина ответа"),
    SelectChoice("author_present", "нет автора"),
    SelectChoice("sources_present", "нет источников"),
    SelectChoice("language", "язык не русский и не белорусский"),
    SelectChoice("obscene_words", "нецензурные слова"),
    SelectChoice("author_in_text", "автор в тексте"),
    SelectChoice("handout_missing", "нет раздатки"),
    SelectChoice("images_missing", "нет изображения"),
    SelectChoice("answer_leak", "слова ответа в вопросе"),
    SelectChoice("names_to_stress", "нет ударения в имени"),
    SelectChoice("lang_ru", "язык: русский"),
    SelectChoice("lang_be", "язык: белорусский"),
    SelectChoice("lang_other", "язык: другой"),
]


#: A rejection from the editors' pages needs a reason: the author is told why (docs/guide.md,
#: «accepted / not accepted (with the editors' reason)»). The API's ``reason`` stays optional.
REASON_REQUIRED = "Укажите причину отклонения (шаблон или свои слова): автор прочтёт её в письме."
BULK_REASON_REQUIRED = "Для отклонения выберите причину из шаблона: авторы прочтут её в письме."


class DecisionForm(SovaForm):
    """Approve / reject. A rejection takes a template reason (``reason_key``) and/or a free
    text, at least one of them (:data:`REASON_REQUIRED`); ``preview`` shows the author's
    e-mail instead of deciding."""

    decision = HiddenField(validators=[DataRequired(), AnyOf(["approve", "reject"])])
    # no Optional(): it would stop the chain before validate_reason on an empty field
    reason_key = SelectField("Причина из шаблона", choices=REASON_CHOICES, default="")
    reason = TextAreaField("Причина (для автора)", validators=[Length(max=1000)])
    preview = HiddenField(default="")

    def validate_reason(self, field: TextAreaField) -> None:
        rejecting = self.decision.data == "reject" and not self.preview.data
        if rejecting and not self.reason_key.data and not (field.data or "").strip():
            raise ValidationError(REASON_REQUIRED)


class EditForm(SovaForm):
    """An editor's edit of the question fields (each change kept as a revision)."""

    question = TextAreaField(
        "Вопрос", validators=[DataRequired(), NoControlChars(), Length(min=20, max=3000)]
    )
    answer = TextAreaField("Ответ", validators=[DataRequired(), NoControlChars(), Length(max=500)])
    accepted = TextAreaField("Зачёт", validators=[Optional(), NoControlChars(), Length(max=1000)])
    rejected = TextAreaField("Незачёт", validators=[Optional(), NoControlChars(), Length(max=1000)])
    comment = TextAreaField(
        "Комментарий", validators=[Optional(), NoControlChars(), Length(max=3000)]
    )
    sources = TextAreaField(
        "Источники (по одному в строке)",
        validators=[Optional(), NoControlChars(), Length(max=3000)],
    )
    handout = TextAreaField(
        "Раздаточный материал", validators=[Optional(), NoControlChars(), Length(max=2000)]
    )


class AuthorForm(SovaForm):
    """A chief editor's correction of one author read from a packet or a letter."""

    name = StringField("Имя", validators=[DataRequired(), NoControlChars(), Length(max=200)])
    city = StringField("Город", validators=[Optional(), NoControlChars(), Length(max=200)])


class HoldBackForm(SovaForm):
    """Hold back a question asked on air: a reason and a confirmation (audited)."""

    reason = TextAreaField(
        _l("Причина (например, претензия правообладателя)"),
        validators=[
            DataRequired(_l("Укажите причину.")),
            NoControlChars(),
            Length(max=1000, message=_l("Причина — не длиннее 1000 символов.")),
        ],
    )
    confirm = BooleanField(
        _l("Подтверждаю: вопрос больше не будет виден зрителям"),
        validators=[DataRequired(_l("Подтвердите, что вопрос нужно придержать."))],
    )


class CommentForm(SovaForm):
    text = TextAreaField(
        "Комментарий редакции", validators=[DataRequired(), NoControlChars(), Length(max=3000)]
    )


class BulkForm(SovaForm):
    """Bulk approve / reject of the checked questions; ``confirm`` empty shows the preview
    (how many and which), ``confirm == "1"`` commits."""

    decision = SelectField(
        "Действие",
        choices=[SelectChoice("approve", "Одобрить"), SelectChoice("reject", "Отклонить")],
    )
    reason_key = SelectField("Причина из шаблона", choices=REASON_CHOICES, default="")
    ids = StringField(validators=[DataRequired(), Length(max=20000)])

    def validate_reason_key(self, field: SelectField) -> None:
        if self.decision.data == "reject" and not field.data:
            raise ValidationError(BULK_REASON_REQUIRED)

    confirm = HiddenField(default="")


class ButtonForm(SovaForm):
    """A POST button (claim, release, reveal): the CSRF token is its only field."""


class StressForm(SovaForm):
    """One click per syllable: the stress mark on the ``vowel``-th vowel (0-based) of
    ``word`` (as written in the question) — the button clicked sends ``vowel``."""

    word = HiddenField(validators=[DataRequired(), Length(max=100)])
    vowel = IntegerField(validators=[InputRequired(), NumberRange(0, 30)])


class LeakMarkForm(SovaForm):
    """«Так задумано» on one answer word of the pre-check's ``answer_leak`` row: ``word``
    is the answer's folded word the report lists."""

    word = HiddenField(validators=[DataRequired(), Length(max=100)])


class QueueFilterForm(SovaForm):
    """The queue's GET filters; invalid values are reported and ignored."""

    class Meta:
        csrf = False

    status = SelectField(
        "Статус",
        choices=[
            SelectChoice(s, STATUS_LABELS[s])
            for s in ("in_review", *[x for x in STATES if x != "in_review"])
        ]
        + [SelectChoice("", "Все, кроме архива")],
        default="in_review",
        validators=[Optional()],
    )
    channel = SelectField("Канал", choices=CHANNEL_CHOICES, default="", validators=[Optional()])
    city = StringField("Город автора", validators=[Optional(), NoControlChars(), Length(max=200)])
    flag = SelectField(
        "Замечание проверки", choices=FLAG_CHOICES, default="", validators=[Optional()]
    )
    min_score = IntegerField(
        "Сходство с повтором от, %", validators=[Optional(), NumberRange(0, 100)]
    )
    older_than_days = IntegerField("Старше, дней", validators=[Optional(), NumberRange(0, 3650)])
    newer_than_days = IntegerField("Моложе, дней", validators=[Optional(), NumberRange(0, 3650)])
    q = StringField("Поиск по тексту", validators=[Optional(), NoControlChars(), Length(max=200)])
    origin = StringField(
        "Из пакета (файл)", validators=[Optional(), NoControlChars(), Length(max=100)]
    )
    signoff = SelectField(
        "Источники",
        choices=[
            SelectChoice("", "все"),
            SelectChoice("pending", "ещё не проверены вторым редактором"),
            SelectChoice("done", "проверены"),
        ],
        default="",
        validators=[Optional()],
    )
    sort = SelectField("Порядок", choices=SORT_LABELS, default="oldest", validators=[Optional()])


class AttachImageForm(SovaForm):
    """An editor attaches an image to a question (``webapp.moderation.images``): the file
    of one of its ``(img …)`` references, or its handout image. ``ref`` choices are set
    per question (``image_choices``)."""

    ref = SelectField(_l("Изображение"), choices=[])
    image = FileField(
        _l("Файл (JPEG, PNG, WebP)"),
        validators=[
            FileRequired(_l("Выберите файл.")),
            FileAllowed(["jpg", "jpeg", "png", "webp"], _l("Допускаются только JPEG, PNG и WebP.")),
            FileSize(MAX_BYTES, message=_l("Изображение больше 5 МБ.")),
        ],
    )


class ExportForm(SovaForm):
    """Ask the worker for a queue export too large for a request: the format (one form per
    format, the format hidden); the filters are the query arguments of the form's
    ``action``, as the queue's links carry them."""

    fmt = HiddenField(validators=[DataRequired(), AnyOf(("csv", "xlsx"))])
