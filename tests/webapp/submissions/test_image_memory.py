"""Memory amplification by images. A 6300×6300 PNG compresses to a few
hundred KB but cost ~600 MB of peak memory per worker. The image path's peak resident
memory is measured in a fresh subprocess (``resource.getrusage`` ``ru_maxrss``: Pillow's
pixel buffers are C allocations that tracemalloc cannot see) and must stay under
``BOUND_MB`` above the process's baseline; the PNG is refused with the translated message,
a JPEG of the same size is stored scaled down."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

BOUND_MB = 120
pytestmark = pytest.mark.slow  # memory bounds of images at full size: the full run

SIDE = 6300

PROBE = r"""
import json, resource, sys
from pathlib import Path
from webapp.app import create_app
from webapp.submissions.images import ImageError, store_image

data = Path(sys.argv[1]).read_bytes()
app = create_app({"TESTING": True, "SOVA_INSTANCE_PATH": sys.argv[2],
                  "SOVA_BROKER_URL": "memory://"})
with app.test_request_context():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        result = {"stored": store_image(data, Path(sys.argv[2]) / "uploads")}
    except ImageError as exc:
        result = {"refused": str(exc)}
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({**result, "peak_mb": (after - before) / 1024}))
"""


def measure(tmp_path: Path, data: bytes) -> dict:
    path = tmp_path / "image.bin"
    path.write_bytes(data)
    out = subprocess.run(
        [sys.executable, "-c", PROBE, str(path), str(tmp_path / "inst")],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def image_bytes(fmt: str) -> bytes:
    img = Image.new(
        "RGBA" if fmt == "PNG" else "RGB",
        (SIDE, SIDE),
        (200, 30, 30, 255) if fmt == "PNG" else (200, 30, 30),
    )
    out = io.BytesIO()
    img.save(out, format=fmt, **({"optimize": True} if fmt == "PNG" else {"quality": 80}))
    return out.getvalue()


def test_a_huge_png_is_refused_within_the_memory_bound(tmp_path):
    data = image_bytes("PNG")
    assert len(data) < 1024 * 1024  # small on the wire
    result = measure(tmp_path, data)
    assert result.get("refused") == (
        "Слишком большое изображение PNG или WebP: не более 16 "
        "мегапикселей (JPEG может быть больше)."
    )
    assert result["peak_mb"] < BOUND_MB, result


def test_a_huge_jpeg_is_stored_scaled_within_the_memory_bound(tmp_path):
    data = image_bytes("JPEG")
    result = measure(tmp_path, data)
    assert "stored" in result, result
    assert result["peak_mb"] < BOUND_MB, result
    with Image.open(tmp_path / "inst" / "uploads" / result["stored"]) as img:
        assert max(img.size) <= 4096 and img.format == "JPEG"


@pytest.mark.parametrize("fmt", ["PNG", "WEBP"])
def test_an_image_within_the_budget_is_kept_whole(tmp_path, fmt):
    img = Image.new("RGB", (3000, 2000), (10, 120, 40))
    out = io.BytesIO()
    img.save(out, format=fmt)
    result = measure(tmp_path, out.getvalue())
    with Image.open(tmp_path / "inst" / "uploads" / result["stored"]) as stored:
        assert stored.size == (3000, 2000) and stored.format == fmt
