"""The host's wire values as the client reads them (docs/protocol.md §2, §4, §6): decks, seat
maps, results and legal decisions back to engine objects, and wire lists back to the tuples
the engine's views give. Pure functions: no sockets, no clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mundus_net.engine.decisions import Decision
from mundus_net.engine.deck import CardDef, Deck, default_deck
from mundus_net.engine.game import Result
from mundus_net.protocol.codec import DECISION_KINDS, decision_from_wire

__all__ = ["deck_from_wire", "freeze", "legal_decision", "result_from_wire", "seat_map"]


def freeze(value: Any) -> Any:
    """Wire lists back to tuples, all the way down, and map keys that are whole numbers
    (seats: the wire writes every key as text) back to ints: the shapes the engine's views
    give, which bots and the terminal client's advisor may hash and index by seat."""
    if isinstance(value, list):
        return tuple(freeze(v) for v in value)
    if isinstance(value, dict):
        return {int(k) if isinstance(k, str) and k.isdigit() else k: freeze(v)
                for k, v in value.items()}
    return value


def deck_from_wire(cards: Sequence[dict[str, Any]]) -> Deck:
    """The welcome's deck (§4); the default deck object itself when the cards are the
    default's. Raises KeyError, TypeError or ValueError for a card that is not one."""
    defs = []
    for c in cards:
        defs.append(CardDef(
            id=str(c["id"]), kind=str(c["kind"]), name=str(c["name"]), players=int(c["players"]),
            icon=c.get("icon"), income=int(c["income"]), group=str(c.get("group", "base")),
            caravel=int(c.get("caravel", 0)), merchant_class=int(c.get("merchant_class", 0)),
            capacity=int(c.get("capacity", 0)), power=str(c.get("power") or "")))
    default = default_deck()

    # The wire form does not always carry the card group; compare without it.
    def key(d: CardDef) -> tuple[Any, ...]:
        return (d.id, d.kind, d.name, d.players, d.icon, d.income, d.caravel,
                d.merchant_class, d.capacity, d.power)

    if [key(d) for d in defs] == [key(d) for d in default.cards]:
        return default
    return Deck(name="host", cards=tuple(defs))


def seat_map(value: Any) -> dict[int, Any]:
    """A wire seat map (keys are seat numbers as text, §2) with int keys; anything that is
    not a map gives an empty one, and keys that are not numbers are left out."""
    if not isinstance(value, dict):
        return {}
    out: dict[int, Any] = {}
    for k, v in value.items():
        try:
            out[int(k)] = v
        except (TypeError, ValueError):
            continue
    return out


def result_from_wire(raw: Any) -> Result | None:
    """The public state's ``result`` (§6), or None while the game goes on."""
    if not isinstance(raw, dict):
        return None
    return Result(tuple(raw["winners"]), str(raw["reason"]), tuple(raw["doubloons"]),
                  tuple(raw["places"]), int(raw["rounds"]))


_FIELDS: dict[str, tuple[Any, tuple[str, ...]]] = {
    kind: (cls, cls._fields) for kind, cls in DECISION_KINDS.items()}


def legal_decision(raw: Any) -> Decision:
    """A legal decision from the host. The fast path trusts the host's shapes (the engine's
    own values, lists sorted): decoding the legal lists was most of a network bot's time.
    Anything odd goes through the validating decoder (which raises ProtocolError)."""
    try:
        cls, fields = _FIELDS[raw["kind"]]
        if len(raw) == len(fields) + 1:
            args = [raw[f] for f in fields]
            for i, value in enumerate(args):
                if type(value) is list:
                    args[i] = tuple(value)
                elif value is not None and type(value) is not int and type(value) is not str:
                    raise TypeError(fields[i])
            return cls(*args)  # type: ignore[no-any-return]
    except (KeyError, TypeError):
        pass
    return decision_from_wire(raw)
