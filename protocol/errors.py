"""Protocol errors: a stable ``code`` (docs/protocol.md, "Errors") and a message for people."""

from __future__ import annotations

from mundus_net.engine.errors import MundusError

__all__ = ["ERROR_CODES", "ProtocolError"]

ERROR_CODES = {
    "malformed": "the frame is not a msgpack map",
    "too_large": "the frame is larger than the protocol allows",
    "version": "the protocol version is not one this host speaks",
    "unknown_type": "the message type is not one of the protocol's",
    "bad_field": "a field is missing, unknown, of the wrong type or out of range",
    "not_joined": "send hello first",
    "bad_token": "the seat token is wrong",
    "table_full": "no free seat is left",
    "invite_needed": "this table is for the invited: the hello needs the host's invite code",
    "bad_invite": "the invite code is not this table's",
    "seat_in_use": "another live connection holds this token's seat (hello with take_over "
                   "takes it over)",
    "spectator": "spectators may not act",
    "not_pending": "the seat has nothing to decide, or not this",
    "illegal": "the engine refused the decision (the message starts with the rule ID)",
    "commit_phase": "a commitment or reveal that does not fit the offer step now",
    "commit_mismatch": "the reveal does not match its commitment",
    "stale": "the decision answers a pending decision that is gone",
    "rate_limited": "the request is refused by its own limit (snapshots, chat): ask again later",
    "flood": "more than the connection may send: its messages are dropped unanswered for a "
             "second",
    "game_over": "the game is over",
    "internal": "the host failed to handle the message (a bug in the host)",
}


class ProtocolError(MundusError):
    """A message the host (or client) refuses. ``code`` is one of ERROR_CODES."""

    def __init__(self, code: str, message: str, rule: str | None = None) -> None:
        assert code in ERROR_CODES, code
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
