"""Fair deals (protocol/fairdeal.py, docs/protocol.md §15): the host commits to its seed
before any contribution can arrive, the game waits for the contributions it was promised,
the engine seed mixes them all, the seed is revealed at the end, and a client notices a host
that breaks any of it."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from mundus_net.bots import load_bot
from mundus_net.client.connection import Connection
from mundus_net.client.core import ClientSettings
from mundus_net.client.notices import Welcome
from mundus_net.engine.deck import default_deck
from mundus_net.host.table import Table, TableSettings
from mundus_net.protocol import fairdeal
from mundus_net.protocol.messages import decode_client, encode

Message = dict[str, Any]


def send(table: Table, conn: bytes, **message: Any) -> Message:
    return table.handle(conn, decode_client(encode(message)))


def test_the_byte_layouts_are_the_documented_ones() -> None:
    seed = bytes(range(32))
    shares = [b"\x01" * 32, b"\x02" * 32]
    assert fairdeal.seed_commitment("g1", seed) == hashlib.sha256(
        b"mundus-net/seed-commit/1\x00g1\x00" + seed).digest()
    digest = hashlib.sha256(b"mundus-net/deal/1\x00g1\x00" + seed + shares[0] + shares[1])
    assert fairdeal.engine_seed("g1", seed, shares) == int.from_bytes(digest.digest()[:8],
                                                                      "big")
    assert fairdeal.engine_seed("g1", fairdeal.host_seed_from_int(-7), shares, mixed=False) \
        == -7
    assert fairdeal.check_commitment(fairdeal.seed_commitment("g1", seed), "g1", seed)
    assert not fairdeal.check_commitment(fairdeal.seed_commitment("g2", seed), "g1", seed)
    with pytest.raises(ValueError):
        fairdeal.engine_seed("g1", seed, [b"short"])


def test_the_game_waits_for_promised_contributions_and_mixes_them() -> None:
    table = Table(3, TableSettings(game_id="fair"), seed=4, bots=[load_bot("greedy", 0)])
    a = send(table, b"a", t="hello", name="Ana", role="player", contribute=True)
    b = send(table, b"b", t="hello", name="Bo", role="player")  # contributes nothing
    # The commitment is in every welcome, before anyone contributed.
    assert a["seed_commitment"] == b["seed_commitment"] == fairdeal.seed_commitment(
        "fair", fairdeal.host_seed_from_int(4))
    assert a["contribute"] is True and b["contribute"] is False
    # Read into a local: mypy keeps a narrowed ``table.started`` across the calls below.
    started_before_share = table.started
    assert not started_before_share  # every seat is taken, but Ana's share is not in yet
    assert send(table, b"a", t="contribute", token=a["token"], value=b"\xaa" * 32)["t"] == "ok"
    assert table.started
    # A repeat changes nothing; after the start nothing more is taken.
    assert send(table, b"a", t="contribute", token=a["token"], value=b"\xbb" * 32)["t"] == "ok"
    late = send(table, b"b", t="contribute", token=b["token"], value=b"\xcc" * 32)
    assert late["code"] == "commit_phase"
    fair = table.record.fairness
    assert fair is not None
    assert [c["by"] for c in fair["contributions"]] == ["bot", "player", "host"]
    values = [bytes.fromhex(c["value"]) for c in fair["contributions"]]
    assert values[1] == b"\xaa" * 32
    assert table.game.options.seed == fairdeal.engine_seed("fair", table.host_seed, values)
    table.output.flush()
    events = [e for u in table.drain()[0] for e in u["events"]]
    kinds = [e["kind"] for e in events]
    assert kinds.index("fair_deal") < kinds.index("started") < kinds.index("setup")
    deal = events[kinds.index("fair_deal")]
    assert deal["contributions"]["1"] == b"\xaa" * 32 and deal["mixed"] is True


def _client(commitment: bytes, contribution: bytes | None) -> tuple[Connection, list[Any]]:
    """A connection (never opened) that joined a table with this seed commitment."""
    seen: list[Any] = []
    conn = Connection("tcp://127.0.0.1:1", ClientSettings("ana"), insecure=True,
                      on_mismatch=seen.append)
    core = conn.core
    core.welcome = Welcome(seat=1, token="0" * 32, game="fair", name="t", players=2,
                           names=("a", "b"), options={}, deck=default_deck(), pub_port=2,
                           heartbeat_ms=1000, seed_commitment=commitment)
    core.seat, core.game_id, core.contribution = 1, "fair", contribution
    return conn, seen


def test_a_client_catches_a_host_that_breaks_the_fair_deal() -> None:
    seed = b"\x05" * 32
    promised = fairdeal.seed_commitment("fair", seed)
    mine, theirs = b"\x01" * 32, b"\x02" * 32
    honest_seed = fairdeal.engine_seed("fair", seed, [theirs, mine])

    def deal(commitment: bytes = promised, share: bytes = mine) -> Message:
        return {"kind": "fair_deal", "commitment": commitment, "mixed": True,
                "contributions": {"0": theirs, "1": share}}

    conn, seen = _client(promised, mine)
    conn.watch_offers(deal())
    conn.watch_offers({"kind": "seed_reveal", "host_seed": seed, "seed": honest_seed})
    assert seen == []
    for forged, reveal, reason in [
        (deal(commitment=b"\x00" * 32), None, "not the one it told"),
        (deal(share=b"\x09" * 32), None, "contribution to the seed is not in the deal"),
        (deal(), {"host_seed": b"\x06" * 32, "seed": honest_seed}, "does not open"),
        (deal(), {"host_seed": seed, "seed": honest_seed + 1}, "is not the one"),
    ]:
        conn, seen = _client(promised, mine)
        conn.watch_offers(forged)
        if reveal is not None:
            conn.watch_offers({"kind": "seed_reveal", **reveal})
        assert len(seen) == 1 and reason in seen[0].reason and seen[0].seat == -1
