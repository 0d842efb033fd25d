"""Sova: the viewer-question pipeline of «Что? Где? Когда?». ``flask --app webapp``."""


def create_app(test_config=None):
    """Flask's app discovery entry point; see :func:`webapp.app.create_app`."""
    # Imported when called: every ``import webapp.<anything>`` runs this package first, and
    # the engines and ``sova season replay`` must not load Flask and the features.
    from webapp.app import create_app as _create_app

    return _create_app(test_config)
