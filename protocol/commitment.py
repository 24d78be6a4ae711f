"""Commit-reveal for trade offers (R5.3; docs/protocol.md, "Secret offers").

A client commits to its offer with SHA-256 over a fixed byte layout, so any language can
compute it:

    b"mundus-net/offer/1" 0x00 | game id (UTF-8) 0x00 | round (4 bytes, big-endian)
    | seat (1 byte) | offer size (1 byte) | offer cards, sorted (1 byte each, relic = 10)
    | nonce (32 random bytes)
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Sequence

__all__ = ["DOMAIN", "NONCE_BYTES", "commit", "commitment_preimage", "new_nonce", "verify"]

DOMAIN = b"mundus-net/offer/1"
NONCE_BYTES = 32


def commitment_preimage(game_id: str, round_: int, seat: int, offer: Sequence[int],
                        nonce: bytes) -> bytes:
    if len(nonce) != NONCE_BYTES:
        raise ValueError(f"the nonce is {NONCE_BYTES} bytes")
    cards = sorted(offer)
    return b"".join((
        DOMAIN, b"\x00", game_id.encode(), b"\x00", round_.to_bytes(4, "big"),
        bytes((seat, len(cards))), bytes(cards), nonce,
    ))


def commit(game_id: str, round_: int, seat: int, offer: Sequence[int], nonce: bytes) -> bytes:
    """The 32-byte commitment to ``offer``."""
    return hashlib.sha256(commitment_preimage(game_id, round_, seat, offer, nonce)).digest()


def new_nonce() -> bytes:
    return os.urandom(NONCE_BYTES)


def verify(commitment: bytes, game_id: str, round_: int, seat: int, offer: Sequence[int],
           nonce: bytes) -> bool:
    """Does (offer, nonce) open ``commitment``? Constant-time comparison."""
    try:
        expected = commit(game_id, round_, seat, offer, nonce)
    except ValueError:
        return False
    return hmac.compare_digest(expected, commitment)
