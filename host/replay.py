"""Taking a game log's inputs again (host/gamelog.py restores a table with this).

Each logged input goes back through the handlers that took it the first time, through the
table's public replay interface only (:meth:`Table.take_logged_seat`,
:meth:`Table.set_seat_flags`, :meth:`Table.hand_to_stand_in`, :meth:`Table.give_back`,
:meth:`Table.time_out`, :meth:`Table.play_host_bot`, :meth:`Table.answer_as`): this module
checks that the row fits the table before anything changes, the table does the rest.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from mundus_net.bots.base import Bot
from mundus_net.engine.errors import MundusError
from mundus_net.host.offerstep import REVEAL
from mundus_net.host.table import Table

__all__ = ["LOGGED_INPUTS", "ReplayRefused", "replay_input"]

Message = dict[str, Any]

# The rows of the game log that are inputs of the table: what replay_input takes again.
LOGGED_INPUTS = frozenset({"seat", "flags", "contribute", "begin", "decide", "commit", "reveal",
                           "stand_in", "timeout", "bot"})
# Errors a replayed reveal may get and still be taken: a broken reveal changes the game (§7).
_REVEAL_TAKEN = ("commit_mismatch", "illegal")


class ReplayRefused(MundusError):
    """A logged input that the table does not take again (:func:`replay_input`): the
    message says why (for an answer, ``code: message`` of the error reply). Raised before
    the table changed anything."""


def replay_input(table: Table, kind: str, data: Mapping[str, Any], *,
                 bot: Bot | None = None) -> None:
    """Take one logged input again, through the handlers that took it the first time.

    ``kind`` is one of :data:`LOGGED_INPUTS` and ``data`` the row as the table wrote it
    to its journal: ``seat`` (a free seat is taken with the logged token, and the game
    begins if it can), ``flags`` (what a ``hello`` with a token changed of its seat),
    ``contribute``, ``decide``, ``commit`` and ``reveal`` (the seat's message again,
    with its token), ``begin``, ``timeout`` (the default is played for the seat asked
    that pending id and phase) and ``bot`` (the host bot of the row's seat, which must be
    the one to play now, makes its move; ``bot``, if given, decides in its place for this
    one turn, and the row's ``nonce`` is its offer's nonce). The table writes each row to
    its :attr:`Table.journal` again as it did the first time, with the rows the input leads
    to (``begin``, ``void``), so the journal can compare them with the log. Nothing is
    flushed and no clock step is taken.

    Returns None. Raises :class:`ReplayRefused` when the table does not take the input:
    no such seat, a ``seat`` that is not free, ``flags`` of a free seat, a ``timeout`` of
    a question the seat is not asked, a ``bot`` row when another seat's host bot is the
    one to play, or a message the table answers with an error (a reveal refused with
    ``commit_mismatch`` or ``illegal`` is taken: it played the default offer, as it did
    the first time). ReplayRefused is raised before anything changed, and none of the
    input's rows stays in the journal. ``ValueError`` for a kind that is not an input or a
    ``begin`` while seats are free, and ``KeyError``, ``TypeError`` or ``ValueError`` for
    a row without its fields, also before anything changed. An exception from the journal
    (a row that is not the logged one) or from the engine leaves the table changed part
    of the way: it no longer follows its log and is to be thrown away.

    An answer that the engine refuses although it listed it (a bug, logged as ``void``
    the first time) is taken as it was then."""
    if kind not in LOGGED_INPUTS:
        raise ValueError(f"{kind!r} is not a logged input (one of "
                         f"{', '.join(sorted(LOGGED_INPUTS))})")
    if kind == "begin":
        table.begin()
        return
    index = int(data["seat"])
    if not 0 <= index < table.players:
        raise ReplayRefused(f"there is no seat {index}")
    seat = table.seats[index]
    if kind == "seat":
        if seat.taken:
            raise ReplayRefused(f"seat {index} is not free")
        table.take_logged_seat(index, str(data["name"]), str(data["token"]), bool(data["bot"]),
                               bool(data["contribute"]))
    elif kind == "flags":
        if not seat.taken:
            raise ReplayRefused(f"seat {index} is free: no hello changed it")
        table.set_seat_flags(index, bool(data["bot"]), bool(data["contribute"]))
    elif kind == "stand_in":
        if bool(data["on"]) == seat.standing_in or (data["on"] and seat.host_bot):
            raise ReplayRefused(f"seat {index} cannot be "
                                f"{'handed to' if data['on'] else 'given back by'} a stand-in")
        if data["on"]:
            table.hand_to_stand_in(index)
        else:
            table.give_back(index)
    elif kind == "timeout":
        pending = table.pending_of(index)
        if pending is None or pending.id != data["pending"] or pending.kind != data["phase"]:
            raise ReplayRefused(f"seat {index} is not asked {data['phase']} {data['pending']}")
        table.time_out(index)
    elif kind == "bot":
        due = table.bot_to_play()
        if due != index:
            raise ReplayRefused(f"the host bot to play is seat {due}, not {index}")
        nonce = data.get("nonce")
        table.play_host_bot(index, bot, None if nonce is None else bytes.fromhex(nonce))
    else:
        _replay_message(table, kind, index, data)


def _replay_message(table: Table, kind: str, index: int, data: Mapping[str, Any]) -> None:
    """A seat's logged message (decide, commit, reveal, contribute) answered again."""
    message: Message = {"t": kind, "token": table.seats[index].token,
                        "pending": int(data.get("pending", 0))}
    if kind == "contribute":
        del message["pending"]
        message["value"] = bytes.fromhex(data["value"])
    elif kind == "decide":
        message["decision"] = data["decision"]
    elif kind == "commit":
        message["commitment"] = bytes.fromhex(data["commitment"])
    else:
        message["offer"] = list(data["offer"])
        message["nonce"] = bytes.fromhex(data["nonce"])
    reply, later = table.answer_as(message)
    if reply["t"] == "error" and not (kind == REVEAL and reply["code"] in _REVEAL_TAKEN):
        raise ReplayRefused(f"{reply['code']}: {reply['message']}")
    if later is not None:
        # RuntimeError: the engine refused a listed decision; its void row follows.
        with contextlib.suppress(RuntimeError):
            later()
