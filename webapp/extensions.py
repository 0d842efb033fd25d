"""Flask extensions, created unbound and initialised in :func:`webapp.app.create_app`."""

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
api = Api()
babel = Babel()
# Storage from RATELIMIT_STORAGE_URI: Redis when SOVA_REDIS_URL is set, memory otherwise.
limiter = Limiter(key_func=get_remote_address)
