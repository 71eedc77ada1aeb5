"""`gatehouse users seed|import|export` and `gatehouse reset` (issue 13), run as the real binary on
a temporary SQLite file: what they write is what a server on that file then serves."""

from __future__ import annotations

import json
import os
import pty
import sqlite3
import subprocess
import urllib.error
import urllib.parse
import urllib.request

from conftest import Browserless, pb_call, unique_email

SEED_PASSWORD = "seeded-password-123"


def cli(binary, *args, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *map(str, args)], input=stdin, capture_output=True, timeout=120)


def rows(db_path, sql: str) -> int:
    db = sqlite3.connect(db_path)
    try:
        return db.execute(sql).fetchone()[0]
    finally:
        db.close()


def exported(binary, db_path) -> list[dict]:
    done = cli(binary, "users", "export", "--db", db_path)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def post_json(server, path: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(server.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read() or b"{}")


def sign_in(server, email: str, password: str) -> int:
    """The PocketBase API's password sign-in: 200 with a token, else 400."""
    return post_json(server, "/api/collections/users/auth-with-password", {"identity": email, "password": password})[0]


def test_seed_export_import_round_trip(binary, tmp_path, start_server):
    source = tmp_path / "source.sqlite"
    done = cli(binary, "users", "seed", 25, "--pattern", "cli+{n}@example.com", "--password", SEED_PASSWORD,
               "--verified", "--tag", "demo", "--db", source)
    assert done.returncode == 0, done.stderr.decode()
    assert "Created 25 users" in done.stdout.decode()
    # Not a terminal: plain progress lines, ending with the whole count.
    assert "Seeding: 25/25" in done.stderr.decode()
    # The audit names the command line as the way in, not the console (no superuser acted).
    seeded = "SELECT count(*) FROM audit_events WHERE type = 'admin.users.seeded' AND json_extract(data, '$.via') = 'cli'"
    assert rows(source, seeded) == 1

    users = exported(binary, source)
    assert sorted(user["email"] for user in users) == sorted(f"cli+{n}@example.com" for n in range(1, 26))
    assert all(user["emailVerified"] and user["tags"] == ["demo"] for user in users)
    assert all("passwordHash" not in user and "password" not in user for user in users)

    # The export, given a password, imports into a fresh file as the same users with the same tags.
    for user in users:
        user["password"] = "imported-password-123"
    export_file = tmp_path / "users.json"
    export_file.write_text(json.dumps(users))
    target = tmp_path / "target.sqlite"
    done = cli(binary, "users", "import", export_file, "--db", target)
    assert done.returncode == 0, done.stderr.decode()
    assert "Imported 25 users" in done.stdout.decode()
    again = exported(binary, target)
    assert {(u["email"], u["emailVerified"], tuple(u["tags"])) for u in again} == {
        (u["email"], u["emailVerified"], tuple(u["tags"])) for u in users
    }

    # CSV out and back in, through a file named .csv.
    csv_file = tmp_path / "users.csv"
    done = cli(binary, "users", "export", csv_file, "--db", target)
    assert done.returncode == 0, done.stderr.decode()
    assert csv_file.read_text().splitlines()[0].startswith("email,name,verified,tags")

    # Importing the same file again is refused row by row, and nothing is written.
    done = cli(binary, "users", "import", export_file, "--db", target)
    assert done.returncode != 0
    assert "Nothing was imported: 25 rows have problems." in done.stderr.decode()
    assert "cli+1@example.com already has an account." in done.stderr.decode()
    assert rows(target, "SELECT count(*) FROM users") == 25

    # Seeded and imported users sign in with their passwords on a server over these files.
    server = start_server(db_path=source, verification="none")
    assert sign_in(server, "cli+7@example.com", SEED_PASSWORD) == 200
    assert sign_in(server, "cli+7@example.com", "imported-password-123") == 400
    server = start_server(db_path=target, verification="none")
    assert sign_in(server, "cli+7@example.com", "imported-password-123") == 200


def test_seeded_and_imported_users_are_searched_and_counted_like_users_made_one_by_one(binary, tmp_path, start_server):
    """Seed and import keep the search index and user count a batch at a time instead of by a trigger
    per row (issue 13): a server already running on the file finds them by address and name, counts
    them with the user made through the API, and keeps doing so for the writes that follow."""
    db_path = tmp_path / "bulk.sqlite"
    server = start_server(db_path=db_path, verification="none")
    bearer = "Bearer " + server.superuser_token()

    def users(query: str = "") -> dict:
        return pb_call(server.url, "GET", "/_/api/users?limit=50" + query, bearer)

    def found(term: str) -> list[str]:
        return [user["email"] for user in users("&q=" + urllib.parse.quote(term))["items"]]

    pb_call(server.url, "POST", "/_/api/users", bearer, {"email": "first@example.com", "name": "Ada Firstcomer"})
    # Two batches (10,000 rows each), written while the server reads the same file.
    done = cli(binary, "users", "seed", 10_005, "--pattern", "bulk+{n}@example.com", "--db", db_path)
    assert done.returncode == 0, done.stderr.decode()
    people = tmp_path / "people.csv"
    people.write_text("email,name,password\ngrace@example.com,Grace Importer,imported-password-123\n"
                      "alan@example.com,Alan Importer,imported-password-123\n")
    done = cli(binary, "users", "import", people, "--db", db_path)
    assert done.returncode == 0, done.stderr.decode()

    assert found("bulk+7@") == ["bulk+7@example.com"]
    assert found("bulk+10004@") == ["bulk+10004@example.com"]
    assert found("Grace Imp") == ["grace@example.com"]
    assert sorted(found("importer")) == ["alan@example.com", "grace@example.com"]
    assert found("firstcomer") == ["first@example.com"]
    assert users()["totalItems"] == 1 + 10_005 + 2

    # A user made one at a time afterwards is found and counted too.
    pb_call(server.url, "POST", "/_/api/users", bearer, {"email": "later@example.com", "name": "Lin Latecomer"})
    assert found("latecomer") == ["later@example.com"]
    assert users()["totalItems"] == 1 + 10_005 + 2 + 1

    # Deleting a seeded and an imported user takes them out of search and the count.
    for term in ("bulk+10003@", "alan@"):
        [user] = users("&q=" + urllib.parse.quote(term))["items"]
        pb_call(server.url, "DELETE", f"/_/api/users/{user['id']}", bearer)
        assert found(term) == []
    assert users()["totalItems"] == 1 + 10_005 + 2 + 1 - 2
    assert sign_in(server, "grace@example.com", "imported-password-123") == 200


def test_seed_refuses_taken_addresses_and_writes_nothing(binary, tmp_path):
    db_path = tmp_path / "seed.sqlite"
    assert cli(binary, "users", "seed", 3, "--db", db_path).returncode == 0
    done = cli(binary, "users", "seed", 5, "--db", db_path)
    assert done.returncode != 0
    assert "3 of these addresses already have accounts" in done.stderr.decode()
    assert rows(db_path, "SELECT count(*) FROM users") == 3
    done = cli(binary, "users", "seed", 2, "--pattern", "no-placeholder@example.com", "--db", db_path)
    assert done.returncode != 0 and "Put {n} in the pattern" in done.stderr.decode()


def test_seed_draws_a_progress_bar_on_a_terminal(binary, tmp_path):
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [str(binary), "users", "seed", "20000", "--db", str(tmp_path / "bar.sqlite")],
            stdout=subprocess.PIPE, stderr=follower, timeout=120,
        )
        os.close(follower)
        follower = -1
        screen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:
                break
            if not chunk:
                break
            screen += chunk
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert done.returncode == 0
    text = screen.decode()
    assert "\rSeeding " in text and "100% 20,000/20,000" in text and "█" in text


def test_reset_without_yes_refuses_and_keeps_everything(binary, tmp_path):
    db_path = tmp_path / "keep.sqlite"
    assert cli(binary, "users", "seed", 4, "--db", db_path).returncode == 0
    done = cli(binary, "reset", "--db", db_path)
    assert done.returncode != 0
    assert "--yes" in done.stderr.decode() and "cannot be undone" in done.stderr.decode()
    assert rows(db_path, "SELECT count(*) FROM users") == 4


def test_reset_wipes_users_sessions_mail_and_audit_but_keeps_superusers_providers_and_apps(
    binary, tmp_path, start_server
):
    db_path = tmp_path / "reset.sqlite"
    config = tmp_path / "oauth.json"
    config.write_text(json.dumps({
        "providers": [{"name": "google", "type": "oidc", "mode": "test", "clientId": "test"}],
        "apps": [{"id": "notes", "name": "Notes app", "callbackURLs": ["notesapp://auth/callback"]}],
    }))
    staff_email, staff_password = "staff@example.com", "staff-password-123"
    done = cli(binary, "superuser", "create", staff_email, "--password-stdin", "--db", db_path,
               stdin=(staff_password + "\n").encode())
    assert done.returncode == 0, done.stderr.decode()
    assert cli(binary, "users", "seed", 10, "--password", SEED_PASSWORD, "--verified", "--db", db_path).returncode == 0

    server = start_server(db_path=db_path, verification="code", extra_args=["--oauth-config", str(config)])
    # A person signs up (mail: their code) and stays signed in (a session).
    person = Browserless(server.url)
    status, headers, _ = person.form_post(
        "/auth/sign-up", "/auth/sign-up", {"email": unique_email("reset"), "password": SEED_PASSWORD})
    assert status == 303
    assert sign_in(server, "test+3@example.com", SEED_PASSWORD) == 200
    assert rows(db_path, "SELECT count(*) FROM sessions") > 0
    assert rows(db_path, "SELECT count(*) FROM mails") > 0
    assert rows(db_path, "SELECT count(*) FROM audit_events") > 0
    signed_in = Browserless(server.url)
    assert signed_in.form_post(
        "/auth/sign-in", "/auth/sign-in", {"email": "test+4@example.com", "password": SEED_PASSWORD})[0] == 303
    assert signed_in.get("/account")[0] == 200

    done = cli(binary, "reset", "--yes", "--db", db_path)
    assert done.returncode == 0, done.stderr.decode()
    assert "Deleted 11 users" in done.stdout.decode()

    for table in ("users", "sessions", "mails", "user_tags", "rate_limit_events"):
        assert rows(db_path, f"SELECT count(*) FROM {table}") == 0, table
    assert rows(db_path, "SELECT count(*) FROM audit_events WHERE type = 'admin.data.reset'") == 1
    assert rows(db_path, "SELECT count(*) FROM audit_events") == 1
    assert rows(db_path, "SELECT count(*) FROM superusers") == 1
    assert rows(db_path, "SELECT count(*) FROM oauth_providers") == 1
    assert rows(db_path, "SELECT count(*) FROM oauth_apps") == 1

    # The running server sees it at once: the signed-in browser is signed out, the seeded account is
    # gone, and the superuser still gets into the admin API.
    status, headers, _ = signed_in.get("/account")
    assert status == 303 and "/auth/sign-in" in headers["Location"]
    assert sign_in(server, "test+3@example.com", SEED_PASSWORD) == 400
    status, body = post_json(server, "/_/api/auth", {"email": staff_email, "password": staff_password})
    assert status == 200 and body["token"]


def test_an_export_file_is_owner_only_even_when_it_existed(binary, tmp_path):
    """Issue 22 item 13: an export names every user and their tags, so its file is 0600 like the
    database — also when it replaces a world-readable file (before: 0644, and an existing 0644 kept)."""
    db_path = tmp_path / "export.sqlite"
    done = cli(binary, "users", "seed", 3, "--password", SEED_PASSWORD, "--db", db_path)
    assert done.returncode == 0, done.stderr.decode()
    fresh = tmp_path / "fresh.json"
    existing = tmp_path / "existing.csv"
    existing.write_text("stale\n")
    os.chmod(existing, 0o644)
    for target in (fresh, existing):
        done = cli(binary, "users", "export", target, "--db", db_path)
        assert done.returncode == 0, done.stderr.decode()
        assert os.stat(target).st_mode & 0o777 == 0o600, f"{target.name}: {oct(os.stat(target).st_mode & 0o777)}"
    assert existing.read_text().startswith("email,"), "the old content was replaced"
