"""The forms of a page as a browser submits them, so a test sends what the page renders (its
``action`` and its fields), never a POST body of its own."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

#: Input types a browser does not send untouched (a button only when it is the one clicked).
NOT_SENT = frozenset({"submit", "button", "reset", "image", "file"})


@dataclass
class Form:
    """One ``<form>``: ``attrs`` (its attributes); ``fields``: what a browser sends untouched,
    in page order — every named input (hidden ones included; a checkbox or radio only when
    checked), every textarea's text (without the one newline after its start tag, which a
    browser drops), every select's selected option (else its first); ``checkboxes``: every
    checkbox's name, ticked or not, in page order; ``when_ticked``: the value each checkbox
    sends when ticked."""

    attrs: dict[str, str]
    fields: dict[str, str] = field(default_factory=dict)
    checkboxes: list[str] = field(default_factory=list)
    when_ticked: dict[str, str] = field(default_factory=dict)

    @property
    def action(self) -> str | None:
        return self.attrs.get("action")

    @property
    def method(self) -> str:
        return (self.attrs.get("method") or "get").lower()


class _Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[Form] = []
        self._form: Form | None = None
        self._textarea: str | None = None
        self._select: str | None = None
        self._options: list[tuple[str, bool]] = []  # (value, selected)

    def handle_starttag(self, tag, attrs):
        a = {k: (v if v is not None else "") for k, v in attrs}
        if tag == "form":
            self._form = Form(a)
            self.forms.append(self._form)
            return
        if self._form is None:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text").lower()
            if kind in ("checkbox", "radio"):
                if kind == "checkbox":
                    self._form.checkboxes.append(name)
                    self._form.when_ticked[name] = a.get("value", "on")
                if "checked" in a:
                    self._form.fields[name] = a.get("value", "on")
            elif kind not in NOT_SENT:
                self._form.fields[name] = a.get("value", "")
        elif tag == "textarea" and name:
            self._textarea = name
            self._form.fields[name] = ""
        elif tag == "select" and name:
            self._select, self._options = name, []
        elif tag == "option" and self._select:
            self._options.append((a.get("value", ""), "selected" in a))

    def handle_data(self, data):
        if self._textarea is not None and self._form is not None:
            self._form.fields[self._textarea] += data

    def handle_endtag(self, tag):
        if tag == "textarea" and self._textarea is not None and self._form is not None:
            text = self._form.fields[self._textarea]
            self._form.fields[self._textarea] = (
                text[2:] if text.startswith("\r\n") else text.removeprefix("\n")
            )
            self._textarea = None
        elif tag == "select" and self._select is not None and self._form is not None:
            chosen = [v for v, selected in self._options if selected] or [
                v for v, _ in self._options[:1]
            ]
            if chosen:
                self._form.fields[self._select] = chosen[-1]
            self._select = None
        elif tag == "form":
            self._form = None


def page_forms(html: str) -> list[Form]:
    """Every form of ``html``, in page order."""
    parser = _Forms()
    parser.feed(html)
    return parser.forms


def form_fields(html: str, action: str) -> dict[str, str]:
    """What a browser sends untouched for the form of ``html`` posting to ``action``."""
    (form,) = [f for f in page_forms(html) if f.action == action]
    return dict(form.fields)


def fresh_request() -> None:
    """Forget what a shared app context cached for the last request (its user, its CSRF
    token), so that the next request is another browser's or a new one."""
    from flask import g

    g.pop("_login_user", None)
    g.pop("csrf_token", None)


def signed_in(app, email: str, password: str, https: bool = False):
    """A test client signed in through the login form as it renders (CSRF token included),
    or None when the login was refused; ``https``: its requests come through a proxy that says
    they came over HTTPS (production redirects plain HTTP; the app must trust one proxy hop)."""
    client = app.test_client()
    if https:
        client.environ_base["HTTP_X_FORWARDED_PROTO"] = "https"  # as nginx says it
        # Flask-WTF checks an HTTPS form's Referer against the host (WTF_CSRF_SSL_STRICT)
        client.environ_base["HTTP_REFERER"] = "https://localhost/"
    fresh_request()
    page = client.get("/login").get_data(as_text=True)
    (form,) = [f for f in page_forms(page) if f.method == "post" and "password" in f.fields]
    data = {**form.fields, "email": email, "password": password}
    fresh_request()
    resp = client.post("/login", data=data)
    return client if resp.status_code == 302 else None


def get_page(client, url: str) -> str:
    """The text of ``url`` (asserting a 200), as another request."""
    fresh_request()
    resp = client.get(url)
    assert resp.status_code == 200, resp.status_code
    return resp.get_data(as_text=True)


def submit_form(client, page: str, form_id: str, url: str, tick: bool = False, **typed):
    """Submit the form ``id=form_id`` of ``page`` (found at ``url``) with ``typed`` fields
    filled in (a prefixed form's prefix is added); ``tick`` ticks its checkboxes. A form
    without ``action`` posts to its page, as a browser does."""
    (form,) = [f for f in page_forms(page) if f.attrs.get("id") == form_id]
    data = {k: v for k, v in form.fields.items() if k not in form.checkboxes}
    if tick:
        data |= form.when_ticked
    prefix = next((k[: -len("csrf_token")] for k in data if k.endswith("csrf_token")), "")
    data |= {prefix + k: v for k, v in typed.items()}
    fresh_request()
    return client.post(form.action or url, data=data)
