"""PocketBase realtime record subscriptions through the PyPI `pocketbase` SDK (0.17.3), the same
assertions against the real PocketBase binary and against Gatehouse: `collection("users")
.subscribe(cb)` (the SDK's topic is the bare collection name, PocketBase's older spelling of
`users/*`) and `subscribe_one(id, cb)` get create, update and delete events for records their
auth may view, and nothing for others. An event that must not arrive is shown not to by a later
one on the same stream (a stream delivers in order), never by waiting. Gatehouse alone: accounts
seeded by `gatehouse users seed` in another process on the same SQLite file arrive too.
"""

from __future__ import annotations

import queue
import subprocess
import time

import pytest
from pocketbase import PocketBase
from pocketbase.services.sse import EventLoop

from conftest import SUPERUSER, pocketbase_client, unique_email

PASSWORD = "quiet-otter-123"
WAIT = 15  # seconds a `get` waits for an event that must come


@pytest.fixture(autouse=True)
def sdk_listens_before_it_reads(monkeypatch):
    """pocketbase 0.17.3 starts the thread that reads its event stream before it adds its PB_CONNECT
    listener (`RealtimeService._connect`): on a busy machine the event comes first and is dropped,
    and the client never sends its subscriptions — against PocketBase itself too (seen in 1 of 3
    runs with the cores busy). Here the reading thread waits for that listener before it connects;
    what goes over the wire is unchanged."""
    read = EventLoop._read

    def read_once_listening(self):
        deadline = time.monotonic() + WAIT
        while "PB_CONNECT" not in self.listeners and time.monotonic() < deadline:
            time.sleep(0.01)
        yield from read(self)

    monkeypatch.setattr(EventLoop, "_read", read_once_listening)


@pytest.fixture(params=["pocketbase", "gatehouse"])
def target(request, start_server):
    if request.param == "pocketbase":
        base, _, _ = request.getfixturevalue("pocketbase")
        return base, None
    server = start_server(verification="none")
    server.superuser_token(*SUPERUSER)  # creates the superuser
    return server.url, server


def superuser(base: str) -> PocketBase:
    client = pocketbase_client(base)
    client.collection("_superusers").auth_with_password(*SUPERUSER)
    return client


def signed_in(base: str, address: str) -> PocketBase:
    client = pocketbase_client(base)
    client.collection("users").auth_with_password(address, PASSWORD)
    return client


class Events:
    """What a subscription's callback received, in order."""

    def __init__(self):
        self.received: queue.Queue = queue.Queue()

    def __call__(self, event):
        self.received.put(event)

    def next(self):
        return self.received.get(timeout=WAIT)


def until_live(staff: PocketBase, record_id: str, *streams: Events):
    """The SDK subscribes from its stream's thread once connected: change the record until the
    first stream gets an event (a readiness probe, not an assertion), then change it once more and
    read every stream up to that change, so none holds an earlier event."""
    deadline = time.monotonic() + WAIT
    attempt = 0
    while True:
        staff.collection("users").update(record_id, {"name": f"probe {attempt}"})
        try:
            streams[0].received.get(timeout=0.5)
            break
        except queue.Empty:
            assert time.monotonic() < deadline, "the subscription never delivered"
            attempt += 1
    staff.collection("users").update(record_id, {"name": "ready"})
    for events in streams:
        while events.next().record.name != "ready":
            pass


def create_user(staff: PocketBase, address: str, name: str):
    return staff.collection("users").create(
        {"email": address, "password": PASSWORD, "passwordConfirm": PASSWORD, "name": name, "verified": True})


def test_subscribers_get_their_records_events_and_nobody_elses(target):
    base, _ = target
    staff = superuser(base)
    alice_address, bob_address = unique_email("alice"), unique_email("bob")
    alice = create_user(staff, alice_address, "Alice")
    bob = create_user(staff, bob_address, "Bob")

    alice_client, bob_client = signed_in(base, alice_address), signed_in(base, bob_address)
    alice_all, alice_own = Events(), Events()
    alice_client.collection("users").subscribe(alice_all)
    alice_client.collection("users").subscribe_one(alice.id, alice_own)
    bob_all, bob_on_alice = Events(), Events()
    bob_client.collection("users").subscribe(bob_all)
    bob_client.collection("users").subscribe_one(alice.id, bob_on_alice)
    until_live(staff, alice.id, alice_own, alice_all)
    until_live(staff, bob.id, bob_all)

    staff.collection("users").update(bob.id, {"name": "Bob Two"})
    staff.collection("users").update(alice.id, {"name": "Alice Two"})
    for events in (alice_all, alice_own):
        event = events.next()  # Bob's change, made first, did not reach Alice
        assert event.action == "update"
        assert event.record.id == alice.id and event.record.name == "Alice Two"
        assert event.record.email == alice_address, "the owner sees her email"
        assert event.record.collection_name == "users"
    bob_event = bob_all.next()  # Alice's change did not reach Bob, by either topic
    assert bob_event.record.id == bob.id and bob_event.record.name == "Bob Two"

    # Bob stops following his own record by id; the collection topic goes on.
    bob_mine = Events()
    bob_client.collection("users").subscribe_one(bob.id, bob_mine)
    staff.collection("users").update(bob.id, {"name": "Bob Three"})
    assert bob_mine.next().record.name == "Bob Three"
    assert bob_all.next().record.name == "Bob Three"
    bob_client.collection("users").unsubscribe(bob.id)
    staff.collection("users").update(bob.id, {"name": "Bob Four"})
    staff.collection("users").update(bob.id, {"name": "Bob Five"})
    assert [bob_all.next().record.name, bob_all.next().record.name] == ["Bob Four", "Bob Five"]
    assert bob_mine.received.empty(), "the record topic's events would have come before Bob Five's"

    staff.collection("users").delete(alice.id)
    deleted = alice_own.next()
    assert deleted.action == "delete" and deleted.record.id == alice.id and deleted.record.name == "Alice Two"
    assert alice_all.next().action == "delete"
    staff.collection("users").update(bob.id, {"name": "Bob Six"})
    assert bob_all.next().record.name == "Bob Six"
    assert bob_on_alice.received.empty(), "Bob never gets Alice's record, not even its delete"
    for client in (alice_client, bob_client):
        client.realtime.unsubscribe()


def test_superusers_see_accounts_made_anywhere(target, binary):
    base, server = target
    staff = superuser(base)
    created = Events()
    staff.collection("users").subscribe(created)
    marker = create_user(staff, unique_email("marker"), "Marker")
    until_live(staff, marker.id, created)

    address = unique_email("carol")
    carol = create_user(staff, address, "Carol")
    event = created.next()
    assert event.action == "create" and event.record.id == carol.id and event.record.email == address

    if server is not None:
        # Another process seeds accounts into the same SQLite file while Gatehouse serves it.
        done = subprocess.run(
            [str(binary), "users", "seed", "2", "--pattern", "seeded+{n}@example.com", "--db", str(server.db_path)],
            capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr.decode()
        seeded = {created.next().record.email, created.next().record.email}
        assert seeded == {"seeded+1@example.com", "seeded+2@example.com"}
    staff.realtime.unsubscribe()
