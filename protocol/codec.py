"""Turning engine objects into wire values and back (docs/protocol.md, "Values").

Wire values are what msgpack carries: nil, bool, int, str, bin, arrays and maps with string
keys. Tuples become arrays; maps keyed by seat get the seat number as a decimal string; a
decision is a map ``{"kind": <snake_case kind>, <field>: <value>, ...}``.
"""

from __future__ import annotations

import re
from typing import Any, get_type_hints

from mundus_net.engine import decisions as d
from mundus_net.engine.cards import RELIC
from mundus_net.engine.decisions import Decision
from mundus_net.protocol.errors import ProtocolError

__all__ = [
    "DECISION_KINDS", "KIND_OF", "MAX_CARDS", "WireValue", "decision_from_wire",
    "decision_to_wire", "to_wire"
]

WireValue = Any  # nil | bool | int | str | bytes | list[WireValue] | dict[str, WireValue]


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


DECISION_KINDS: dict[str, Any] = {_snake(cls.__name__): cls for cls in d.DECISION_TYPES}
KIND_OF: dict[Any, str] = {cls: kind for kind, cls in DECISION_KINDS.items()}
_FIELD_TYPES: dict[type, dict[str, Any]] = {
    cls: get_type_hints(cls) for cls in d.DECISION_TYPES
}
_FIELDS_OF: dict[Any, tuple[str, ...]] = {
    cls: tuple(_FIELD_TYPES[cls]) for cls in d.DECISION_TYPES  # NamedTuple fields, in order
}
MAX_CARDS = 30  # no decision names more cards than a hand can hold


_SCALARS = frozenset({int, str, bool, float, bytes, type(None)})


def to_wire(value: Any) -> WireValue:
    """Engine value -> wire value."""
    # Exact-type fast paths first: the host turns the whole public state into wire values
    # for every update, and most of it is flat tuples of ints and strings.
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is tuple or kind is list:
        return [v if type(v) in _SCALARS else to_wire(v) for v in value]
    if kind is dict:
        return {str(k): v if type(v) in _SCALARS else to_wire(v) for k, v in value.items()}
    if kind in KIND_OF:
        return decision_to_wire(value)
    if isinstance(value, (list, tuple)):
        return [to_wire(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_wire(v) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted(to_wire(v) for v in value)
    return value


def decision_to_wire(decision: Decision) -> dict[str, WireValue]:
    out: dict[str, WireValue] = {"kind": KIND_OF[type(decision)]}
    for name, value in zip(_FIELDS_OF[type(decision)], decision, strict=True):
        out[name] = value if type(value) in _SCALARS else to_wire(value)
    return out


def _bad(field: str, message: str) -> ProtocolError:
    return ProtocolError("bad_field", f"decision field {field!r}: {message}")


def _check_int(field: str, value: Any, lo: int, hi: int) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise _bad(field, f"expected a whole number {lo}-{hi}")
    return value


def _check_cards(field: str, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) > MAX_CARDS:
        raise _bad(field, f"expected an array of at most {MAX_CARDS} cards")
    for card in value:
        _check_int(field, card, 1, RELIC)
    return tuple(sorted(value))


def decision_from_wire(value: Any) -> Decision:
    """Wire map -> Decision; raises ProtocolError("bad_field") naming the problem. Types and
    ranges are checked here; whether the decision is legal now is the engine's business."""
    if not isinstance(value, dict):
        raise ProtocolError("bad_field", "a decision is a map with a 'kind'")
    kind = value.get("kind")
    cls = DECISION_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ProtocolError("bad_field", f"unknown decision kind {kind!r}; known: "
                                         f"{', '.join(sorted(DECISION_KINDS))}")
    hints = _FIELD_TYPES[cls]
    extra = set(value) - set(hints) - {"kind"}
    if extra:
        raise _bad(sorted(extra)[0], f"not a field of {kind}")
    args: list[Any] = []
    for name in cls._fields:
        if name not in value:
            raise _bad(name, f"missing (a {kind} has {', '.join(cls._fields) or 'no fields'})")
        raw = value[name]
        hint = str(hints[name])
        if name in ("cards",):
            args.append(_check_cards(name, raw))
        elif name == "fleet":
            if not isinstance(raw, list) or len(raw) > 12 or not all(
                    isinstance(c, str) and 0 < len(c) <= 16 for c in raw):
                raise _bad(name, "expected an array of development ids")
            args.append(tuple(raw))
        elif name == "event":
            if raw is not None and raw not in ("KA", "IP", "ST", "FI", "PI"):
                raise _bad(name, "expected nil or one of KA, IP, ST, FI, PI")
            args.append(raw)
        elif "None" in hint and raw is None:
            args.append(None)
        elif name in ("seat",):
            args.append(_check_int(name, raw, 0, 5))
        elif name == "target":
            args.append(_check_int(name, raw, -1, 5))
        elif name == "n":
            args.append(_check_int(name, raw, 0, 9))
        else:  # card values, sizes
            args.append(_check_int(name, raw, 1, RELIC))
    return cls(*args)  # type: ignore[no-any-return]
