"""The overlay's EBU OGraf v1 manifest is valid against the OGraf schema of
``shared/data/ograf/`` (validated with ``jsonschema_rs``, the JSON Schema package of the
lock; the ``jsonschema`` package is not in it), names a graphic Sova serves, and describes
exactly the row the feed sends."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema_rs


def _registry(schemas: Path) -> jsonschema_rs.Registry:
    """Every OGraf schema file under its ``$id``, so no ``$ref`` goes to the network."""
    resources = []
    for path in sorted(schemas.rglob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        if "$id" in doc:
            resources.append((doc["$id"], doc))
    return jsonschema_rs.Registry(resources)


def _validator(schemas: Path):
    schema = json.loads((schemas / "graphics" / "schema.json").read_text(encoding="utf-8"))
    return jsonschema_rs.validator_for(schema, registry=_registry(schemas))


def test_the_manifest_is_valid_ograf(client, shared_dir):
    ograf = shared_dir / "data" / "ograf" / "v1"
    r = client.get("/onair/1/overlay.ograf.json")
    assert r.status_code == 200
    assert r.headers["Access-Control-Allow-Origin"] == "*"
    manifest = r.json
    validator = _validator(ograf / "specification" / "json-schemas")
    errors = [e.message for e in validator.iter_errors(manifest)]
    assert errors == []
    # the check bites: the schema's own example passes, a manifest without «main» does not
    example = json.loads(
        (ograf / "examples" / "l3rd-name" / "l3rd.ograf.json").read_text(encoding="utf-8")
    )
    assert validator.is_valid(example)
    assert not validator.is_valid({k: v for k, v in manifest.items() if k != "main"})

    graphic = client.get(f"/onair/1/{manifest['main']}")
    assert graphic.status_code == 200
    assert graphic.mimetype == "text/javascript"
    assert "export default SovaOnAir" in graphic.get_data(as_text=True)
    assert manifest["renderRequirements"] == [
        {"resolution": {"width": {"exact": 1920}, "height": {"exact": 1080}}}
    ]


def test_the_manifest_describes_the_feeds_row(client, api, app):
    """``v_sovaRow`` lists exactly the row's keys (contracts/api.md) and a real row is
    valid against it."""
    from tests.webapp.games import helpers as h

    g = h.game(h.season(), status="ready")
    h.commit()
    key = api("post", f"/api/v1/games/{g.id}/broadcast-tokens", role="producer").json["token"]
    (row,) = client.get(f"/api/v1/games/{g.id}/onair.json?key={key}").json
    described = client.get(f"/onair/{g.id}/overlay.ograf.json").json["v_sovaRow"]
    assert set(described["properties"]) == set(described["required"]) == set(row)
    assert len(row) == 20
    assert jsonschema_rs.validator_for(described).is_valid(row)
