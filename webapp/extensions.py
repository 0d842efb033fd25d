"""Flask extensions, created unbound and initialised in :func:`webapp.app.create_app`."""

import functools
import threading
from collections.abc import Callable
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
    """flask-smorest's ``Api`` that builds its OpenAPI document when it is first read
    (``/api/v1/openapi.json``, ``flask openapi print``) instead of while the app is made.

    Building it (the spec object, a default response per HTTP status, each view's
    marshmallow schemas turned into JSON Schema) is most of the app factory's work, and
    every process start (each gunicorn worker, each ``sova`` command) and every test app
    would pay it for a document few of them ever read (measured: docs/performance-history.md,
    the OpenAPI document built when first read). It defers flask-smorest's private
    ``_init_spec``, the one step that builds the spec object. The steps are the ones
    flask-smorest takes, in the same order (``tests/webapp/test_openapi_doc.py`` compares
    the document with its eager build). Threads reading ``spec`` at once wait for the one
    building it; the steps' own reads of ``spec`` in that thread see the document so far."""

    def init_app(self, app, *, spec_kwargs=None):
        self._deferred: list[Callable[[], None]] = []  # the steps not taken yet, in order
        self._spec = None  # not an earlier app's (the extension object serves each app made)
        self._doc_lock = threading.Lock()
        self._building = threading.local()
        super().init_app(app, spec_kwargs=spec_kwargs)

    def _init_spec(self, **kwargs) -> None:
        self._deferred.append(functools.partial(super()._init_spec, **kwargs))

    @property
    def spec(self):
        deferred = self.__dict__.get("_deferred")
        if deferred and not getattr(self._building, "active", False):
            with self._doc_lock:
                self._building.active = True
                try:
                    while deferred:
                        deferred[0]()
                        deferred.pop(0)
                finally:
                    self._building.active = False
        return self.__dict__.get("_spec")

    @spec.setter
    def spec(self, value) -> None:
        self._spec = value

    def register_blueprint(self, blp, *, parameters=None, **options):
        """Register ``blp`` on the app now; its views join the document when it is read."""
        name = options.get("name", blp.name)
        self._app.extensions["flask-smorest"]["blp_name_to_api"][name] = self
        self._app.register_blueprint(blp, **options)

        def document() -> None:
            blp.register_views_in_doc(self, self._app, self.spec, name=name, parameters=parameters)
            self.spec.tag({"name": name, "description": blp.description})

        self._deferred.append(document)


api = DeferredDocApi()
babel = Babel()
# Storage from RATELIMIT_STORAGE_URI: Redis when SOVA_REDIS_URL is set, memory otherwise.
limiter = Limiter(key_func=get_remote_address)
