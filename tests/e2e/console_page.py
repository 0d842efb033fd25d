"""The host's console page as the host uses it in Chromium: a big button pressed, and the
wait for the parts the server answers with."""

from __future__ import annotations


def press(page, label: str, *, early: bool = False, sector: int | None = None) -> None:
    """Press the big button ``label`` (in the form holding it) and wait for the parts
    the server answers with to be in place."""
    form = page.locator(
        "#console-actions form", has=page.get_by_role("button", name=label, exact=True)
    )
    if sector is not None:
        form.locator("input[name=sector]").fill(str(sector))
    if early:
        form.locator("input[name=early]").check()
    with page.expect_response(lambda r: "/console" in r.url and r.request.method == "POST"):
        form.get_by_role("button", name=label, exact=True).click()
    page.wait_for_function("() => !document.getElementById('console').hasAttribute('aria-busy')")
