"""What a table tells (docs/protocol.md §4-§6, §9): its public and private state on the wire,
the public updates it publishes and the private messages it sends.

:class:`TableOutput` keeps what the table has told: the published history (what a snapshot
carries), the batch of events not published yet, the update number ``seq``, each seat's
private events and the public state's memo. It reads its table through :class:`TableSource`
(host/table.py's ``Table`` is one) and never changes it; the table tells it what happened
(:meth:`TableOutput.emit`, :meth:`~TableOutput.touch`, :meth:`~TableOutput.dealt`...), and
``Table.drain`` takes what is to be sent, once the game log holds what it tells.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from mundus_net.engine.game import OFFER, Game
from mundus_net.engine.view import PlayerView
from mundus_net.host.offerstep import OfferStep
from mundus_net.protocol.codec import to_wire

__all__ = ["MAX_CHAT_KEPT", "Asked", "SeatShown", "TableOutput", "TableSource", "card_wire",
           "changed_keys", "event_wire"]

Message = dict[str, Any]
Clock = Callable[[], float]

# The history (and so every snapshot) keeps the last MAX_CHAT_KEPT chat lines, so that talk can
# never grow the host or a snapshot without bound (docs/protocol.md §9).
MAX_CHAT_KEPT = 200


class SeatShown(Protocol):
    """What the outputs read of a seat (host/table.py's ``Seat``)."""

    @property
    def index(self) -> int: ...
    @property
    def conn(self) -> bytes | None: ...
    @property
    def connected(self) -> bool: ...
    @property
    def program(self) -> bool: ...
    @property
    def host_bot(self) -> object | None: ...


class Asked(Protocol):
    """What the outputs read of a seat's pending decision (host/table.py's ``SeatPending``)."""

    @property
    def id(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def detail(self) -> Any: ...
    @property
    def legal(self) -> list[Any]: ...
    @property
    def deadline(self) -> float | None: ...


class TableSource(Protocol):
    """What the outputs read of their table, live (host/table.py's ``Table``)."""

    @property
    def started(self) -> bool: ...
    @property
    def name(self) -> str: ...
    @property
    def names(self) -> list[str]: ...
    @property
    def decision_seconds(self) -> float | None: ...
    @property
    def seats(self) -> Sequence[SeatShown]: ...
    @property
    def offer_step(self) -> OfferStep | None: ...
    def pending_of(self, seat: int) -> Asked | None: ...


class TableOutput:
    """The wire side of one table: its states, updates and private messages."""

    def __init__(self, table: TableSource, game: Game, clock: Clock,
                 accepted: Mapping[int, int]) -> None:
        """``game``: the game whose events and state are told (the stand-in until
        :meth:`dealt`); ``clock``: the table's, for the deadlines told; ``accepted``: per
        seat, the pending id of its last answer that got an ``ok`` (the table's, read live)."""
        self._table = table
        self._clock = clock
        # The ok says that this decision is answered, so no private message is sent only to
        # clear it (§6).
        self._accepted = accepted
        players = game.players
        self._game = game
        self._views = [PlayerView(game, s) for s in range(players)]
        self._spectator_view = PlayerView(game, None)  # one, so its caches last
        # The batch of public events not yet published, everything published (for
        # snapshots), private events per seat (all, and not yet sent).
        self.seq = 0
        self._batch: list[Message] = []
        self._published: list[Message] = []
        self._chat_kept = 0  # chat lines in _published (at most MAX_CHAT_KEPT)
        self._snapshot_events: tuple[int, list[Message]] = (-1, [])  # (seq, history) shared
        self._last_state: Message | None = None
        self._log_pos = 0
        self._reveals_event: Message | None = None
        self._private_all: list[list[Message]] = [[] for _ in range(players)]
        self._private_new: list[list[Message]] = [[] for _ in range(players)]
        self._last_private: list[Any] = [None] * players
        self._updates: list[Message] = []
        self._privates: list[tuple[bytes, Message]] = []
        # Something may have changed since the last flush (the server flushes every turn of
        # its loop: an idle turn must not rebuild the public state).
        self._dirty = True
        # The last public state's hashable values and their wire forms (public_state).
        self._state_parts: dict[str, tuple[Any, Any]] = {}

    # -- what the table tells it ------------------------------------------------------------

    def dealt(self, game: Game) -> None:
        """The real game is dealt (§15): its events are published from its first one, once the
        table has started."""
        self._game = game
        self._views = [PlayerView(game, s) for s in range(game.players)]
        self._spectator_view = PlayerView(game, None)
        self._log_pos = 0

    def emit(self, event: Message) -> None:
        """A host event (§9), after the engine events that came before it."""
        self._dirty = True
        self._pull_engine_events()
        self._batch.append(event)

    def after_reveal(self, event: Message) -> None:
        """``event`` (the ``reveals`` of an offer step, §7) is published right after the
        engine's next ``reveal`` event, before the events that follow it."""
        self._reveals_event = event

    def touch(self) -> None:
        """Something outside the table's own handlers may have changed it (the server calls
        this after running code in the table's thread): the next flush looks."""
        self._dirty = True

    def send_whole_private(self, seat: int) -> None:
        """The seat has a new connection: the next flush sends it the whole private state."""
        self._last_private[seat] = None
        self._dirty = True

    def send(self, conn: bytes, message: Message) -> None:
        """A message for one connection alone, sent with the next drain."""
        self._privates.append((conn, message))

    def announce_stop(self, reason: str) -> None:
        """Tell everyone the host is stopping (``reason``: how; Ctrl-C, SIGTERM...): the last
        event published before the sockets close (§9)."""
        self.emit({"kind": "stopping", "reason": reason[:64]})

    def announce_closing(self, seconds: float) -> None:
        """Tell everyone when the host will go once the game is over (§9, §11): until then a
        client that missed the end can still ask for a snapshot."""
        self.emit({"kind": "closing", "seconds": round(seconds, 3)})

    # -- reading ------------------------------------------------------------------------------

    @property
    def history_length(self) -> int:
        """How many public events a snapshot carries now."""
        return len(self._published)

    def public_history(self) -> list[Message]:
        """Every public event published so far, in order, as a snapshot carries them (the
        last 200 chat lines only): what the record's chain is made of (protocol/chain.py)."""
        return list(self._published)

    def public_state(self) -> Message:
        """§6 public state: the spectator's view plus the table.

        Before the game starts (docs/protocol.md, "Before the game starts") nothing is dealt
        yet: the state holds only what exists then, the options (``players``, ``promo``,
        ``round_limit``), ``pending`` and ``result`` nil, and the table (its name, options and
        seats, ``started`` false). The market, queue, hands and every other key of the game
        arrive with the update that publishes ``started``."""
        if not self._table.started:
            options = self._game.options
            return {"players": self._game.players, "promo": options.promo,
                    "round_limit": options.round_limit, "pending": None, "result": None,
                    "table": self._table_part()}
        data = self._spectator_view.to_dict()
        del data["seat"]
        # Only the values that changed are converted: a hashable value (immutable all the way
        # down) equal to the last one has the same wire form, shared with the last state.
        parts = self._state_parts
        state: Message = {}
        for key, value in data.items():
            part = parts.get(key)
            if part is not None and part[0] == value:
                state[key] = part[1]
                continue
            wire = to_wire(value)
            try:
                hash(value)
            except TypeError:  # mutable parts (maps): converted every time
                parts.pop(key, None)
            else:
                parts[key] = (value, wire)
            state[key] = wire
        state["table"] = self._table_part()
        return state

    def _table_part(self) -> Message:
        """The ``table`` key of the public state (§6): the table's name and options, the
        seats, who committed in this offer step, and whether the game has started."""
        table = self._table
        step = table.offer_step
        started = table.started
        return {
            "name": table.name,
            "options": self.options_wire(),
            "names": table.names,
            "connected": [s.connected for s in table.seats],
            "bots": [s.program for s in table.seats],
            "committed": sorted(step.commitments) if started and step is not None
            and self._game.phase == OFFER and step.round == self._game.round else [],
            "started": started,
        }

    def options_wire(self) -> Message:
        """The table's options as the welcome and the public state's ``table`` tell them."""
        options = self._game.options
        return {"promo": options.promo, "round_limit": options.round_limit,
                "decision_seconds": self._table.decision_seconds, "first_tm": options.first_tm,
                "rules": options.rules}

    def private_state(self, seat: int) -> Message:
        """§6 private state of ``seat`` (without its events). Before the game starts nothing
        is dealt: only ``seat``, ``my_offer`` and ``pending`` (both nil); ``hand`` and
        ``stored`` come with the start."""
        if not self._table.started:
            return {"seat": seat, "my_offer": None, "pending": None}
        view = self._views[seat]
        pending = self._table.pending_of(seat)
        out: Message = {"seat": seat, "hand": list(view.hand), "stored": list(view.stored),
                        "my_offer": self._offer_seen(seat), "pending": None}
        if pending is not None:
            left = None
            if pending.deadline is not None:
                left = max(0, int((pending.deadline - self._clock()) * 1000))
            out["pending"] = {"id": pending.id, "kind": pending.kind, "detail": pending.detail,
                              "legal": pending.legal, "deadline_ms": left}
        return out

    def _offer_seen(self, seat: int) -> list[int] | None:
        """The seat's offer in this offer step as far as the host knows it: once revealed
        (or made for it: a host bot, a default) until the offers are face up; nil before
        (a committed offer is its client's secret until the reveal, §7)."""
        step = self._table.offer_step
        if step is None or self._game.phase != OFFER:
            return None
        if seat in step.revealed:
            return list(step.revealed[seat][0])
        mine = self._game.offers.get(seat)
        return None if mine is None else list(mine)

    def snapshot(self, seat: int | None, conn: bytes) -> Message:
        """§5: the snapshot ``conn`` asked for, with the private state of ``seat`` (whose token
        it gave; None: no private part)."""
        self.flush()  # so that seq, state and events agree
        private = None
        if seat is not None:
            private = self.private_state(seat)
            private["events"] = list(self._private_all[seat])
            if self._table.seats[seat].conn == conn:
                # The reply leaves now, the queued private messages at the next drain: they
                # would come after it, older (§6). It tells all they tell, so they are not sent.
                self._privates = [(c, m) for c, m in self._privates
                                  if c != conn or m["t"] != "private"]
        if self._snapshot_events[0] != self.seq:  # one copy of the history per state
            self._snapshot_events = (self.seq, list(self._published))
        return {"t": "snapshot", "seq": self.seq, "state": self._last_state,
                "events": self._snapshot_events[1], "private": private}

    # -- updates ------------------------------------------------------------------------------

    def _pull_engine_events(self) -> None:
        if not self._table.started:
            return  # the engine's events are published from the start of the game
        log = self._game.log
        for entry in log[self._log_pos:]:
            public = event_wire(entry.kind, entry.public)
            self._batch.append(public)
            if entry.private:
                for seat, part in entry.private.items():
                    merged = {**public, **to_wire(part)}
                    self._private_all[seat].append(merged)
                    self._private_new[seat].append(merged)
            if entry.kind == "reveal" and self._reveals_event is not None:
                self._batch.append(self._reveals_event)
                self._reveals_event = None
        self._log_pos = len(log)

    def flush(self) -> None:
        """Turn what changed into the next public update and the private messages."""
        self._pull_engine_events()
        if not self._dirty and not self._batch:
            return  # nothing happened since the last flush
        self._dirty = False
        state = self.public_state()
        changed = changed_keys(self._last_state, state)
        if self._batch or changed:
            # §5: an update carries the public state's top-level keys whose values changed
            # since the previous update; a snapshot carries the whole state.
            self.seq += 1
            self._updates.append({"t": "update", "seq": self.seq, "events": self._batch,
                                  "changed": changed})
            self._published.extend(self._batch)
            self._keep_chat_bounded()
            self._batch = []
            self._last_state = state
        game = self._game
        table = self._table
        started = table.started
        for seat in table.seats:
            if seat.host_bot is not None:
                continue
            # Taken whole, and a fresh list left: a message is built from the state of its
            # own seq, and events pulled after it (the start's deal) go to a later one.
            new, self._private_new[seat.index] = self._private_new[seat.index], []
            if seat.conn is None:
                continue  # a snapshot gives it everything when it comes back
            # What the private state is made of, read from the engine: the message is built
            # only when it changed (most flushes change nothing of most seats).
            index = seat.index
            asked = table.pending_of(index)
            # Before the start nothing is dealt: the private state is the seat alone.
            seen = self._offer_seen(index) if started else None
            key = (tuple(game.hands[index]), tuple(game.stored[index]),
                   None if seen is None else tuple(seen),
                   None if asked is None else asked.id) if started else ((), (), None, None)
            last = self._last_private[index]
            if not new and key == last:
                continue
            self._last_private[index] = key
            if not new and asked is None and last is not None and last[:3] == key[:3] \
                    and last[3] is not None and last[3] == self._accepted.get(index):
                continue  # only the decision its ok answered is gone (§6): nothing to send
            # §4: the private state under "private", as a snapshot carries it
            self._privates.append((seat.conn, {"t": "private", "seq": self.seq, "private": {
                **self.private_state(index), "events": new}}))

    def take(self) -> tuple[list[Message], list[tuple[bytes, Message]]]:
        """The public updates and the (connection, private message) pairs flushed so far,
        handed over once (``Table.drain`` flushes and commits the game log first)."""
        updates, privates = self._updates, self._privates
        self._updates, self._privates = [], []
        return updates, privates

    def _keep_chat_bounded(self) -> None:
        """Drop the oldest chat lines from the history beyond MAX_CHAT_KEPT (game events are
        never dropped)."""
        self._chat_kept += sum(1 for e in self._batch if e.get("kind") == "chat")
        extra = self._chat_kept - MAX_CHAT_KEPT
        if extra <= 0:
            return
        kept: list[Message] = []
        for event in self._published:
            if extra and event.get("kind") == "chat":
                extra -= 1
                continue
            kept.append(event)
        self._published = kept
        self._chat_kept = MAX_CHAT_KEPT


# -- wire forms -------------------------------------------------------------------------------

def changed_keys(last: Message | None, state: Message) -> Message:
    """The keys of ``state`` whose values differ from ``last``'s (all of them without a last
    state). Unchanged values are usually the very objects of the last state (public_state
    reuses their wire forms), so identity settles most keys without comparing."""
    if last is None:
        return dict(state)
    changed: Message = {}
    for key, value in state.items():
        before = last.get(key, _MISSING)
        if before is not value and before != value:
            changed[key] = value
    return changed


_MISSING = object()


def event_wire(kind: str, public: dict[str, Any]) -> Message:
    """An engine event's public part as a wire event."""
    body = to_wire(public)
    if "kind" in body:
        # A field named "kind" would hide the event's own kind (§2): it travels as "type".
        body.setdefault("type", body.pop("kind"))
    if kind == "setup":
        body.pop("seed", None)  # the seed tells the order of every pile: never published
    return {"kind": kind, **body}


def card_wire(card: dict[str, Any]) -> Message:
    """A development's definition as the welcome lists it (§4)."""
    keys = ("id", "name", "kind", "players", "icon", "income", "caravel", "merchant_class",
            "capacity", "power", "group")
    return {k: card[k] for k in keys}
