"""A machine-readable description of every message (docs/protocol.schema.json).

JSON Schema (draft 2020-12) of the msgpack messages of docs/protocol.md, for client authors in
any language and for the tests (tests/test_protocol_schema.py checks every message of whole
captured games against it, so the description cannot drift from the wire). The client
messages' fields come from the validators the host itself uses (protocol/messages.py
``CLIENT_MESSAGES``); decisions from the decision types (protocol/codec.py); the host's
messages, events and state maps are written here.

msgpack has two things JSON lacks. A validator sees a message after two conversions of what
its msgpack decoder gives, and the schema's standard keywords describe the converted message:

- a msgpack **bin** value (raw bytes: commitments, nonces, seeds) becomes text, its bytes in
  lowercase hex (two digits a byte): ``"type": "string"``, ``"contentEncoding": "base16"``
  and a ``pattern`` of exactly twice its length in hex digits;
- an integer the decoder gives as a 64-bit or big integer (JavaScript's BigInt: the engine
  seed is an unsigned 64-bit number, usually above 2^53) becomes a plain number for the
  validator: ``"type": "integer"`` and ``"minimum": 0`` are all the schema says of it (keep
  the exact value for the check of §15: only the validator's copy is rounded).

Two keywords of this schema's own say what the value was on the wire; validators that do not
know them ignore them (ajv's strict mode loads the schema once they are declared with
``addKeyword``): ``"x-msgpack": "bin"`` with ``"x-bytes": N`` (it came as msgpack bin of N
bytes, never as text: a validator that records which values were bin checks this exactly,
text that happens to look like hex included), ``"x-msgpack": "str"`` (it came as msgpack
str, never as bin: the host refuses bin in every text field a client sends) and
``"x-msgpack": "uint64"`` (an unsigned integer of up to 64 bits).

``python -m mundus_net.protocol.schema`` prints the schema as JSON.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from mundus_net.engine.deck import GROUPS, KINDS, POWERS
from mundus_net.protocol.beacon import BEACON_TAG, MAX_BEACON, MAX_TABLE_NAME
from mundus_net.protocol.codec import DECISION_KINDS
from mundus_net.protocol.commitment import NONCE_BYTES
from mundus_net.protocol.errors import ERROR_CODES
from mundus_net.protocol.fairdeal import CONTRIBUTION_BYTES
from mundus_net.protocol.messages import (
    CLIENT_MESSAGES,
    COMMITMENT_BYTES,
    MAX_CHAT,
    MAX_CLIENT_ID,
    MAX_INVITE,
    MAX_NAME,
    PROTOCOL_VERSION,
)
from mundus_net.protocol.security import KEY_PORT_VERSION, Z85_ALPHABET

__all__ = [
    "BEACON", "BOOL", "CARD", "CARDS", "CARD_DEF", "DECISION", "DEFS", "DETAILS", "EVENTS",
    "GAME_STATE", "HOST_KEY", "HOST_MESSAGES", "INT", "KEY_PORT_REPLY", "OFFER_KIND", "OPTIONS",
    "PER_SEAT_CARDS", "PER_SEAT_INT", "PER_SEAT_PILE", "PLAYING_STATE", "PRIVATE_DEALT",
    "PRIVATE_FIELDS", "PRIVATE_PENDING", "PRIVATE_STATE", "PUBLIC_CHANGES", "PUBLIC_PENDING",
    "PUBLIC_STATE", "RESULT", "SCHEMA_ID", "SEAT", "SEATS", "SIGN_KEY", "TABLE", "TABLE_STATE",
    "TEXT", "UINT64", "WAITING_STATE", "WAITING_TABLE", "Schema", "array", "binary",
    "client_schemas", "decision_schemas", "integer", "nullable", "obj", "ref", "schema",
    "schema_text", "seat_map"
]

Schema = dict[str, Any]
OFFER_KIND = "offer"  # the decision that goes through commit and reveal, never a decide
# Z85 as a regular-expression class that ECMA-262 (u flag) and Python read alike: only the
# class's own special characters escaped, the dash last.
_Z85_CLASS = "".join("\\" + c if c in "[]\\^" else c
                     for c in Z85_ALPHABET.replace("-", "")) + "-"
SCHEMA_ID = "https://mundus-net.invalid/protocol.schema.json"


def ref(name: str) -> Schema:
    return {"$ref": f"#/$defs/{name}"}


def array(items: Schema, most: int | None = None, least: int = 0) -> Schema:
    out: Schema = {"type": "array", "items": items}
    if least:
        out["minItems"] = least
    if most is not None:
        out["maxItems"] = most
    return out


def obj(required: dict[str, Schema], optional: dict[str, Schema] | None = None,
        description: str | None = None) -> Schema:
    """A map with exactly these keys (the optional ones may be missing)."""
    out: Schema = {"type": "object",
                   "properties": {**required, **(optional or {})},
                   "required": sorted(required), "additionalProperties": False}
    if description:
        out["description"] = description
    return out


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [{"type": "null"}, schema]}


def seat_map(values: Schema) -> Schema:
    """A map keyed by seat numbers written in decimal ("0", "2")."""
    return {"type": "object", "propertyNames": {"pattern": "^[0-5]$"},
            "additionalProperties": values}


def integer(least: int | None = None, most: int | None = None) -> Schema:
    out: Schema = {"type": "integer"}
    if least is not None:
        out["minimum"] = least
    if most is not None:
        out["maximum"] = most
    return out


TEXT = {"type": "string"}
BOOL = {"type": "boolean"}
INT = {"type": "integer"}
HOST_KEY = {"type": "string", "pattern": "^[" + _Z85_CLASS + "]{40}$",
            "description": "a CURVE public key: 40 characters of Z85"}
SIGN_KEY = {"type": "string", "pattern": "^[0-9a-f]{64}$",
            "description": "the Ed25519 key that signs the host's records, hex"}

# An unsigned 64-bit integer (msgpack can carry no larger): no maximum, which a double could
# not hold; a JavaScript validator is given it as a number (the module's docstring).
UINT64 = {"type": "integer", "minimum": 0, "x-msgpack": "uint64",
          "description": "an unsigned 64-bit integer: decode it exactly (a BigInt in "
                         "JavaScript), never as a double"}


def binary(size: int) -> Schema:
    """msgpack bin of ``size`` bytes; validated as its lowercase hex (the docstring)."""
    return {"type": "string", "contentEncoding": "base16",
            "pattern": f"^[0-9a-f]{{{2 * size}}}$", "x-msgpack": "bin", "x-bytes": size}


DEFS: dict[str, Schema] = {
    "card": integer(1, 10) | {"description": "1-9 a resource's value, 10 an Inca relic"},
    "cards": array(ref("card"), 30) | {"description": "a multiset of cards, sorted ascending"},
    "pile": array(ref("card"), 120) | {"description": "cards of a pile, sorted ascending"},
    "seat": integer(0, 5),
    "seats": array(ref("seat"), 6),
    "development": {"type": "string", "minLength": 1, "maxLength": 16,
                    "description": "a development card's id, e.g. D07 (welcome.deck)"},
    "developments": array(ref("development"), 60),
    "event_code": {"enum": ["KA", "IP", "ST", "FI", "PI"],
                   "description": "King's Aid, Indigenous People, Storm, Fire, Pirates"},
    "phase": {"enum": ["coronado", "split", "pick", "sergio", "pirates", "announce", "offer",
                       "tm_tie", "take", "gift", "first", "turn", "store", "over"]},
    "token": {"type": "string", "pattern": "^[0-9a-f]{32}$",
              "description": "a seat token: 32 lowercase hex digits"},
    "request_id": integer(0, 2**31 - 1),
    "fleet": array(ref("development"), 12),
    "seat_fleet": {"type": "array", "prefixItems": [ref("seat"), ref("fleet")],
                   "items": False, "minItems": 2,
                   "description": "[seat, [caravel ids]]"},
    "seat_pair": {"type": "array", "prefixItems": [ref("seat"), ref("seat")], "items": False,
                  "minItems": 2},
    "size_pair": {"type": "array", "prefixItems": [integer(0, 30), integer(0, 30)],
                  "items": False, "minItems": 2,
                  "description": "[least, most]: how many cards a seat may offer (R5.2)"},
    "card_pair": {"type": "array", "prefixItems": [ref("card"), ref("card")], "items": False,
                  "minItems": 2},
}


# -- decisions (protocol/codec.py) -----------------------------------------------------------

_DECISION_FIELDS: dict[str, Schema] = {
    "event": nullable(ref("event_code")),
    "fleet": ref("fleet"),
    "cards": ref("cards"),
    "card": ref("card"),
    "n": integer(2, 4),
    "seat": ref("seat"),
    "swap": nullable(ref("card")),
    "source": ref("card"),
    "value": integer(1, 9),
    "target": integer(-1, 5) | {"description": "queue position 1-5; 0 Almagro's draw; "
                                               "-1 Vicente's cash"},
    "size": integer(1, 5),
}
_NULLABLE_CARD = {("buy_market", "card")}


def decision_schemas() -> dict[str, Schema]:
    out = {}
    for kind, cls in sorted(DECISION_KINDS.items()):
        fields: dict[str, Schema] = {"kind": {"const": kind}}
        for name in cls._fields:
            schema = _DECISION_FIELDS[name]
            fields[name] = nullable(schema) if (kind, name) in _NULLABLE_CARD else schema
        out[kind] = obj(fields)
    return out


# -- client -> host (protocol/messages.py) ---------------------------------------------------

def client_text(least: int, most: int, description: str | None = None) -> Schema:
    """Text the host accepts (protocol/messages.py ``text``): msgpack str, never bin, of
    ``least`` to ``most`` characters (code points), none of them a control character below
    U+0020."""
    out: Schema = {"type": "string", "minLength": least, "maxLength": most,
                   "pattern": "^[^\\x00-\\x1f]*$", "x-msgpack": "str"}
    if description:
        out["description"] = description
    return out


_VALIDATOR_SCHEMAS: dict[str, Schema] = {
    "name": client_text(1, MAX_NAME, "the player's name; the table removes control, format "
                                     "and bidi characters and makes it unique (§3)"),
    "role": {"enum": ["player", "spectator"]},
    "token": ref("token") | {"x-msgpack": "str"},
    "bot": BOOL,
    "contribute": BOOL,
    "client": client_text(1, MAX_CLIENT_ID, "the client program's own id, the same in all "
                                            "its hellos: a reconnect keeps the seat without "
                                            "take_over (§3)"),
    "take_over": {"type": "boolean", "description": "take the seat over from the live "
                                                    "connection that holds it (§3)"},
    "value": binary(CONTRIBUTION_BYTES),
    "pending": integer(0, 2**31 - 1),
    "decision": ref("decide_decision"),
    "commitment": binary(COMMITMENT_BYTES),
    "offer": ref("cards"),
    "nonce": binary(NONCE_BYTES),
    "text": client_text(1, MAX_CHAT),
    "invite": client_text(1, MAX_INVITE, "the table's invite code, as the host prints it "
                                         "(case and dashes do not matter)"),
}


def client_schemas() -> dict[str, Schema]:
    out = {}
    for kind, fields in sorted(CLIENT_MESSAGES.items()):
        required: dict[str, Schema] = {"v": {"const": PROTOCOL_VERSION}, "t": {"const": kind}}
        optional: dict[str, Schema] = {"id": ref("request_id")}
        for name, (needed, _check) in fields.items():
            (required if needed else optional)[name] = _VALIDATOR_SCHEMAS[name]
        out[kind] = obj(required, optional)
    return out


# -- events ---------------------------------------------------------------------------------

def _event(kind: str, description: str, required: dict[str, Schema],
           optional: dict[str, Schema] | None = None) -> Schema:
    return obj({"kind": {"const": kind}, **required}, optional, description)


SEAT, SEATS, CARDS, CARD = ref("seat"), ref("seats"), ref("cards"), ref("card")
DECISION = ref("decision")
PER_SEAT_INT = array(INT, 6)
# Fields only a seat's own copy of an event carries (private events, §6).
_PRIVATE_CARDS = {"cards": CARDS}

EVENTS: dict[str, Schema] = {
    # the engine's (docs/engine.md)
    "setup": _event("setup", "the game is set up (no seed: it would tell every pile)",
                    {"players": integer(2, 6), "promo": BOOL, "tm": SEAT, "deck": TEXT,
                     "market": CARDS, "queue": ref("developments")}),
    "round": _event("round", "a round begins (R3)", {"round": integer(1), "tm": SEAT}),
    "event": _event("event", "the round's event (R3): from queue card 1, Coronado, or none",
                    {"event": nullable(ref("event_code")),
                     "source": {"enum": ["queue", "coronado", "none"]}},
                    {"seat": SEAT}),
    "unstore": _event("unstore", "stored cards return to hand (R4.1); cards: own copy only",
                      {"seat": SEAT, "count": integer(0)}, _PRIVATE_CARDS),
    "deal": _event("deal", "5 cards to each seat (R4.2); cards: own copy only",
                   {"counts": seat_map(integer(0, 5))}, _PRIVATE_CARDS),
    "reshuffle": _event("reshuffle", "the discard pile becomes the draw pile (R4.2)",
                        {"size": integer(0), "number": integer(1)}),
    "display": _event("display", "the caravel display (R4.3)", {"cards": CARDS}),
    "split": _event("split", "Ponce de León's fleets (R4.4)",
                    {"seat": SEAT, "fleets": array(ref("fleet"), 2)}),
    "pick": _event("pick", "a fleet picks from the display (R4.6)",
                   {"seat": SEAT, "fleet": ref("fleet"), "cards": CARDS}),
    "buy": _event("buy", "Sergio de Lagio buys a market card (P01)",
                  {"seat": SEAT, "card": nullable(CARD), "market": CARDS}),
    "pirates": _event("pirates", "the pirate discards, revealed together (R4.7)",
                      {"discards": seat_map(CARDS)}),
    "announce": _event("announce", "the TM announces N (R5.1)",
                       {"seat": SEAT, "n": integer(2, 4)}),
    "offer": _event("offer", "a seat's offer is fixed (R5.2); cards: own copy only",
                    {"seat": SEAT, "count": integer(0, 30)}, _PRIVATE_CARDS),
    "reveal": _event("reveal", "every offer, face up (R5.3, R5.4)",
                     {"offers": seat_map(CARDS), "scores": PER_SEAT_INT}),
    "trade_master": _event("trade_master", "the new TM (R5.4)",
                           {"seat": SEAT, "previous": SEAT}),
    "take": _event("take", "a take (R5.5): swap is the market card taken instead, or nil",
                   {"seat": SEAT, "source": SEAT, "card": CARD, "swap": nullable(CARD),
                    "market": CARDS, "orellana": integer(0)}),
    "trade_end": _event("trade_end", "the trade ends (R5.8): who took last, cards returned",
                        {"last": SEAT, "returned": seat_map(CARDS)}),
    "gift": _event("gift", "the TM gives a card (R5.9); card: the two seats' copies only",
                   {"seat": SEAT, "to": SEAT}, {"card": CARD}),
    "first": _event("first", "the TM chooses who plays first (R6.1)",
                    {"seat": SEAT, "first": SEAT}),
    "convert": _event("convert", "a merchant converts a card (R6.5)",
                      {"seat": SEAT, "merchant": ref("development"), "source": CARD,
                       "value": integer(1, 9)}),
    "set": _event("set", "an identical set (R6.2, R6.3): target a queue position, or draw "
                         "(Almagro) or cash (Vicente)",
                  {"seat": SEAT, "value": integer(1, 9), "cards": CARDS, "spent": CARDS,
                   "target": {"anyOf": [integer(1, 5), {"enum": ["draw", "cash"]}]}},
                  {"development": nullable(ref("development")),
                   "refill": nullable(ref("development")), "gain": integer(0)}),
    "series": _event("series", "a series (R6.2)",
                     {"seat": SEAT, "cards": CARDS, "spent": CARDS, "gain": integer(0)}),
    "relics": _event("relics", "a relic set (R6.2)",
                     {"seat": SEAT, "size": integer(1, 5), "gain": integer(0)}),
    "perfect": _event("perfect", "the perfect combination (R8.1)",
                      {"seat": SEAT, "spent": CARDS}),
    "income": _event("income", "income at the end of a turn (R6.7, R6.8)",
                     {"seat": SEAT, "gain": integer(0),
                      "parts": {"type": "object", "additionalProperties": INT}}),
    "revert": _event("revert", "converted cards count as they were again (R6.5)",
                     {"seat": SEAT, "cards": array(ref("card_pair"), 30)}),
    "store": _event("store", "a seat stores cards (R6.9); cards: own copy only",
                    {"seat": SEAT, "count": integer(0)}, _PRIVATE_CARDS),
    "discard": _event("discard", "a seat's hand is discarded, face up (R6.10)",
                      {"seat": SEAT, "cards": ref("pile")}),
    "round_end": _event("round_end", "a round ends (R8)",
                        {"round": integer(1), "doubloons": PER_SEAT_INT}),
    "game_over": _event("game_over", "the game is over (R8)",
                        {"winners": SEATS, "reason": {"enum": ["perfect", "doubloons", "queue",
                                                               "round_limit"]},
                         "doubloons": PER_SEAT_INT, "places": PER_SEAT_INT,
                         "rounds": integer(1)}),
    "decision": _event("decision", "a decision made (auto: the engine's own single choice); "
                                   "no decision while it is secret (an offer, a pirate "
                                   "discard, a storage choice, a gift): only its type",
                       {"seat": SEAT, "type": TEXT, "auto": BOOL}, {"decision": DECISION}),
    # the host's own (docs/protocol.md §9)
    "joined": _event("joined", "a seat is taken", {"seat": SEAT, "name": TEXT, "bot": BOOL}),
    "spectator": _event("spectator", "someone watches (told once per name)", {"name": TEXT}),
    "away": _event("away", "a seat's client went silent or said bye (§11)", {"seat": SEAT}),
    "back": _event("back", "a seat's client is back (§11)", {"seat": SEAT}),
    "chat": _event("chat", "a chat line", {"seat": SEAT, "name": TEXT, "text": TEXT}),
    "started": _event("started", "the game starts: the real deal follows", {}),
    "fair_deal": _event("fair_deal", "how the engine seed was made (§15)",
                        {"commitment": binary(32),
                         "contributions": seat_map(binary(32)), "mixed": BOOL}),
    "closing": _event("closing", "the game is over: the host goes in this many seconds, or "
                                 "as soon as nobody is connected (a late client can still ask "
                                 "for a snapshot until then)",
                      {"seconds": {"type": "number", "minimum": 0}}),
    "stand_in": _event("stand_in", "an absent player's seat is played by a host bot "
                                   "(--stand-in-after) until the player is back",
                       {"seat": SEAT, "strategy": TEXT}),
    "stand_in_end": _event("stand_in_end", "the player is back: the seat is theirs again",
                           {"seat": SEAT}),
    "contribution_late": _event("contribution_late", "a promised share of the seed did not "
                                "come in time: the host made it (§15)",
                                {"seat": SEAT, "seconds": {"type": "number", "minimum": 0}}),
    "seed_reveal": _event("seed_reveal", "the host seed and the engine seed, at the end (§15)",
                          {"host_seed": binary(32), "seed": UINT64}),
    "committed": _event("committed", "a seat committed its offer (§7)", {"seat": SEAT}),
    "commitments": _event("commitments", "every commitment of an offer step (§7)",
                          {"round": integer(1), "commitments": seat_map(binary(32))}),
    "reveals": _event("reveals", "every opened offer of a step (§7)",
                      {"round": integer(1),
                       "reveals": seat_map(obj({"offer": CARDS, "nonce": binary(32)}))}),
    "timeout": _event("timeout", "a seat did not decide in time: the host decided (§8)",
                      {"seat": SEAT, "phase": TEXT}),
    "violation": _event("violation", "a seat broke the commit-reveal rules (§7)",
                        {"seat": SEAT, "reason": TEXT}),
    "stopping": _event("stopping", "the host stops; the table may come back (§9)",
                       {"reason": TEXT}),
}


# -- host -> client ---------------------------------------------------------------------------

DETAILS: dict[str, Schema] = {
    "coronado": obj({}), "split": obj({}), "sergio": obj({}), "announce": obj({}),
    "take": obj({}), "first": obj({}),
    "pick": obj({"fleet": ref("fleet"), "count": integer(0, 12)}),
    "pirates": obj({"counts": seat_map(integer(1, 12))}),
    "offer": obj({"n": integer(2, 4), "sizes": seat_map(ref("size_pair"))}),
    "tm_tie": obj({"candidates": SEATS}),
    "gift": obj({"to": SEAT}),
    "turn": obj({"sets": integer(0), "series": BOOL, "relics": BOOL, "perfect": BOOL}),
    "store": obj({"capacity": seat_map(integer(0))}),
    "commit": obj({"n": integer(2, 4), "least": integer(0, 4), "most": integer(0, 4),
                   "round": integer(1)}),
    "reveal": obj({"n": integer(2, 4), "least": integer(0, 4), "most": integer(0, 4),
                   "round": integer(1)}),
}


def _pending_of(kinds: list[str], extra: dict[str, Schema]) -> Schema:
    return {"oneOf": [obj({"kind": {"const": k}, "detail": DETAILS[k], **extra})
                      for k in kinds]}


_ENGINE_PHASES = [k for k in DETAILS if k not in ("commit", "reveal")]
PUBLIC_PENDING = nullable(_pending_of(_ENGINE_PHASES, {"seats": SEATS}))
PRIVATE_PENDING = nullable(_pending_of(
    [k for k in DETAILS if k != "offer"],
    {"id": integer(1, 2**31 - 1), "legal": array(DECISION),
     "deadline_ms": nullable(integer(0))}))

OPTIONS = obj({"promo": BOOL, "round_limit": nullable(integer(1)),
               "decision_seconds": nullable({"type": "number", "exclusiveMinimum": 0}),
               "first_tm": nullable(SEAT), "rules": integer(1, 2)})
TABLE = obj({"name": TEXT, "options": OPTIONS, "names": array(TEXT, 6),
             "connected": array(BOOL, 6), "bots": array(BOOL, 6), "committed": SEATS,
             "started": BOOL})
RESULT = nullable(obj({"winners": SEATS, "reason": TEXT, "doubloons": PER_SEAT_INT,
                       "places": PER_SEAT_INT, "rounds": integer(1)}))
PER_SEAT_CARDS = array(CARDS, 6)
PER_SEAT_PILE = array(ref("pile"), 6)

# The game's keys of the public state: in every snapshot and update once the game started.
GAME_STATE: dict[str, Schema] = {
    "round": integer(0), "event": nullable(ref("event_code")), "phase": ref("phase"),
    "trade_master": SEAT, "announced": integer(0, 4), "market": CARDS, "display": CARDS,
    "queue": ref("developments"), "draw_size": integer(0), "devpile_size": integer(0),
    "discard": ref("pile"), "doubloons": PER_SEAT_INT,
    "developments": array(ref("developments"), 6), "hand_sizes": PER_SEAT_INT,
    "stored_sizes": PER_SEAT_INT, "fleets": array(ref("seat_fleet"), 16), "offered": SEATS,
    "faceup": PER_SEAT_PILE, "takes": array(ref("seat_pair")),
    "converted": array(ref("card_pair"), 30), "merchants_used": ref("developments"),
    "round_limit": nullable(integer(1)), "pick_queue": array(ref("seat_fleet"), 16),
    "pirates_due": array(integer(0), 6), "pirates_done": SEATS,
    "store_due": array(integer(0), 6), "store_done": SEATS, "turn_order": SEATS,
    "turn_index": integer(0, 6), "perfect_shown": SEATS, "queue_short": BOOL,
    "known_hands": PER_SEAT_PILE, "pending": PUBLIC_PENDING, "result": RESULT,
}
# Before the start only these are there (docs/protocol.md, "Before the game starts").
TABLE_STATE: dict[str, Schema] = {"players": integer(2, 6), "promo": BOOL, "table": TABLE}

WAITING_TABLE = obj({**TABLE["properties"], "committed": array(SEAT, 0),
                     "started": {"const": False}})
# Before the start exactly these keys, with nothing pending and no result (§6).
WAITING_STATE = obj({**TABLE_STATE, "round_limit": GAME_STATE["round_limit"],
                     "pending": {"type": "null"}, "result": {"type": "null"},
                     "table": WAITING_TABLE})
PLAYING_STATE = obj({**TABLE_STATE, **GAME_STATE,
                     "table": obj({**TABLE["properties"], "started": {"const": True}})})
# A table that has not started, as an `if` tells it (types stated: ajv's strict mode, §2).
_NOT_STARTED = {"type": "object", "properties": {"started": {"const": False}}}
# An update's changed keys; one that says the table has not started (only an update before
# the start carries table.started false) changes the table's keys alone.
PUBLIC_CHANGES = {"type": "object",
                  "properties": {**TABLE_STATE, **GAME_STATE}, "additionalProperties": False,
                  "if": {"type": "object", "required": ["table"],
                         "properties": {"table": _NOT_STARTED}},
                  "then": {"type": "object",
                           "propertyNames": {"enum": sorted(WAITING_STATE["properties"])},
                           "properties": WAITING_STATE["properties"]}}
# Told apart by table.started (an if, not a oneOf: the field is not at the top level).
PUBLIC_STATE = {"description": "the public state (§6): before the start (table.started "
                               "false) only the table's keys, then every key of the game",
                "if": {"type": "object", "properties": {"table": _NOT_STARTED}},
                "then": WAITING_STATE, "else": PLAYING_STATE}
PRIVATE_FIELDS: dict[str, Schema] = {
    "seat": SEAT, "my_offer": nullable(CARDS), "events": array(ref("event")),
    "pending": PRIVATE_PENDING,
}
# Nothing is dealt before the start: hand and stored come with it. Before, the seat alone,
# nothing pending and no event (§6); told apart by hand (an if: no field names the shape).
PRIVATE_DEALT: dict[str, Schema] = {"hand": ref("pile"), "stored": CARDS}
PRIVATE_STATE = {
    "description": "a seat's private state (§6): before the start only seat, my_offer "
                   "(nil), pending (nil) and no events; from the start hand and stored too",
    "if": {"type": "object", "required": ["hand"], "properties": {"hand": True}},
    "then": obj({**PRIVATE_FIELDS, **PRIVATE_DEALT}),
    "else": obj({"seat": SEAT, "my_offer": {"type": "null"}, "pending": {"type": "null"},
                 "events": array(ref("event"), 0)})}
CARD_DEF = obj({
    "id": ref("development"), "name": TEXT,
    "kind": {"enum": list(KINDS)},
    "players": integer(2, 6) | {"description": "the fewest players it is in play with (R2.3)"},
    "icon": nullable(ref("event_code")) | {"description": "its event icon (R3.2)"},
    "income": integer(0) | {"description": "doubloons it pays each round (R6.7)"},
    "caravel": integer(0) | {"description": "a caravel's value (R4.5), 0 for other kinds"},
    "merchant_class": integer(0, 3) | {"description": "a merchant's class: 1 common (1-3), 2 "
                                                      "uncommon (4-6), 3 rare (7-9); 0 for "
                                                      "other kinds (R6.5)"},
    "capacity": integer(0) | {"description": "a warehouse's capacity (R6.9), 0 otherwise"},
    "power": {"enum": sorted({p for powers in POWERS.values() for p in powers if p != "-"}
                             | {""}),
              "description": "a character's or building's power (docs/rules.md §9), '' for "
                             "none"},
    "group": {"enum": list(GROUPS), "description": "promo: in play only with promo cards"}})


def _host(kind: str, fields: dict[str, Schema], optional: dict[str, Schema] | None = None,
          description: str | None = None) -> Schema:
    return obj({"v": {"const": PROTOCOL_VERSION}, "t": {"const": kind}, **fields},
               optional, description)


HOST_MESSAGES: dict[str, Schema] = {
    "welcome": _host("welcome", {
        "seat": nullable(SEAT), "token": nullable(ref("token")), "game": TEXT, "name": TEXT,
        "players": integer(2, 6), "names": array(TEXT, 6), "options": OPTIONS,
        "deck": array(CARD_DEF, 60), "pub_port": integer(0, 65535),
        "heartbeat_ms": integer(1), "host_key": nullable(HOST_KEY),
        "sign_key": nullable(SIGN_KEY),
        "seed_commitment": binary(32), "contribute": BOOL},
        {"id": ref("request_id"), "invite": _VALIDATOR_SCHEMAS["invite"]},
        "the reply to hello (§4)"),
    "snapshot": _host("snapshot", {
        "seq": integer(0), "state": PUBLIC_STATE, "events": array(ref("event")),
        "private": nullable(PRIVATE_STATE)},
        {"id": ref("request_id")}, "the whole state (§4, §5); private.events: every private "
                                   "event of the seat so far"),
    "private": _host("private", {"seq": integer(0), "private": PRIVATE_STATE}, None,
                     "what one seat alone may see (§4, §6); private.events: only the seat's "
                     "own copies of the events of update seq"),
    "ok": _host("ok", {}, {"id": ref("request_id")}),
    "error": _host("error", {"code": {"enum": sorted(ERROR_CODES)}, "message": TEXT,
                             "rule": nullable(TEXT)},
                   {"id": ref("request_id")},
                   "a refusal (§10): id echoed when the refused request had one; flood "
                   "answers no one request and has none"),
    "taken_over": _host("taken_over", {"seat": SEAT, "message": TEXT}, None,
                        "another client took this connection's seat over (§3, §4)"),
    "pong": _host("pong", {}, {"id": ref("request_id")}),
    "ping": _host("ping", {}, None, "the host's heartbeat to one client (§11)"),
    "update": _host("update", {"seq": integer(1), "events": array(ref("event")),
                               "changed": PUBLIC_CHANGES}, None,
                    "a public update on the PUB (§5)"),
    "heartbeat": _host("heartbeat", {"seq": integer(0)}, None, "on the PUB (§11)"),
}


# The key port's one answer (§16): its own small version, not the protocol's.
KEY_PORT_REPLY = obj(
    {"v": {"const": KEY_PORT_VERSION}, "t": {"const": "host_key"}, "key": nullable(HOST_KEY),
     "sign_key": nullable(SIGN_KEY), "insecure": BOOL},
    description="the key port's answer to any one-frame request (PORT+2, plain, §16): key "
                "is nil exactly when insecure is true")
KEY_PORT_REPLY |= {"if": {"type": "object", "properties": {"insecure": {"const": False}}},
                   "then": {"type": "object", "properties": {"key": HOST_KEY}},
                   "else": {"type": "object", "properties": {"key": {"type": "null"}}}}

# The LAN beacon (§14): JSON in a UDP datagram, not msgpack; what a host of this version sends.
BEACON = obj(
    {"app": {"const": BEACON_TAG}, "v": {"const": PROTOCOL_VERSION},
     "name": {"type": "string", "maxLength": MAX_TABLE_NAME}, "game": TEXT,
     "port": integer(1, 65535), "pub_port": integer(1, 65535), "players": integer(2, 6),
     "free": integer(0, 6), "started": BOOL, "address": TEXT, "key": nullable(HOST_KEY)},
    description="the LAN beacon (§14): one JSON object in a UDP datagram of at most "
                f"{MAX_BEACON} bytes, as a host of this version sends it. A listener is more "
                "lenient: it ignores keys it does not know, lists a table of another v "
                "without joining it, and takes a beacon without key (older hosts)")


def schema() -> Schema:
    """The whole description: ``$defs`` holds every message, decision and event."""
    defs = dict(DEFS)
    decisions = decision_schemas()
    defs.update({f"decision_{k}": v for k, v in decisions.items()})
    defs["decision"] = {"oneOf": [ref(f"decision_{k}") for k in decisions]}
    # What a decide may carry: every decision but an offer (commit and reveal, §7).
    defs["decide_decision"] = {"oneOf": [ref(f"decision_{k}") for k in decisions
                                         if k != OFFER_KIND]}
    defs.update({f"event_{k}": v for k, v in EVENTS.items()})
    defs["event"] = {"oneOf": [ref(f"event_{k}") for k in EVENTS]}
    clients = client_schemas()
    defs.update({f"client_{k}": v for k, v in clients.items()})
    defs.update({f"host_{k}": v for k, v in HOST_MESSAGES.items()})
    defs["client_message"] = {"oneOf": [ref(f"client_{k}") for k in clients]}
    defs["host_message"] = {"oneOf": [ref(f"host_{k}") for k in HOST_MESSAGES]}
    defs["key_port_reply"] = KEY_PORT_REPLY
    defs["beacon"] = BEACON
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": f"mundus-net protocol, version {PROTOCOL_VERSION}",
        "description": __doc__.split("\n\n", 1)[1].split("``python -m")[0].strip(),
        # anyOf, not oneOf: a ping without id is both a client's and the host's; the
        # direction a message travels tells which ($defs/client_message, host_message). The
        # key port's answer is a message too; the beacon (JSON over UDP) is not.
        "anyOf": [ref("client_message"), ref("host_message"), ref("key_port_reply")],
        "$defs": defs,
    }


def schema_text() -> str:
    return json.dumps(schema(), indent=1, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # pragma: no cover - a tool
    sys.stdout.write(schema_text())
