"""Secrets at rest (issue 9, item 7), on the real binary: the database and its companions are
owner-only, the keyed-hash key lives in the 0600 key file and not in the database, and an install
from before that move is upgraded on start without signing anyone out."""

from __future__ import annotations

import os
import sqlite3
import stat

from conftest import PASSWORD, Browserless, unique_email


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
