"""A staff page opened without a session sends the visitor to the login page and back."""

from __future__ import annotations


def test_a_staff_page_sends_an_anonymous_visitor_to_log_in_and_back(client):
    """The login page's ``next`` is the page's own address, with no bare «?» after it."""
    assert client.get("/prizes/").headers["Location"] == "/login?next=/prizes/"
    assert client.get("/prizes/?status=paid").headers["Location"] == (
        "/login?next=/prizes/?status%3Dpaid"
    )
