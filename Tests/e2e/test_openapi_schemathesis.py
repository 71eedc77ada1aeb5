"""The admin JSON API against its own OpenAPI 3.1 document (issue 9): schemathesis generates
requests from /_/api/openapi.json — examples, boundary values, random data and stateful chains that
use what a create returned — and every answer must be free of server errors, have a documented
status and match its documented schema. Bounded: a few examples per operation."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import urllib.request


def test_the_openapi_document_is_served_without_a_token(start_server):
    server = start_server(verification="none")
    with urllib.request.urlopen(server.url + "/_/api/openapi.json", timeout=10) as response:
        document = json.loads(response.read())
    assert document["openapi"].startswith("3.1")
    assert "/_/api/users/{id}" in document["paths"]
    assert document["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"


def test_schemathesis_finds_no_server_error_and_no_schema_break(start_server, tmp_path):
    cli = shutil.which("schemathesis") or shutil.which("st")
    command = [cli] if cli else [sys.executable, "-m", "schemathesis.cli"]
    server = start_server(verification="none")
    token = server.superuser_token()
    # Users to list, read and change: an empty list would leave the user schema unchecked.
    seed = urllib.request.Request(
        server.url + "/_/api/users/seed", method="POST",
        data=json.dumps({"count": 5, "pattern": "schema+{n}@example.com", "password": "quiet-otter-123", "verified": True}).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(seed, timeout=30) as response:
        assert response.status == 201
    result = subprocess.run(
        [*command, "run", server.url + "/_/api/openapi.json",
         "--header", f"Authorization: Bearer {token}",
         "--checks", "not_a_server_error,response_schema_conformance,status_code_conformance",
         "--max-examples", "10", "--workers", "1", "--seed", "20261123"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"schemathesis found problems:\n{output[-6000:]}\n{server.log_tail()}"
    assert "generated" in output and " passed" in output, output[-2000:]
