"""Signed game records and the fair-deal fields (docs/record.md, "Signed records").

A host signs the whole record with its Ed25519 key: the signature covers the canonical JSON
of the record body (every field but ``signature``). The host writes these fields and
signatures; ``mundus verify`` (:mod:`mundus_net.tools.verify`) checks them. Both use this one
module, which knows the engine (for the deal digest) and nothing of sockets or terminals.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from mundus_net.engine.game import Game
from mundus_net.protocol import fairdeal

__all__ = [
    "SIGNATURE_ALG", "SIGNATURE_DOMAIN", "canonical", "deal_digest", "fairness_fields", "layout",
    "sign_record", "signed_message"
]

SIGNATURE_DOMAIN = b"mundus-net/record-signature/1\x00"
SIGNATURE_ALG = "ed25519"


def canonical(value: Any) -> bytes:
    """Canonical JSON: keys sorted, no spaces, UTF-8 (not escaped), no NaN."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False).encode("utf-8")


def layout(document: dict[str, Any]) -> str:
    """The text of a record file: the layout ``GameRecord.to_json`` writes, and a newline."""
    return json.dumps(document, indent=1, sort_keys=True) + "\n"


def signed_message(body: dict[str, Any]) -> bytes:
    """What the signature signs: a domain tag and the canonical JSON of the body."""
    return SIGNATURE_DOMAIN + canonical(body)


def sign_record(record_json: str, sign: Callable[[bytes], bytes], public_key: bytes) -> str:
    """The signed record file for the record ``record_json`` (``GameRecord.to_json()``):
    ``sign`` is the host's Ed25519 signing function, ``public_key`` its 32 raw bytes."""
    body = json.loads(record_json)
    body.pop("signature", None)
    signature = {"alg": SIGNATURE_ALG, "key": public_key.hex(),
                 "value": sign(signed_message(body)).hex()}
    return layout({**body, "signature": signature})


def deal_digest(game: Game) -> str:
    """SHA-256 (hex) of a new game's whole set-up: every pile in order, the hands, the queue,
    the first Trade Master. Two games with the same digest were dealt the same."""
    state = {"draw": list(game.draw), "devpile": list(game.devpile),
             "market": list(game.market), "queue": list(game.queue),
             "display": list(game.display), "discard": list(game.discard),
             "hands": [list(h) for h in game.hands], "tm": game.tm, "round": game.round}
    return hashlib.sha256(canonical(state)).hexdigest()


def fairness_fields(*, mixed: bool, commitment_: bytes, host_seed: bytes,
                    contributions: list[tuple[bytes, str]], digest: str) -> dict[str, Any]:
    """The record's ``fairness`` field (docs/record.md)."""
    return {"scheme": fairdeal.SCHEME, "mixed": mixed, "commitment": commitment_.hex(),
            "host_seed": host_seed.hex(),
            "contributions": [{"seat": s, "value": v.hex(), "by": by}
                              for s, (v, by) in enumerate(contributions)],
            "deal_digest": digest}
