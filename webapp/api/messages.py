"""The API's error messages in the client's language (``Accept-Language``, Russian by default;
the catalogs of Flask-Babel, ``webapp/translations``): the HTTP errors whose text would be
Werkzeug's English default, and marshmallow's field and validator messages.

marshmallow formats its message templates while a schema is built or a value is checked,
outside the answer's language. :class:`Message` keeps the template's Russian msgid and the
values to put in it, and is translated when the API's error handler turns it into text
(``str(message)``, :func:`webapp.api.body.flatten`). :func:`install` puts these messages in place
of marshmallow's English defaults; it runs before the API's schemas are declared.
"""

from __future__ import annotations

from typing import Any

from flask_babel import gettext
from marshmallow import Schema, fields, validate

from webapp.core.i18n import N_


class _Keep(dict):
    """``format_map`` mapping that leaves a placeholder without a value as it is."""

    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def _fill(template: str, values: dict[str, Any]) -> str:
    return template.format_map(_Keep({k: str(v) for k, v in values.items()}))


class Message(str):
    """A message template (a Russian msgid with ``{name}`` placeholders) and its values.

    As a ``str`` it is the Russian text (what a caller that never calls ``str()`` sees);
    ``.format(**values)`` returns another Message with those values added (marshmallow
    formats in steps: ``Range`` puts in the operator first, the bounds later);
    ``str(message)`` is the text in the current request's language."""

    msgid: str
    values: dict[str, Any]

    def __new__(cls, msgid: str, values: dict[str, Any] | None = None) -> Message:
        values = dict(values or {})
        obj = super().__new__(cls, _fill(msgid, values))
        obj.msgid = msgid
        obj.values = values
        return obj

    def format(self, *args: Any, **values: Any) -> Message:
        return Message(self.msgid, {**self.values, **values})

    def __str__(self) -> str:
        return _fill(gettext(self.msgid), self.values)

    def __reduce__(self):  # a copied schema copies its fields' messages
        return (Message, (self.msgid, self.values))

    def __deepcopy__(self, memo: dict) -> Message:
        return self


#: Texts of the HTTP errors whose description would be Werkzeug's (English) default.
HTTP_MESSAGES = {
    400: N_("Запрос не понят: его тело или заголовки повреждены."),
    401: N_("Нужен действующий API-токен: заголовок «Authorization: Bearer <токен>»."),
    403: N_("Недостаточно прав: этой роли запрос не разрешён."),
    404: N_("Не найдено: такого адреса или объекта нет."),
    405: N_("Этот метод для этого адреса не разрешён."),
    413: N_("Запрос слишком большой."),
    415: N_("Неподдерживаемый тип содержимого."),
    429: N_("Слишком много запросов: повторите позже."),
    500: N_("Внутренняя ошибка сервера."),
    503: N_("Сервис временно недоступен."),
}
HTTP_OTHER = N_("Ошибка HTTP {code}.")


def http_message(code: int | None) -> str:
    """The text of HTTP error ``code`` in the request's language (:data:`HTTP_MESSAGES`)."""
    msgid = HTTP_MESSAGES.get(code or 0)
    return gettext(msgid) if msgid else _fill(gettext(HTTP_OTHER), {"code": code})


REQUIRED = Message("Обязательное поле.")
NUL = Message("Недопустимый символ NUL.")
NOT_OBJECT = Message("Неверный тип: ожидается объект JSON.")

_FIELDS: dict[type, dict[str, Message]] = {
    fields.Field: {
        "required": REQUIRED,
        "null": Message("Поле не может быть null."),
        "validator_failed": Message("Недопустимое значение."),
    },
    fields.Nested: {"type": NOT_OBJECT},
    fields.List: {"invalid": Message("Ожидается список.")},
    fields.Mapping: {"invalid": NOT_OBJECT},
    fields.String: {
        "invalid": Message("Ожидается строка."),
        "invalid_utf8": Message("Строка не в UTF-8."),
    },
    fields.Number: {
        "invalid": Message("Ожидается число."),
        "too_large": Message("Слишком большое число."),
    },
    fields.Integer: {"invalid": Message("Ожидается целое число.")},
    fields.Float: {"special": Message("Значения NaN и бесконечность недопустимы.")},
    fields.Boolean: {"invalid": Message("Ожидается true или false.")},
    fields.Date: {"invalid": Message("Ожидается дата в формате ГГГГ-ММ-ДД.")},
    fields.DateTime: {
        "invalid": Message("Ожидаются дата и время в формате ISO 8601."),
        "invalid_awareness": Message("Ожидаются дата и время с часовым поясом (ISO 8601)."),
    },
}

_VALIDATORS: dict[type, dict[str, Message]] = {
    validate.Range: {
        "message_min": Message("Должно быть {min_op} {min}."),
        "message_max": Message("Должно быть {max_op} {max}."),
        "message_all": Message("Должно быть {min_op} {min} и {max_op} {max}."),
        "message_gte": Message("не меньше"),
        "message_gt": Message("больше"),
        "message_lte": Message("не больше"),
        "message_lt": Message("меньше"),
    },
    validate.Length: {
        "message_min": Message("Длина — не меньше {min}."),
        "message_max": Message("Длина — не больше {max}."),
        "message_all": Message("Длина — от {min} до {max}."),
        "message_equal": Message("Длина — ровно {equal}."),
    },
    validate.OneOf: {"default_message": Message("Допустимые значения: {choices}.")},
}


def install() -> None:
    """Put :class:`Message` texts in place of marshmallow's English defaults (idempotent);
    call before declaring schemas (a field takes its messages when it is made)."""
    for cls, messages in _FIELDS.items():
        own = cls.__dict__.get("default_error_messages", {})
        setattr(cls, "default_error_messages", {**own, **messages})  # noqa: B010
    for cls, attrs in _VALIDATORS.items():
        for name, message in attrs.items():
            setattr(cls, name, message)
    Schema._default_error_messages = {
        **Schema._default_error_messages,
        "type": NOT_OBJECT,
        "unknown": Message("Неизвестное поле."),
    }
