"""Secrets at rest (issue 9, item 7), on the real binary: the database and its companions are
owner-only, the keyed-hash key lives in the 0600 key file and not in the database, and an install
from before that move is upgraded on start without signing anyone out."""

from __future__ import annotations

import os
import sqlite3
import stat

from conftest import PASSWORD, Browserless, read_mailbox, unique_email


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def keyed_hash_rows(db_path) -> int:
    db = sqlite3.connect(db_path)
    try:
        return db.execute("SELECT count(*) FROM secrets WHERE name = 'keyed-hash'").fetchone()[0]
    finally:
        db.close()


def sign_up(server) -> tuple[Browserless, str]:
    client = Browserless(server.url)
    email = unique_email("atrest")
    status, headers, _ = client.form_post("/auth/sign-up", "/auth/sign-up", {"email": email, "password": PASSWORD})
    assert status == 303 and headers["Location"].startswith("/account"), status
    return client, email


def test_files_are_private_and_the_key_is_not_in_the_database(start_server, tmp_path):
    db_path = tmp_path / "rest.sqlite"
    server = start_server(db_path=db_path, verification="none")
    client, email = sign_up(server)
    key_file = tmp_path / "rest.sqlite.key"
    for path in (db_path, tmp_path / "rest.sqlite-wal", tmp_path / "rest.sqlite-shm", key_file):
        assert path.exists(), f"{path.name} missing"
        assert mode(path) == 0o600, f"{path.name} has mode {oct(mode(path))}"
    assert key_file.stat().st_size == 64
    assert keyed_hash_rows(db_path) == 0, "the database still holds the keyed-hash key"
    server.stop()

    # An install from before the move: a 32-byte key file and the keyed-hash key in `secrets`.
    keys = key_file.read_bytes()
    key_file.write_bytes(keys[:32])
    db = sqlite3.connect(db_path)
    db.execute("INSERT INTO secrets (name, value) VALUES ('keyed-hash', ?)", (keys[32:],))
    db.commit()
    db.close()

    server = start_server(db_path=db_path, verification="none")
    client.base_url = server.url
    status, _, page = client.get("/account")
    assert status == 200 and email in page, "the upgrade signed the person out"
    assert key_file.read_bytes() == keys, "the key file did not take the database's key"
    assert mode(key_file) == 0o600
    assert keyed_hash_rows(db_path) == 0, "the database kept its copy of the key"


def test_the_mailbox_keeps_codes_and_links_sealed_at_rest(start_server, tmp_path):
    """Issue 22 item 13: whoever reads the SQLite file (a backup, a copied volume) learns who was
    mailed and when, never a live sign-in code or link — the dev mailbox seals each mail under a
    key from the key file and opens it only when the mailbox is read."""
    db_path = tmp_path / "mail.sqlite"
    server = start_server(db_path=db_path, verification="none")
    _, email = sign_up(server)
    for path, answer in (("/auth/sign-in/code", 303), ("/auth/sign-in/link", 200)):
        status, _, _ = Browserless(server.url).form_post("/auth/sign-in", path, {"email": email})
        assert status == answer, f"{path} answered {status}"
    mails = read_mailbox(server.url, email)
    code = next(mail["code"] for mail in mails if mail.get("code"))
    link = next(mail["link"] for mail in mails if mail.get("link"))
    # The mailbox still shows both; the file must show neither (nor the code in its sentence).
    coded = next(mail["text"] for mail in mails if mail.get("code"))
    at = coded.index(code)
    sentence = coded[max(0, at - 12):at + len(code)]
    secrets = {"code in its text": sentence, "link": link, "link token": link.rsplit("=", 1)[-1]}

    def leaks(paths) -> list[str]:
        found = []
        for path in paths:
            data = path.read_bytes() if path.exists() else b""
            found += [f"{name} in {path.name}" for name, secret in secrets.items() if secret.encode() in data]
        return found

    files = (db_path, tmp_path / "mail.sqlite-wal")
    assert leaks(files) == [], "the file holds a live secret while the server runs"
    db = sqlite3.connect(db_path)
    try:
        rows = [repr(row) for row in db.execute("SELECT * FROM mails")]
    finally:
        db.close()
    assert len(rows) == len(mails) and not any(code in row for row in rows), rows
    server.stop()
    assert leaks(files) == [], "the file holds a live secret once the server checkpointed it"
