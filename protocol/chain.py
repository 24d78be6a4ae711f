"""The chain of a game's public history: what a client witnessed, so that a host that comes
back at an earlier point, or on another history, is seen (docs/security.md, "A host that goes
back in time"; docs/protocol.md §5, "The witness").

Every client follows the public events of its table (§5). The host rebuilds exactly the same
events when it resumes a game from its log, except those it does not log: chats, comings and
goings, spectators, stand-ins, the stop and closing notices (:data:`UNLOGGED`). The other
events, the *durable* ones, are chained from :data:`GENESIS`::

    digest(n) = SHA-256(digest(n-1) || canonical msgpack of durable event n)

(canonical: every map's keys sorted, msgpack bin for bytes). A client keeps the count of
durable events it has seen and the digest after them (:class:`Witness`). A snapshot's history
must hold that many durable events and give that digest after them: fewer means the host came
back at an earlier point (:data:`EARLIER`), another digest means another history
(:data:`ANOTHER`). Nothing new travels on the wire: a snapshot carries the whole history.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import msgpack

__all__ = [
    "ANOTHER", "EARLIER", "GENESIS", "OFFER_AGAIN", "SCHEME", "UNLOGGED", "Rewind", "Witness",
    "durable", "extend", "link", "prefix"
]

SCHEME = "mundus-net/chain/1"
GENESIS = hashlib.sha256(SCHEME.encode()).digest()
# Host events a resumed host does not restore (they are not in its game log, docs/protocol.md
# §11): they are left out of the chain, so an honest resume is never taken for a rewind.
UNLOGGED = frozenset({"chat", "away", "back", "spectator", "stand_in", "stand_in_end",
                      "stopping", "closing", "contribution_late"})
EARLIER = "earlier"  # the host's history is shorter than what this client saw
ANOTHER = "another"  # the host's history differs from what this client saw
OFFER_AGAIN = "offer_again"  # an offer step this seat revealed in is asked again


def durable(event: Mapping[str, Any]) -> bool:
    """Whether a public event is in the chain (a resumed host publishes it again)."""
    return event.get("kind") not in UNLOGGED


def _canonical(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _canonical(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return value


def link(digest: bytes, event: Mapping[str, Any]) -> bytes:
    """The chain's digest after ``event``, from the digest before it."""
    packed: bytes = msgpack.packb(_canonical(event), use_bin_type=True)
    return hashlib.sha256(digest + packed).digest()


def extend(count: int, digest: bytes, events: Iterable[Mapping[str, Any]]) -> tuple[int, bytes]:
    """(count, digest) after the durable ones among ``events``."""
    for event in events:
        if durable(event):
            count += 1
            digest = link(digest, event)
    return count, digest


def prefix(events: Iterable[Mapping[str, Any]], count: int) -> tuple[int, bytes]:
    """The chain of the first ``count`` durable events of a history (fewer if it has fewer):
    (how many it has, up to ``count``; the digest after them)."""
    seen, digest = 0, GENESIS
    if count <= 0:
        return 0, digest
    for event in events:
        if durable(event):
            seen += 1
            digest = link(digest, event)
            if seen == count:
                break
    return seen, digest


@dataclass(frozen=True, slots=True)
class Rewind:
    """A host history that does not go on from what this client witnessed."""

    kind: str  # EARLIER or ANOTHER
    seen: int  # durable events this client had witnessed
    host: int  # durable events in the host's history
    round: int  # the highest round this client had seen
    host_round: int  # the round the host's state is at

    def sentence(self) -> str:
        """For the log and the table's chat (at most 200 characters)."""
        if self.kind == EARLIER:
            return (f"the host went back in time: its game is at round {self.host_round}, "
                    f"event {self.host}, but this client saw round {self.round}, event "
                    f"{self.seen}")
        if self.kind == OFFER_AGAIN:
            return (f"the host went back in time: it asks again for the offer of round "
                    f"{self.host_round}, which this client already revealed")
        return (f"the host's game is not the one this client saw: its history differs within "
                f"the first {self.seen} events (round {self.round})")


@dataclass(frozen=True, slots=True)
class Witness:
    """What one client saw of one game from one seat (None: watching): the durable events'
    count and digest, the highest round, and this seat's revealed offers by round (an offer
    step asked again after its reveal is a rewind, and never gets another offer). Saved in
    the client's state folder (client/witness.py)."""

    game: str
    count: int = 0
    digest: bytes = GENESIS
    round: int = 0
    revealed: Mapping[int, tuple[tuple[int, ...], bytes, bytes]] = field(default_factory=dict)
    # round -> (offer, nonce, commitment)
    seat: int | None = None

    def after(self, events: Iterable[Mapping[str, Any]], round_: int) -> Witness:
        count, digest = extend(self.count, self.digest, events)
        return replace(self, count=count, digest=digest, round=max(self.round, round_))

    def check(self, history: Iterable[Mapping[str, Any]], host_round: int) -> Rewind | None:
        """None when ``history`` (a snapshot's events) goes on from what was witnessed."""
        seen, digest = prefix(history, self.count)
        if seen < self.count:
            return Rewind(EARLIER, self.count, seen, self.round, host_round)
        if digest != self.digest:
            return Rewind(ANOTHER, self.count, seen, self.round, host_round)
        return None

    def rebased(self, history: Iterable[Mapping[str, Any]], round_: int) -> Witness:
        """The witness of a history accepted in place of the one seen (the player chose to go
        on after a rewind); the revealed offers are kept."""
        count, digest = extend(0, GENESIS, history)
        return replace(self, count=count, digest=digest, round=round_)

    def with_reveal(self, round_: int, offer: tuple[int, ...], nonce: bytes,
                    commitment: bytes) -> Witness:
        return replace(self, revealed={**self.revealed, round_: (offer, nonce, commitment)})

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "seat": self.seat, "count": self.count,
                "digest": self.digest.hex(),
                "round": self.round, "revealed": {
                    str(r): {"offer": list(o), "nonce": n.hex(), "commitment": c.hex()}
                    for r, (o, n, c) in sorted(self.revealed.items())}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Witness:
        """ValueError, KeyError or TypeError on a malformed entry."""
        revealed = {int(r): (tuple(int(c) for c in v["offer"]), bytes.fromhex(v["nonce"]),
                             bytes.fromhex(v["commitment"]))
                    for r, v in dict(data.get("revealed") or {}).items()}
        seat = data.get("seat")
        return cls(str(data["game"]), int(data["count"]), bytes.fromhex(data["digest"]),
                   int(data.get("round", 0)), revealed,
                   None if seat is None else int(seat))
