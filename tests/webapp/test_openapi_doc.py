"""The OpenAPI document is built when first read (``webapp.extensions.DeferredDocApi``) and
is the same document flask-smorest's eager registration builds."""

from __future__ import annotations

import json
import threading

from flask import Flask
from flask_smorest import Api

from webapp.extensions import api


def test_deferred_document_equals_the_eager_one(make_app):
    """flask-smorest's own ``Api``, on an app of its own with Sova's settings and the same
    blueprints, builds the same document eagerly."""
    app = make_app()
    assert api._deferred and api.__dict__.get("_spec") is None  # the factory built nothing
    deferred = app.test_client().get("/api/v1/openapi.json")
    assert deferred.status_code == 200
    assert api._deferred == []

    from webapp.api import SPEC_KWARGS, schemas
    from webapp.api.season_views import blp as season_blp
    from webapp.api.views import blp

    plain = Flask("eager")
    plain.config.update({k: v for k, v in app.config.items() if k.startswith(("API_", "OPENAPI_"))})
    eager = Api()
    eager.ERROR_SCHEMA = schemas.ApiError
    eager.init_app(plain, spec_kwargs=SPEC_KWARGS)
    eager.register_blueprint(blp)
    eager.register_blueprint(season_blp)
    built = eager.spec.to_dict()
    assert json.dumps(deferred.json, sort_keys=False) == json.dumps(built, sort_keys=False)
    assert "/api/v1/questions" in deferred.json["paths"]
    assert [t["name"] for t in deferred.json["tags"]] == ["api", "api_seasons"]


def test_threads_reading_the_document_at_once_document_each_view_once(make_app):
    make_app()
    specs = []
    start = threading.Barrier(4)

    def read():
        start.wait()
        specs.append(api.spec.to_dict())

    threads = [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(specs) == 4
    assert all(s == specs[0] for s in specs)
    assert [t["name"] for t in specs[0]["tags"]] == ["api", "api_seasons"]
