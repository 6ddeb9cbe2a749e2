"""A cluster for `make verify`'s tests: the official client, with its HTTP layer answering from
recorded API objects (no server is reachable here), and the checks every platform's tests share."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlparse

from kubernetes.client import ApiClient, Configuration
from kubernetes.client.rest import RESTResponse

import verify.__main__ as verify_cli
from tests.conftest import assert_reports


class _Urllib3Response:
    def __init__(self, status: int, body: object):
        self.status = status
        self.reason = "OK" if status == 200 else "Not Found"
        self.data = json.dumps(body).encode()
        self.headers = {"content-type": "application/json"}


class RecordedCluster:
    """Stands in for the HTTP layer under `kubernetes.client`: answers each path from `routes`,
    404 where a path has no object (None or absent)."""

    def __init__(self, routes: dict[str, Any]):
        self.routes = {path: body for path, body in routes.items() if body is not None}
        self.requests: list[str] = []

    def request(
        self, method, url, headers=None, body=None, post_params=None, _request_timeout=None
    ):
        self.requests.append(f"{method} {url}")
        found = self.routes.get(urlparse(url).path)
        if found is None:
            return RESTResponse(_Urllib3Response(404, {"kind": "Status", "code": 404}))
        return RESTResponse(_Urllib3Response(200, found))


def client_for_routes(routes: dict[str, Any]) -> tuple[ApiClient, RecordedCluster]:
    api_client = ApiClient(Configuration(host="https://fixture.invalid"))
    api_client.rest_client = RecordedCluster(routes)
    return api_client, api_client.rest_client


def assert_broken_case_reported(
    broken: dict, case: str, recorded: Callable[[], dict], snapshot_of, check, expected
) -> None:
    """Break the recorded objects as `broken[case]` says; the check must report each wanted line."""
    change, wanted = broken[case]
    objects = recorded()
    change(objects)
    assert_reports(check(expected, snapshot_of(objects)), wanted)


def run_verify(monkeypatch, capsys, stack: str, api_client: ApiClient, code: int) -> str:
    """`make verify STACK=stack` against `api_client`: asserts the exit code and the first word of
    its report, and returns the report."""
    monkeypatch.setattr(
        verify_cli, "api_client_for", lambda stack, kubeconfig: (api_client, "fixture")
    )
    assert verify_cli.main([stack]) == code
    out = capsys.readouterr().out
    assert out.startswith(f"OK {stack} (fixture)" if code == 0 else f"FAIL {stack} (fixture)")
    return out
