"""Editor forms: the decision, claim/release/reveal buttons (CSRF only) and the queue
filters (GET, no CSRF: reading changes nothing)."""

from flask_wtf import FlaskForm
from wtforms import HiddenField, IntegerField, SelectField, StringField, TextAreaField
from wtforms.validators import AnyOf, DataRequired, Length, NumberRange, Optional

from webapp.domain.question_states import STATES

STATUS_LABELS = {
    "in_review": "На рассмотрении", "received": "Получены", "prechecked": "Проверены",
    "approved": "Одобрены", "rejected": "Отклонены", "assigned": "В игре",
    "played": "Сыграны", "answered": "Отвечены знатоками", "unanswered": "Не отвечены",
    "withdrawn": "Отозваны", "archived": "Архив",
}
SORT_LABELS = [("oldest", "Сначала старые"), ("newest", "Сначала новые"),
               ("duplicate", "По сходству с повтором"), ("id", "По номеру")]
CHANNEL_CHOICES = [("", "все"), ("web", "web"), ("api", "api"), ("mail", "mail"),
                   ("import", "import"), ("live", "live"), ("partner", "partner")]
FLAG_CHOICES = [("", "все"), ("question_present", "нет текста"),
                ("answer_present", "нет ответа"), ("question_length", "длина вопроса"),
                ("answer_length", "длина ответа"), ("author_present", "нет автора"),
                ("sources_present", "нет источников")]


class DecisionForm(FlaskForm):
    decision = HiddenField(validators=[DataRequired(), AnyOf(["approve", "reject"])])
    reason = TextAreaField("Причина (для автора)", validators=[Optional(), Length(max=1000)])


class ButtonForm(FlaskForm):
    """A POST button (claim, release, reveal): the CSRF token is its only field."""


class QueueFilterForm(FlaskForm):
    """The queue's GET filters; invalid values are reported and ignored."""

    class Meta:
        csrf = False

    status = SelectField("Статус", choices=[(s, STATUS_LABELS[s]) for s in
                                            ("in_review", *[x for x in STATES if x != "in_review"])]
                         + [("", "Все, кроме архива")], default="in_review",
                         validators=[Optional()])
    channel = SelectField("Канал", choices=CHANNEL_CHOICES, default="", validators=[Optional()])
    city = StringField("Город автора", validators=[Optional(), Length(max=200)])
    flag = SelectField("Замечание проверки", choices=FLAG_CHOICES, default="",
                       validators=[Optional()])
    min_score = IntegerField("Сходство с повтором от, %",
                             validators=[Optional(), NumberRange(0, 100)])
    older_than_days = IntegerField("Старше, дней", validators=[Optional(), NumberRange(0, 3650)])
    newer_than_days = IntegerField("Моложе, дней", validators=[Optional(), NumberRange(0, 3650)])
    q = StringField("Поиск по тексту", validators=[Optional(), Length(max=200)])
    sort = SelectField("Порядок", choices=SORT_LABELS, default="oldest", validators=[Optional()])
