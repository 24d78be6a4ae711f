"""Invite codes: a table that listens beyond loopback gives seats (and a view) only to
those who know its code (docs/security.md, "Seats only for the invited").

A code is 8 characters from an alphabet without look-alikes (no 0/O, 1/I/L), printed in two
groups, ``K7QF-M2XD``: 40 bits, typed by a person from a screen or a chat message. A client
may send it in any case and with or without the dash; the host compares in constant time.
"""

from __future__ import annotations

import hmac
import secrets

__all__ = ["ALPHABET", "LENGTH", "matches", "new_code", "normal"]

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
LENGTH = 8


def new_code() -> str:
    """A fresh code, ``XXXX-XXXX``."""
    raw = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
    return f"{raw[:4]}-{raw[4:]}"


def normal(code: str) -> str:
    """The code as compared: upper case, without dashes and spaces."""
    return "".join(ch for ch in code.upper() if ch not in "- ")


def matches(expected: str, given: str) -> bool:
    return hmac.compare_digest(normal(expected).encode(), normal(given).encode())
