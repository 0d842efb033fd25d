"""Sova: the viewer-question pipeline of «Что? Где? Когда?». ``flask --app webapp``."""


def create_app(test_config=None):
    """Flask's app discovery entry point; see :func:`webapp.app.create_app`."""
    from webapp.app import create_app as _create_app

    return _create_app(test_config)
