"""The worker entry point: ``celery -A workers.app worker`` / ``sova worker``."""

from webapp.app import create_app

flask_app = create_app()
celery_app = flask_app.extensions["celery"]

import workers.tasks  # noqa: E402,F401  (registers every task and the process signals)
