"""``make cluster-test``: the cluster test of tests/cluster/cluster.py under pytest (needs
root, nginx, redis-server, the PostgreSQL server binaries and uv; run only when
SOVA_CLUSTER_TEST=1, which ``make cluster-test`` sets — `.ci/run` runs it after
``make test``; it takes a few minutes, the wheel build included)."""

from __future__ import annotations

import json
import os

import pytest

from tests.cluster import cluster

pytestmark = pytest.mark.skipif(
    os.environ.get("SOVA_CLUSTER_TEST") != "1",
    reason="the cluster test runs with `make cluster-test`",
)


def test_cluster_survives_a_lost_app_host_an_empty_redis_and_a_postgres_restart():
    missing = cluster.missing_tools()
    if missing:
        message = f"cluster test needs: {', '.join(missing)}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    figures = cluster.run_cluster()
    print(json.dumps(figures, ensure_ascii=False, indent=2))
    assert cluster.check(figures) == []
    assert figures["lost"] == 0 and figures["duplicated"] == 0
    assert figures["owed_after"]["waiting"] == figures["owed_after"]["overdue"] == 0
    # the hosts ran the wheel built from this checkout (unless SOVA_CLUSTER_BIN named one)
    if not os.environ.get("SOVA_CLUSTER_BIN"):
        assert figures["installed"].startswith("sova-") and figures["installed"].endswith(".whl")
