"""Fair deals (docs/protocol.md §15): the engine seed comes from the host's secret seed and a
random contribution of every seat, and the host commits to its seed before it can know any
contribution.

Every value is a byte string with a fixed layout, so that any language can check a game:

    commitment  = SHA-256("mundus-net/seed-commit/1" 0x00 game-id (UTF-8) 0x00 host-seed)
    mixed seed  = first 8 bytes, big-endian, of
                  SHA-256("mundus-net/deal/1" 0x00 game-id (UTF-8) 0x00 host-seed
                          contribution of seat 0 ... contribution of seat N-1)
    fixed seed  = host-seed read as a signed big-endian number (a test or replay table whose
                  host fixed the seed with ``--seed N --fixed-seed``: contributions are kept
                  but not mixed)

The host seed and every contribution are 32 bytes. A seat whose client sent no contribution
(a host bot, or a client that does not contribute) gets one made by the host from its seed:
``SHA-256("mundus-net/host-contribution/1" 0x00 host-seed seat)``, as unpredictable as random
bytes while the host seed is secret, and the same again when a table is restored from its
log; a fixed seed and the same contributions always give the same game (R2.6).
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Sequence

__all__ = [
    "COMMIT_DOMAIN", "CONTRIBUTION_BYTES", "DEAL_DOMAIN", "HOST_CONTRIBUTION_DOMAIN", "SCHEME",
    "SEED_BYTES", "check_commitment", "engine_seed", "host_contribution", "host_seed_from_int",
    "new_host_seed", "seed_commitment"
]

SEED_BYTES = 32
CONTRIBUTION_BYTES = 32
COMMIT_DOMAIN = b"mundus-net/seed-commit/1"
DEAL_DOMAIN = b"mundus-net/deal/1"
HOST_CONTRIBUTION_DOMAIN = b"mundus-net/host-contribution/1"
SCHEME = "mundus-net/deal/1"


def new_host_seed() -> bytes:
    return os.urandom(SEED_BYTES)


def host_seed_from_int(n: int) -> bytes:
    """``--seed N`` as a host seed: N as 32 bytes, big-endian, two's complement."""
    return n.to_bytes(SEED_BYTES, "big", signed=True)


def seed_commitment(game_id: str, host_seed: bytes) -> bytes:
    """The 32-byte commitment the host publishes before any contribution is known."""
    _check(host_seed, SEED_BYTES, "the host seed")
    return hashlib.sha256(b"".join((COMMIT_DOMAIN, b"\x00", game_id.encode(), b"\x00",
                                    host_seed))).digest()


def check_commitment(commitment: bytes, game_id: str, host_seed: bytes) -> bool:
    """Does ``host_seed`` open ``commitment``? (constant-time comparison)"""
    try:
        return hmac.compare_digest(seed_commitment(game_id, host_seed), commitment)
    except ValueError:
        return False


def host_contribution(host_seed: bytes, seat: int) -> bytes:
    """The contribution the host makes for a seat whose client sent none (a host bot)."""
    return hashlib.sha256(HOST_CONTRIBUTION_DOMAIN + b"\x00" + host_seed
                          + bytes((seat,))).digest()


def engine_seed(game_id: str, host_seed: bytes, contributions: Sequence[bytes],
                mixed: bool = True) -> int:
    """The engine's seed (docs/protocol.md §15): a 64-bit number from the host seed and
    every seat's contribution in seat order, or the fixed host seed itself."""
    _check(host_seed, SEED_BYTES, "the host seed")
    if not mixed:
        return int.from_bytes(host_seed, "big", signed=True)
    digest = hashlib.sha256()
    digest.update(DEAL_DOMAIN + b"\x00" + game_id.encode() + b"\x00" + host_seed)
    for seat, value in enumerate(contributions):
        _check(value, CONTRIBUTION_BYTES, f"the contribution of seat {seat}")
        digest.update(value)
    return int.from_bytes(digest.digest()[:8], "big")


def _check(value: bytes, size: int, what: str) -> None:
    if not isinstance(value, bytes) or len(value) != size:
        raise ValueError(f"{what} is {size} bytes")
