"""Flask extensions, created unbound and initialised in :func:`webapp.app.create_app`."""

import threading
from typing import TYPE_CHECKING

from flask_babel import Babel
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from flask_login import LoginManager
from flask_migrate import Migrate
from flask_smorest import Api
from flask_sqlalchemy import SQLAlchemy
from flask_wtf.csrf import CSRFProtect
from sqlalchemy.orm import DeclarativeBase, MappedAsDataclass  # noqa: F401  (re-export for models)


class Base(DeclarativeBase):
    """Declarative base of every Sova model (SQLAlchemy 2 typed mappings)."""


db = SQLAlchemy(model_class=Base)
if TYPE_CHECKING:
    Model = Base  # to a type checker, db.Model is our declarative base
else:
    Model = db.Model  # the base class of every model: ``class Game(Model)``
migrate = Migrate()
csrf = CSRFProtect()
login_manager = LoginManager()


class DeferredDocApi(Api):
    """flask-smorest's ``Api`` that documents each blueprint's views when the OpenAPI document
    is first read (``/api/v1/openapi.json``, ``flask openapi print``) instead of when the
    blueprint is registered.

    Documenting the views (marshmallow schemas → JSON Schema, deep copies of every view's
    doc) was about 20 ms of the app factory's 27 ms, paid by every process start (each
    gunicorn worker, each ``sova`` command) and every test app, for a document few of them
    ever read. The document is the same, built in the same order: the blueprints' paths and
    tags as :meth:`register_blueprint` was called (``tests/webapp/test_openapi_doc.py``
    compares it with flask-smorest's eager build). Reading ``spec`` from two threads at once
    documents each blueprint once (a lock)."""

    def init_app(self, app, *, spec_kwargs=None):
        self._undocumented: list[tuple] = []  # (blueprint, name, parameters) in order
        self._doc_lock = threading.Lock()
        super().init_app(app, spec_kwargs=spec_kwargs)

    @property
    def spec(self):
        pending = self.__dict__.get("_undocumented")
        if pending:
            with self._doc_lock:
                while pending:
                    blp, name, parameters = pending[0]
                    blp.register_views_in_doc(
                        self, self._app, self._spec, name=name, parameters=parameters
                    )
                    self._spec.tag({"name": name, "description": blp.description})
                    pending.pop(0)
        return self._spec

    @spec.setter
    def spec(self, value) -> None:
        self._spec = value

    def register_blueprint(self, blp, *, parameters=None, **options):
        """Register ``blp`` on the app now; its views join the document when it is read."""
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)
        self._undocumented.append((blp, name, parameters))


api = DeferredDocApi()
babel = Babel()
# Storage from RATELIMIT_STORAGE_URI: Redis when SOVA_REDIS_URL is set, memory otherwise.
limiter = Limiter(key_func=get_remote_address)
