"""Reading the editors' pages as a person does: the filter form's fields as a browser submits
them, the links by their text, the question numbers the queue table lists."""

from __future__ import annotations

from html.parser import HTMLParser
from urllib.parse import urlencode


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []  # (text, href)
        self.forms: list[dict] = []  # {"attrs": {...}, "fields": [(name, value)], "selects"}
        self.listed: list[int] = []  # the queue's question numbers (the row check boxes)
        self.buttons: list[dict] = []  # {"text", "formaction", "form": the form's attrs}
        self._button: dict | None = None
        self._a: dict | None = None
        self._form: dict | None = None
        self._select: str | None = None
        self._first_option: str | None = None
        self._selected: str | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: (v if v is not None else "") for k, v in attrs}
        if tag == "a" and "href" in a:
            self._a = {"href": a["href"], "text": ""}
        elif tag == "form":
            self._form = {"attrs": a, "fields": []}
            self.forms.append(self._form)
        elif tag == "input":
            if a.get("name") == "ids" and a.get("type") == "checkbox":
                self.listed.append(int(a["value"]))
            if self._form is not None and a.get("name"):
                kind = a.get("type", "text")
                if kind not in ("checkbox", "radio", "submit") or "checked" in a:
                    self._form["fields"].append((a["name"], a.get("value", "")))
        elif tag == "button":
            self._button = {
                "text": "",
                "formaction": a.get("formaction"),
                "form": self._form["attrs"] if self._form is not None else None,
            }
        elif tag == "select" and self._form is not None:
            self._select, self._first_option, self._selected = a.get("name"), None, None
        elif tag == "option" and self._select:
            if self._first_option is None:
                self._first_option = a.get("value", "")
            if "selected" in a:
                self._selected = a.get("value", "")

    def handle_data(self, data):
        if self._a is not None:
            self._a["text"] += data
        if self._button is not None:
            self._button["text"] += data

    def handle_endtag(self, tag):
        if tag == "button" and self._button is not None:
            self._button["text"] = self._button["text"].strip()
            self.buttons.append(self._button)
            self._button = None
        if tag == "a" and self._a is not None:
            self.links.append((self._a["text"].strip(), self._a["href"]))
            self._a = None
        elif tag == "select" and self._select and self._form is not None:
            value = self._selected if self._selected is not None else self._first_option
            self._form["fields"].append((self._select, value or ""))
            self._select = None
        elif tag == "form":
            self._form = None


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def link(html: str, text: str) -> str:
    """The href of the one link whose text is ``text`` (AssertionError otherwise)."""
    hrefs = [href for t, href in parse(html).links if t == text]
    assert len(hrefs) == 1, (text, hrefs)
    return hrefs[0].replace("&amp;", "&")


def form(html: str, **attrs: str) -> dict:
    """The one form with these attributes (``role="search"``, ``action="/editor/bulk"``):
    ``{"action": ..., "method": ..., "fields": [(name, value), ...]}`` as a browser sends it
    untouched (selects: the selected option, else the first)."""
    found = [f for f in parse(html).forms if all(f["attrs"].get(k) == v for k, v in attrs.items())]
    assert len(found) == 1, (attrs, [f["attrs"] for f in parse(html).forms])
    f = found[0]
    return {
        "action": f["attrs"].get("action", ""),
        "method": f["attrs"].get("method", "get").lower(),
        "fields": f["fields"],
    }


def button(html: str, text: str) -> dict:
    """The one button whose text is ``text``: ``{"text", "formaction", "form"}`` (``form``:
    the attributes of the form it submits)."""
    found = [b for b in parse(html).buttons if b["text"] == text]
    assert len(found) == 1, (text, [b["text"] for b in parse(html).buttons])
    return found[0]


def filled(fields: list[tuple[str, str]], **values) -> str:
    """The query string a browser sends for ``fields`` with ``values`` set in place."""
    return urlencode([(k, str(values.get(k, v))) for k, v in fields])


def listed(html: str) -> list[int]:
    """The question numbers the queue page lists, in its order."""
    return parse(html).listed


def screen(client, query: str) -> tuple[list[int], str]:
    """Every question number the queue lists for ``query`` (following «следующая →»), and the
    first page."""
    first = page = client.get("/editor/queue?" + query).get_data(as_text=True)
    shown = listed(page)
    while any(t == "следующая →" for t, _ in parse(page).links):
        page = client.get(link(page, "следующая →")).get_data(as_text=True)
        shown += listed(page)
    return shown, first
