"""The client side of the protocol without sockets, threads or clocks (docs/protocol.md).

A :class:`ClientCore` takes what the host sent (:meth:`~ClientCore.receive`), what this side
wants (:meth:`~ClientCore.decide`, :meth:`~ClientCore.offer`, :meth:`~ClientCore.chat`,
:meth:`~ClientCore.ping`...) and the time: every input takes ``now``, a number of seconds on
the caller's clock, and :meth:`~ClientCore.handle_timer` wants to be called when
:meth:`~ClientCore.next_deadline` comes. It hands back what to send
(:meth:`~ClientCore.outgoing`: frames for the DEALER socket and, in their place among them,
the socket actions :class:`OpenDealer`, :class:`Subscribe` and :class:`CloseSockets`) and what
happened (:meth:`~ClientCore.notices`: the classes of :mod:`mundus_net.client.notices`). The
ZeroMQ shell around it is :class:`mundus_net.client.connection.Connection`; tests pair cores
with the host's ``Table`` in memory (tests/test_client_core.py).

Every decision the protocol leaves to a client is made here:

* the public state by the Clone pattern (§5): a snapshot on a join or a gap, then updates in
  ``seq`` order, those at or below the snapshot's ``seq`` dropped, so every public event is
  delivered exactly once, in order; a private message ahead of the public state waits
  :data:`SYNC_GRACE_S` for its update before a snapshot is asked (§6), and its events are
  told with that update, each in its public event's place (:func:`place_private`);
* commit-reveal (§7): a fresh nonce and commitment for an offer, the reveal when asked, and
  every seat's reveal checked against its commitment and the engine's revealed offer; the
  fair deal (§15) checked likewise;
* liveness (§11): a ping every heartbeat, a reconnect after :data:`LOST_AFTER` heartbeats of
  host silence or a ``not_joined``; snapshot requests and answers that get no reply are sent
  again; a ``flood`` error holds everything for :data:`RATE_HOLD_S` (§10).

Two rules hold throughout: nothing changes between two calls, and after any input,
:meth:`~ClientCore.outgoing` and :meth:`~ClientCore.notices` say everything it led to.

The life cycle (:class:`Link`):

=====================  ==============================================  ===================
from                   on                                               to
=====================  ==============================================  ===================
IDLE                   ``start``: a fresh DEALER and a hello            JOINING
JOINING, RECONNECTING  ``welcome``: subscribe, ask for a snapshot       SYNCING
SYNCING                a ``snapshot``                                   LIVE
SYNCING, LIVE          5 heartbeats of silence, or ``not_joined``:      RECONNECTING
                       Lost, a fresh DEALER, a hello with the token
JOINING, RECONNECTING  5 heartbeats of silence: another hello           (the same)
any                    ``close``, or the host refuses the hello         CLOSED
any                    the table is gone (:class:`Gone`, below)         CLOSED
=====================  ==============================================  ===================

The table this client sat at (or watched) can end three ways, each told once by a
:class:`Gone` notice before the link closes; nothing is sent afterwards:

* ``replaced``: a new game runs at the address (the host was stopped and started again
  without ``--resume``). The host refuses this seat's token (``bad_token``), or welcomes a
  reconnecting spectator to another game (another game id or seed commitment). The token is
  dead: the core forgets it.
* ``stopped``: the host stayed silent for :attr:`ClientSettings.give_up_after` seconds of
  reconnecting (by default it tries for ever).
* ``over``: the game is over and the host went silent (a host stops a little after its game
  ends): there is nothing to reconnect to.
* ``taken_over``: another client program sat in this seat with its token (the person chose
  to take it over, docs/client.md): the host says ``taken_over``, or refuses this side's
  reconnecting hello with ``seat_in_use``. The token stays good; this side stops.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, cast

from mundus_net.client.i18n import N_
from mundus_net.client.notices import (
    OVER,
    REPLACED,
    STOPPED,
    TAKEN_OVER,
    Accepted,
    Closed,
    GameOver,
    Gone,
    Joined,
    Lost,
    Mismatch,
    Notice,
    PendingDecision,
    Pong,
    PrivateUpdate,
    Problem,
    PublicEvents,
    Refused,
    Rewound,
    Synced,
    Welcome,
)
from mundus_net.client.wire import (
    deck_from_wire,
    freeze,
    legal_decision,
    result_from_wire,
    seat_map,
)
from mundus_net.engine.decisions import Decision, Offer
from mundus_net.engine.deck import Deck
from mundus_net.engine.errors import MundusError
from mundus_net.engine.game import Pending, Result
from mundus_net.engine.view import StateView
from mundus_net.protocol import commitment, fairdeal
from mundus_net.protocol.chain import OFFER_AGAIN, Rewind, Witness
from mundus_net.protocol.codec import decision_to_wire
from mundus_net.protocol.errors import ProtocolError
from mundus_net.protocol.messages import DEFAULT_HEARTBEAT_MS, decode_host, encode
from mundus_net.protocol.shapes import (
    ByeMessage,
    ClientMessage,
    ErrorMessage,
    HelloMessage,
    Message,
    OkMessage,
    PingMessage,
    SnapshotMessage,
    SnapshotRequest,
    UpdateMessage,
    WelcomeMessage,
)

__all__ = [
    "ANSWERS", "ANSWER_RETRY", "LOST_AFTER", "RATE_HOLD_S", "SNAPSHOT_RETRY", "SYNC_GRACE_S",
    "Action", "Channel", "Checks", "ClientCore", "ClientError", "ClientSettings", "CloseSockets",
    "Link", "Message", "OfferSecret", "OpenDealer", "Outgoing", "Report", "Subscribe",
    "place_private"
]

LOST_AFTER = 5  # heartbeats of host silence before the host counts as gone (§11)
SNAPSHOT_RETRY = 3  # heartbeats without a snapshot reply before asking again
# A private message names the public update it goes with; that update travels on the other
# socket and normally arrives within a millisecond. If it has not come after this long, it
# was lost: ask for a snapshot instead of waiting for the next heartbeat (§6).
SYNC_GRACE_S = 0.25
ANSWER_RETRY = 2  # heartbeats without ok/error for an answer: it was dropped, answer again
RATE_HOLD_S = 1.0  # after flood the host drops everything for a second (§10)
ANSWERS = frozenset({"decide", "commit", "reveal"})  # the requests that answer a pending id


# -- errors ---------------------------------------------------------------------------------


class ClientError(MundusError):
    """This side used the API wrongly (nothing pending, not seated, closed...): nothing was
    sent and nothing changed."""


# -- settings, states and actions -----------------------------------------------------------


class Link(Enum):
    """Where the link to the host is in its life cycle (the table in the module docstring)."""

    IDLE = "idle"
    """Made; nothing sent yet."""
    JOINING = "joining"
    """The first hello is out; no welcome yet."""
    SYNCING = "syncing"
    """Welcomed; the first snapshot since the (re)join has not come yet."""
    LIVE = "live"
    """Welcomed and synced: the public state is complete up to ``seq``."""
    RECONNECTING = "reconnecting"
    """The host went silent or forgot this link: a new hello with the token is out."""
    CLOSED = "closed"
    """Closed for good (by this side, or a refused hello)."""


class Channel(Enum):
    """Where a message came from."""

    DEALER = "dealer"
    """This link's DEALER socket: replies, private messages, the host's pings."""
    PUBLIC = "public"
    """This link's SUB socket: updates and heartbeats (§5)."""
    RELAYED = "relayed"
    """The public stream as another link to the same table received it (``mundus bot --seats
    N`` subscribes once): handled like PUBLIC, but it is no sign of life of this link."""


@dataclass(frozen=True, slots=True)
class ClientSettings:
    """Who this client is at the table: what :class:`ClientCore` (and so
    ``Connection(address, settings)``) says in its hello and how it behaves when the host goes
    silent. Frozen: a connection keeps its settings."""

    name: str
    """The name to sit (or watch) with, said in every hello."""
    role: str = "player"
    """player or spectator."""
    bot: bool = False
    """Said in the hello: the host gives bots its bot deadline (§8)."""
    contribute: bool = True
    """Send a share of the seed (§15); spectators never do."""
    give_up_after: float | None = None
    """Seconds of reconnecting without a welcome after which the table counts as gone
    (:class:`Gone` ``stopped``); None: reconnect for ever."""
    invite: str | None = None
    """The table's invite code (a table for the invited asks it in every hello without a
    token)."""
    take_over: bool = False
    """Take the seat over if another live connection holds its token (the first hello only:
    the person chose it; §3)."""
    client_id: str = field(default_factory=lambda: os.urandom(8).hex())
    """This program's id in every hello: its own reconnects keep the seat without
    take_over, another program's hello with the same token is refused (§3)."""

    def __post_init__(self) -> None:
        if self.role not in ("player", "spectator"):
            raise ValueError("role is player or spectator")


class Action:
    """A socket action among the outgoing frames, done in its place."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class OpenDealer(Action):
    """Drop this link's sockets (DEALER and SUB) and connect a fresh DEALER to the table's
    address: the frames that follow go on it."""


@dataclass(frozen=True, slots=True)
class Subscribe(Action):
    """Receive the table's public messages (a SUB socket on the host's ``pub_port``) and
    hand them to :meth:`ClientCore.receive` as :attr:`Channel.PUBLIC`."""

    pub_port: int


@dataclass(frozen=True, slots=True)
class CloseSockets(Action):
    """The link is closed: close its sockets."""


Outgoing = bytes | Action


# -- the secret of a commitment ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OfferSecret:
    """What opens this seat's commitment; keep it to reveal after a restart."""

    round: int
    offer: tuple[int, ...]
    nonce: bytes
    commitment: bytes

    def to_json(self) -> dict[str, Any]:
        return {"round": self.round, "offer": list(self.offer), "nonce": self.nonce.hex(),
                "commitment": self.commitment.hex()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OfferSecret:
        return cls(int(data["round"]), tuple(int(c) for c in data["offer"]),
                   bytes.fromhex(data["nonce"]), bytes.fromhex(data["commitment"]))


def place_private(private: Sequence[Message], events: Sequence[Message]
                  ) -> tuple[tuple[Message | None, ...], tuple[Message, ...]]:
    """Each of a seat's private events in the place of its public part among ``events``:
    aligned with ``events`` (empty when none found a place), and those that found none. The
    host makes a private event by merging its private part into a copy of the public event
    (§6), and both lists keep the engine's order: the public part of the next private event
    is the next public event whose every field it has."""
    placed: list[Message | None] = [None] * len(events)
    start = 0
    unplaced: list[Message] = []
    for mine in private:
        at = next((i for i in range(start, len(events))
                   if events[i].items() <= mine.items()), None)
        if at is None:
            unplaced.append(mine)
            continue
        placed[at] = mine
        start = at + 1
    return (tuple(placed) if start else ()), tuple(unplaced)


# -- the checks: commit-reveal (§7) and the fair deal (§15) ---------------------------------


@dataclass
class _OfferStep:
    """One offer step's commitments and the engine's revealed offers, for verification."""

    hashes: dict[int, bytes] = field(default_factory=dict)
    round: int = 0
    reveals: dict[int, tuple[int, ...]] | None = None  # reveals that open their commitment
    revealed: dict[int, tuple[int, ...]] | None = None  # the engine's reveal event
    violations: set[int] = field(default_factory=set)
    compared: bool = False


Report = Callable[[int, int, str], None]  # round, seat (-1: the host), reason


class Checks:
    """Checks what the host publishes against what it committed to: every seat's reveal
    against its commitment and the engine's revealed offer (§7, step 5), and the fair deal
    (§15). Reads public events only; each broken promise is ``report``-ed once."""

    def __init__(self, report: Report) -> None:
        self.report = report
        self._step: _OfferStep | None = None  # the latest offer step only
        self._fair: Message | None = None  # the fair_deal event

    def event(self, event: Message, game_id: str | None, seat: int | None,
              promised: bytes | None, contribution: bytes | None) -> None:
        """One public event. ``promised`` is the seed commitment of the welcome,
        ``contribution`` this client's share of the seed (None if it sent none)."""
        kind = event.get("kind")
        if kind in ("fair_deal", "seed_reveal"):
            self._deal(event, game_id, seat, promised, contribution)
        elif kind == "commitments":
            self._step = _OfferStep(round=int(event["round"]), hashes={
                s: bytes(h) for s, h in seat_map(event.get("commitments")).items()})
        elif self._step is None:
            return  # joined after the commitments: nothing to check against
        elif kind == "violation":
            self._step.violations.add(int(event["seat"]))
        elif kind == "reveal":  # the engine's reveal of the offers
            self._step.revealed = {s: tuple(sorted(o)) for s, o in
                                   seat_map(event.get("offers")).items()}
            self._compare(self._step)
        elif kind == "reveals" and int(event["round"]) == self._step.round \
                and game_id is not None:
            self._verify(self._step, game_id, seat_map(event.get("reveals")))

    def _deal(self, event: Message, game_id: str | None, seat: int | None,
              promised: bytes | None, contribution: bytes | None) -> None:
        """§15: the seed commitment is the one this client saw before it contributed, its
        contribution is in the deal, and at the end the revealed seed opens the commitment
        and gives the engine seed."""
        if event["kind"] == "fair_deal":
            self._fair = event
            if promised is not None and bytes(event["commitment"]) != promised:
                self.report(0, -1, "the host's seed commitment is not the one it told when "
                                   "this client joined")
            mine = seat_map(event.get("contributions")).get(seat or 0)
            if contribution is not None and (mine is None or bytes(mine) != contribution):
                self.report(0, -1, "this client's contribution to the seed is not in the deal")
            return
        fair = self._fair
        if fair is None or game_id is None:
            return  # joined without seeing the deal: nothing to check against
        host_seed = bytes(event["host_seed"])
        if not fairdeal.check_commitment(bytes(fair["commitment"]), game_id, host_seed):
            self.report(0, -1, "the revealed host seed does not open its commitment")
            return
        values = seat_map(fair.get("contributions"))
        try:
            seed = fairdeal.engine_seed(game_id, host_seed,
                                        [bytes(values[s]) for s in range(len(values))],
                                        bool(fair.get("mixed", True)))
        except (KeyError, ValueError):
            seed = None
        if seed != event.get("seed"):
            self.report(0, -1, "the game's seed is not the one the host seed and the "
                               "contributions give")

    def _verify(self, step: _OfferStep, game_id: str, reveals: dict[int, Any]) -> None:
        """Every published reveal must open its seat's commitment (§7, step 5)."""
        rnd = step.round
        step.reveals = {}
        for seat, digest in sorted(step.hashes.items()):
            reveal = reveals.get(seat)
            if reveal is None:
                if seat not in step.violations:
                    self.report(rnd, seat, "committed, but no reveal was published")
                continue
            offer = tuple(sorted(reveal["offer"]))
            if commitment.verify(digest, game_id, rnd, seat, offer, bytes(reveal["nonce"])):
                step.reveals[seat] = offer
            elif seat not in step.violations:  # a broken reveal the host did not flag
                self.report(rnd, seat, f"the reveal {list(offer)} does not open the "
                                       "commitment")
        for seat in sorted(set(reveals) - set(step.hashes)):
            self.report(rnd, seat, "a reveal without a commitment")
        self._compare(step)

    def _compare(self, step: _OfferStep) -> None:
        """The offers the engine revealed must be the ones committed to."""
        if step.reveals is None or step.revealed is None or step.compared:
            return
        step.compared = True
        for seat, offer in sorted(step.reveals.items()):
            shown = step.revealed.get(seat)
            if seat not in step.violations and shown is not None and shown != offer:
                self.report(step.round, seat, f"the host revealed {list(shown)} but the "
                                              f"commitment opens to {list(offer)}")


# -- the core -------------------------------------------------------------------------------


class ClientCore:
    """One client's side of the protocol with one host table: messages and time in, frames,
    socket actions and notices out. Not thread-safe; no I/O of its own.

    ``token`` and ``secret`` resume a seat (a saved token, an open commitment). ``on_secret``
    is called with this seat's open commitment whenever it changes (None once it is spent),
    before the frame that depends on it is queued: a client that keeps it can still reveal
    after a restart. ``witness`` is what this client saw of the game before (its state
    folder's, client/witness.py; or ``load_witness(game id, seat)`` gives it at the
    welcome), and
    ``on_witness`` is called with it at each new round,
    each reveal and each rewind accepted (docs/security.md, "A host that goes back in
    time"). ``entropy(n)`` gives the n random bytes of this seat's share of the seed
    (§15); tests pass a seeded one to play the same game every time.
    """

    def __init__(self, settings: ClientSettings, *, token: str | None = None,
                 secret: OfferSecret | None = None,
                 on_secret: Callable[[OfferSecret | None], None] | None = None,
                 witness: Witness | None = None,
                 on_witness: Callable[[Witness], None] | None = None,
                 load_witness: Callable[[str, int | None], Witness | None] | None = None,
                 entropy: Callable[[int], bytes] = os.urandom) -> None:
        self.settings = settings
        self.entropy = entropy
        self.link = Link.IDLE
        self.token = token
        self.secret = secret  # the open commitment of this seat, if any
        self.on_secret = on_secret
        self.contribution: bytes | None = None  # this seat's share of the seed (§15)
        # What this client witnessed of the game (the public history's chain, its revealed
        # offers), and a rewind found and not yet accepted: nothing is decided meanwhile.
        self.witness = witness
        self.on_witness = on_witness
        self.load_witness = load_witness
        # ``defer_round_witness``: the once-a-round save is left to the owner, which takes
        # it (take_unsaved_witness) when it has answered and waits (mundus bot: the save is
        # then off the path of its answer); the other saves stay at once.
        self.defer_round_witness = False
        self._witness_unsaved = False
        self.rewind: Rewound | None = None

        self.welcome: Welcome | None = None
        self.seat: int | None = None
        self.game_id: str | None = None
        self.deck: Deck | None = None
        self.heartbeat_s = DEFAULT_HEARTBEAT_MS / 1000

        self.seq = 0  # the last public update applied
        self.state: Message = {}
        self.events: list[Message] = []  # every public event, in order
        self.private: Message = {}
        self.pending: PendingDecision | None = None
        self.result: Result | None = None
        self.mismatches: list[Mismatch] = []
        self.latency: float | None = None  # seconds of the last ping -> pong

        self._out: list[Outgoing] = []
        self._notices: list[Notice] = []
        self._ids = itertools.count(1)
        self._requests: dict[int, tuple[str, int | None]] = {}  # id -> (type, pending id)
        self._user_pings: set[int] = set()  # the pings ping() sent (they get a Pong)
        self._ping_sent: dict[int, float] = {}
        self._buffer: dict[int, UpdateMessage] = {}  # updates that wait for a snapshot or a gap
        # Private events that came ahead of their public update, by the update's seq: they
        # are delivered with it, each in its public event's place (§6).
        self._private_ahead: dict[int, tuple[Message, ...]] = {}
        self._private_told = -1  # the seq of the last snapshot: its private events are told
        self._last_heard = 0.0
        self._last_sent = 0.0
        self._snapshot_asked: float | None = None  # when, while a snapshot is awaited
        self._snapshot_request: int | None = None  # the id of the last snapshot request
        self._behind_since: float | None = None  # a private message is ahead of self.seq
        self._answered: int | None = None  # the pending id answered last
        self._start_over = False  # the next snapshot is taken whole (after a welcome, or a
        # heartbeat behind what was seen)
        self._answer_request: tuple[int, float] | None = None  # (request id, sent at)
        self._hold_until: float | None = None  # rate-limited: send nothing before this
        self._rejoined_at = -1e18  # the last hello after a not_joined (at most one a heartbeat)
        self._lost_at: float | None = None  # reconnecting since, after a welcome
        self._warned_secret: int | None = None
        # The last legal list: (pending id, the list as received, decoded). An equal list
        # under a new id (commit, then reveal) is not decoded again.
        self._legal_cache: tuple[int, Sequence[Any], tuple[Decision, ...]] | None = None
        self._checks = Checks(self._mismatch)
        self._checked_again: set[bytes] = set()  # revealed steps already found asked again
        self._frozen: dict[str, tuple[Any, Any]] = {}  # StateView's conversions, reused

    # -- the life cycle -------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        """Welcomed and not lost (SYNCING or LIVE)."""
        return self.link is Link.LIVE or self.link is Link.SYNCING

    @property
    def synced(self) -> bool:
        """The public state is complete up to :attr:`seq` (LIVE)."""
        return self.link is Link.LIVE

    @property
    def closed(self) -> bool:
        return self.link is Link.CLOSED

    @property
    def started(self) -> bool:
        """Whether the game has begun: the public state's ``table.started`` (§6). Until then
        the state holds only the options and the seats, and the private state only the seat
        (docs/protocol.md, "Before the game starts"): no hand, market, queue or any other
        dealt thing, which arrive with the update that publishes ``started``."""
        table = self.state.get("table")
        return isinstance(table, dict) and bool(table.get("started"))

    @property
    def invite(self) -> str | None:
        """The table's invite code as this side knows it: the welcome's (the host tells a
        seated player), else the one this client gives in its hello."""
        welcome = self.welcome
        if welcome is not None and welcome.invite is not None:
            return welcome.invite
        return self.settings.invite

    def start(self, now: float) -> None:
        """Say hello: outgoing() gets an :class:`OpenDealer` and the hello. Called again, it
        starts over with a fresh DEALER. Raises ClientError after :meth:`close`."""
        if self.link is Link.CLOSED:
            raise ClientError("the connection is closed")
        self._reopen(now)

    def bye(self, now: float) -> int | None:
        """Say bye (the seat stays, marked away); returns the request id, or None when not
        connected (nothing sent). :meth:`close` comes next."""
        if not self.connected:
            return None
        message: ByeMessage = {"t": "bye"}
        if self.token is not None:
            message["token"] = self.token
        return self._send(message, now)

    def close(self, reason: str = "closed") -> None:
        """Close for good: outgoing() gets :class:`CloseSockets` and notices() a
        :class:`Closed`. Nothing is received or sent afterwards; a second call does nothing."""
        if self.link is Link.CLOSED:
            return
        self.link = Link.CLOSED
        self._out.append(CloseSockets())
        self._notices.append(Closed(reason))

    def _gone(self, why: str, detail: str) -> None:
        """The table is gone for good: say so once and close (nothing is sent after)."""
        if self.link is Link.CLOSED:
            return
        if why == REPLACED:
            self.token = None  # dead: never sent again
            self.secret = None
        self.pending = None  # nothing is asked at a table that is gone
        self._notices.append(Gone(why, detail))
        self.close(why)

    def _reopen(self, now: float) -> None:
        """Fresh sockets and a hello (how a join and a reconnect start)."""
        if self.welcome is not None and self._lost_at is None:
            self._lost_at = now  # reconnecting from now on (give_up_after counts from here)
        self._out.append(OpenDealer())
        self.link = Link.JOINING if self.welcome is None else Link.RECONNECTING
        self._snapshot_asked = None
        self._behind_since = None
        self._answered = None  # an answer lost with the old sockets must be sent again
        self._answer_request = None
        self._hold_until = None  # the host limits a connection, and this one is new
        self._requests.clear()
        self._user_pings.clear()
        settings = self.settings
        hello: HelloMessage = {"t": "hello", "name": settings.name, "role": settings.role}
        if self.token is not None:
            hello["token"] = self.token
        if settings.bot:
            hello["bot"] = True
        if settings.contribute and settings.role == "player":
            hello["contribute"] = True
        if settings.invite is not None:
            hello["invite"] = settings.invite
        if settings.role == "player":
            hello["client"] = settings.client_id
            if settings.take_over and self.welcome is None:
                hello["take_over"] = True
        self._send(hello, now)
        self._last_heard = now

    # -- inputs ---------------------------------------------------------------------------------

    def receive(self, channel: Channel, message: bytes | Message, now: float) -> None:
        """Take one message from the host, as a frame or already decoded by ``decode_host``;
        read notices() and outgoing() afterwards.

        A frame that does not decode, or a message that does not make sense, becomes a
        :class:`Problem` notice and is otherwise ignored: a broken host never crashes the
        client. Ignored after :meth:`close`."""
        if self.link is Link.CLOSED:
            return
        if channel is not Channel.RELAYED:
            self._last_heard = now  # any message is a sign of life (§11)
        if isinstance(message, bytes):
            try:
                message = decode_host(message)
            except ProtocolError as exc:
                self._notices.append(Problem(N_("unreadable message from the host"), str(exc)))
                return
        try:
            if channel is Channel.DEALER:
                self._on_dealer(message, now)
            else:
                self._on_public(message, now)
        except (KeyError, TypeError, ValueError, ProtocolError) as exc:
            # A host that sends nonsense must not crash the client.
            self._notices.append(Problem(N_("a malformed message from the host"),
                                         f"{message.get('t')!r}: {exc!r}"))

    def handle_timer(self, now: float) -> None:
        """Run the timers due at ``now`` (:meth:`timers` lists them): the end of a rate-limit
        hold, the silence that means the host is gone, a ping every heartbeat, answers and
        snapshot requests without a reply, the :data:`SYNC_GRACE_S` grace. Call it at (or
        after) :meth:`next_deadline`; calling it earlier is harmless."""
        if self.link is Link.IDLE or self.link is Link.CLOSED:
            return
        while not self.closed:  # (a table that is gone closes the link)
            # One at a time, in order, then look again: each one changes what the others see
            # (a reconnect stops everything else), and moves itself past ``now``.
            fire = next((fire for at, fire in self.timers() if at <= now), None)
            if fire is None:
                return
            fire(now)

    def next_deadline(self) -> float | None:
        """When :meth:`handle_timer` has something to do (on the clock of the ``now`` values
        given), or None (idle or closed). After ``handle_timer(now)`` it is later than
        ``now``."""
        if self.link is Link.IDLE or self.link is Link.CLOSED:
            return None
        return self._next_due()

    def _next_due(self) -> float:
        """min(at for at, _ in self.timers()), without building the list: a bot's loop asks
        for it at every turn (tests/test_client_core.py checks that the two agree)."""
        hb = self.heartbeat_s
        due = self._last_heard + LOST_AFTER * hb
        if self._hold_until is not None:
            due = min(due, self._hold_until)
        give_up = self.settings.give_up_after
        if give_up is not None and self._lost_at is not None:
            due = min(due, self._lost_at + give_up)
        if self.connected and self._hold_until is None:
            due = min(due, self._last_sent + hb)
        if self._answer_request is not None:
            due = min(due, self._answer_request[1] + ANSWER_RETRY * hb)
        if self.connected:
            if self._snapshot_asked is not None:
                due = min(due, self._snapshot_asked + SNAPSHOT_RETRY * hb)
            elif self._behind_since is not None:
                due = min(due, self._behind_since + SYNC_GRACE_S)
        return due

    def timers(self) -> list[tuple[float, Callable[[float], object]]]:
        """Every timer that is set: when it is due and what it does then, in the order they
        run when several are due (a read-out: :meth:`handle_timer` runs them)."""
        hb = self.heartbeat_s
        timers: list[tuple[float, Callable[[float], object]]] = []
        if self._hold_until is not None:
            timers.append((self._hold_until, self._end_hold))
        timers.append((self._last_heard + LOST_AFTER * hb, self._silence))
        give_up = self.settings.give_up_after
        if give_up is not None and self._lost_at is not None:
            timers.append((self._lost_at + give_up, self._give_up))
        if self.connected and self._hold_until is None:
            timers.append((self._last_sent + hb, self._heartbeat))
        if self._answer_request is not None:
            timers.append((self._answer_request[1] + ANSWER_RETRY * hb, self._unanswered))
        if self.connected:
            if self._snapshot_asked is not None:
                timers.append((self._snapshot_asked + SNAPSHOT_RETRY * hb, self._ask_snapshot))
            elif self._behind_since is not None:
                timers.append((self._behind_since + SYNC_GRACE_S, self._ask_snapshot))
        return timers

    def _end_hold(self, now: float) -> None:
        """RATE_HOLD_S after flood: send again, and answer again what may have been
        dropped."""
        self._hold_until = None
        self._auto_answer(now)

    def _silence(self, now: float) -> None:
        """LOST_AFTER heartbeats without a word from the host: it is gone (§11). Fresh sockets
        and a hello with the token (also while still joining: the hello may be lost); after
        the game is over there is nothing to come back to."""
        if self.result is not None:
            self._gone(OVER, "the game is over and the host has stopped")
            return
        if self.connected:
            self._notices.append(Lost(f"no word from the host for {LOST_AFTER} heartbeats"))
        self._reopen(now)

    def _give_up(self, now: float) -> None:
        """give_up_after seconds of reconnecting in vain: the host is not coming back."""
        self._gone(STOPPED, f"no answer from the host for {self.settings.give_up_after:g} s")

    def _heartbeat(self, now: float) -> None:
        """A heartbeat since the last message sent (§11): answer again what needs no one's
        decision if its answer was refused, else ping."""
        self._auto_answer(now)
        if self._last_sent + self.heartbeat_s <= now:  # the timer's own sum: no answer went
            ping: PingMessage = {"t": "ping"}
            if self.token is not None:
                ping["token"] = self.token
            self._send(ping, now)

    def _unanswered(self, now: float) -> None:
        """ANSWER_RETRY heartbeats without ok or error for an answer: the host never saw it,
        so the decision is open again (reveals and saved commitments are sent again now)."""
        request, self._answer_request = self._answer_request, None
        if request is not None and request[0] in self._requests:
            self._answered = None
            self._notices.append(Problem(N_("no reply to an answer; the decision is open "
                                            "again")))
            self._auto_answer(now)

    # -- outputs --------------------------------------------------------------------------------

    def outgoing(self) -> list[Outgoing]:
        """What to do on the sockets, in order, since the last call: encoded frames for the
        DEALER and :class:`Action` objects."""
        out, self._out = self._out, []
        return out

    def notices(self) -> list[Notice]:
        """What happened since the last call, in order."""
        out, self._notices = self._notices, []
        return out

    def waiting_for(self, request: int) -> bool:
        """Whether request ``request`` still waits for its reply."""
        return request in self._requests

    # -- acting ---------------------------------------------------------------------------------

    @property
    def ready(self) -> PendingDecision | None:
        """The pending decision if it waits for an answer from this side and the public state
        has caught up with it (what a bot should decide on), else None. Reveals are answered
        automatically and never returned."""
        p = self.pending
        if p is None or p.id == self._answered or p.kind == "reveal" or p.seq > self.seq \
                or self.link is not Link.LIVE or self._hold_until is not None \
                or self.rewind is not None:
            return None
        return p

    def decide(self, decision: Decision, now: float) -> int:
        """Answer the pending decision; an :class:`Offer` in the offer step is committed
        (§7). Returns the request id (the reply is an Accepted or Refused notice). Raises
        ClientError when nothing is pending, it is answered already, or the decision does not
        fit the step; nothing is sent then."""
        p = self._open_pending()
        if p.kind == "commit":
            if not isinstance(decision, Offer):
                raise ClientError(f"the offer step needs an Offer, not {decision!r}")
            return self.offer(decision.cards, now)
        if isinstance(decision, Offer):
            raise ClientError(f"no offer is pending (the host waits for {p.kind})")
        return self._answer(p.id, {"t": "decide", "decision": decision_to_wire(decision)}, now)

    def offer(self, cards: Sequence[int], now: float) -> int:
        """Commit to an offer: a fresh nonce, the commitment sent now, the reveal when the
        host asks for it. Returns the request id; raises ClientError as :meth:`decide`."""
        p = self._open_pending()
        if p.kind != "commit":
            raise ClientError(f"no offer is pending (the host waits for {p.kind})")
        if self.game_id is None or self.seat is None:
            raise ClientError("not seated")
        rnd = self._round_of(p)
        offer = tuple(sorted(cards))
        shown = self._revealed_offer(p)
        if shown is not None and shown[0] != offer:
            raise ClientError(f"this seat revealed {list(shown[0])} in the offer step of round "
                              f"{rnd} already: the host went back, and gets no other offer")
        nonce = commitment.new_nonce()
        digest = commitment.commit(self.game_id, rnd, self.seat, offer, nonce)
        # Saved before it is sent: a client restarted after committing can still reveal.
        self._set_secret(OfferSecret(rnd, offer, nonce, digest))
        return self._answer(p.id, {"t": "commit", "commitment": digest}, now)

    def ping(self, now: float) -> int:
        """Measure the round trip to the host now: a :class:`Pong` notice comes back (the
        heartbeat pings update :attr:`latency` too). Returns the request id."""
        message: PingMessage = {"t": "ping"}
        if self.token is not None:
            message["token"] = self.token
        request = self._send(message, now)
        self._user_pings.add(request)
        return request

    def chat(self, text: str, now: float) -> int:
        """Say ``text`` at the table; returns the request id. ClientError for spectators."""
        return self._send({"t": "chat", "token": self._token(), "text": text}, now)

    def request_snapshot(self, now: float) -> int:
        """Ask for a fresh snapshot (the Clone pattern does this by itself on gaps); returns
        the request id."""
        return self._ask_snapshot(now)

    def _open_pending(self) -> PendingDecision:
        p = self.pending
        if p is None:
            raise ClientError("nothing is pending for this seat")
        if p.id == self._answered:
            raise ClientError(f"pending decision {p.id} is already answered")
        return p

    def _revealed_offer(self, p: PendingDecision
                        ) -> tuple[tuple[int, ...], bytes, bytes] | None:
        """This seat's revealed offer (offer, nonce, commitment) for the step ``p`` asks
        about, when it is still a legal one (after an accepted rewind the game may differ)."""
        witness = self.witness
        if witness is None or p.kind not in ("commit", "reveal"):
            return None
        shown = witness.revealed.get(self._round_of(p))
        if shown is None or Offer(shown[0]) not in p.legal:
            return None
        return shown

    def accept_rewind(self, now: float) -> int | None:
        """Go on with the host's state after a :class:`Rewound` (the person chose it): said
        at the table in a chat line (a seated player's), the witness made afresh from the
        host's history (the revealed offers kept: a step asked again gets the same offer).
        Returns the chat's request id (None for a spectator). ClientError without a
        rewind."""
        rewound = self.rewind
        if rewound is None:
            raise ClientError("no rewind to accept")
        self.rewind = None
        if self.witness is not None:
            # The steps revealed before are expected again now: the same offers, no alarm.
            self._checked_again.update(c for _, _, c in self.witness.revealed.values())
            self.witness = self.witness.rebased(self.events, self._state_round())
            self._save_witness()
        request = None
        if self.token is not None and self.connected:
            line = f"rewind seen, I go on: {rewound.sentence}"
            request = self.chat(line[:200], now)
        self._auto_answer(now)
        return request

    def _state_round(self) -> int:
        rnd = self.state.get("round")
        return int(rnd) if isinstance(rnd, int) else 0

    def _rewound(self, rewind: Rewind) -> None:
        """A rewind found: told once, and nothing decided until the person chooses."""
        if self.rewind is not None:
            return
        self.rewind = Rewound(rewind.kind, rewind.seen, rewind.host, rewind.round,
                              rewind.host_round, rewind.sentence())
        self._notices.append(self.rewind)

    def _save_witness(self) -> None:
        if self.on_witness is not None and self.witness is not None:
            self._witness_unsaved = False  # this save holds the round too
            self.on_witness(self.witness)

    def _round_witness(self) -> None:
        if self.defer_round_witness and self.on_witness is not None:
            self._witness_unsaved = True
        else:
            self._save_witness()

    def take_unsaved_witness(self) -> Witness | None:
        """The witness to save when a round save was left to the owner (defer_round_witness)
        and nothing saved it since: the current one, once; None otherwise."""
        if not self._witness_unsaved:
            return None
        self._witness_unsaved = False
        return self.witness

    def _round_of(self, p: PendingDecision) -> int:
        rnd = p.detail.get("round")
        return int(rnd if rnd is not None else self.state.get("round", 0))

    def _token(self) -> str:
        if self.token is None:
            raise ClientError("spectators may not act")
        return self.token

    def _answer(self, pending_id: int, message: Message, now: float) -> int:
        """Send an answer to pending decision ``pending_id`` and remember it is answered."""
        message["token"] = self._token()
        message["pending"] = pending_id
        request = self._send(message, now)
        self._answered = pending_id
        self._answer_request = (request, now)
        return request

    def _auto_answer(self, now: float) -> None:
        """Reveals, and commitments made before a restart, need no one's decision."""
        p = self.pending
        if p is None or self._answered == p.id or self._hold_until is not None:
            return
        witness = self.witness
        if p.kind == "commit" and witness is not None and self.rewind is None \
                and self._round_of(p) in witness.revealed \
                and witness.revealed[self._round_of(p)][2] not in self._checked_again:
            # An offer step this seat revealed in, asked again: the host went back (§7).
            # Looked at once synced: a snapshot that shows the rewind tells it better.
            if not self.synced:
                return
            self._checked_again.add(witness.revealed[self._round_of(p)][2])
            self._rewound(Rewind(OFFER_AGAIN, witness.count, witness.count, witness.round,
                                 self._round_of(p)))
        if self.rewind is not None:
            return  # nothing is answered until the person chooses
        shown = self._revealed_offer(p)
        secret = self.secret
        held = secret is not None and secret.round == self._round_of(p)
        if shown is not None and (p.kind == "commit" or not held):
            # The same offer, nonce and commitment: the host learns nothing it did not know.
            # A reveal asked again with no secret held (the host went back to after the
            # commitments of a step this seat revealed in) opens the commitment it kept (§5).
            secret, held = OfferSecret(self._round_of(p), *shown), True
            self._set_secret(secret)
        if p.kind == "reveal":
            if secret is not None and held:
                self._remember_reveal(secret)
                self._answer(p.id, {"t": "reveal", "offer": list(secret.offer),
                                    "nonce": secret.nonce}, now)
            elif self._warned_secret != p.id:
                self._warned_secret = p.id
                self._notices.append(Problem(N_(
                    "the host asks for a reveal but this client does not hold the offer's "
                    "secret; the host will play the default offer")))
        elif p.kind == "commit" and secret is not None and held:
            # Committed in this offer step already (then restarted or reconnected): send the
            # same commitment again rather than a new one the saved secret would not open.
            self._answer(p.id, {"t": "commit", "commitment": secret.commitment}, now)

    def _remember_reveal(self, secret: OfferSecret) -> None:
        """Kept (and saved) before the reveal leaves: this seat's offer of that step is then
        known to the host, and a step asked again never gets another one."""
        witness = self.witness
        if witness is None or secret.round in witness.revealed:
            return
        self.witness = witness.with_reveal(secret.round, secret.offer, secret.nonce,
                                           secret.commitment)
        self._save_witness()

    def _send(self, message: ClientMessage | Message, now: float) -> int:
        if self.link is Link.IDLE or self.link is Link.CLOSED:
            raise ClientError("not connected")
        request_id = next(self._ids) & 0x7FFFFFFF
        pending = message.get("pending")  # an answer's decision (int), else absent
        self._requests[request_id] = (message["t"], pending if isinstance(pending, int) else None)
        if message["t"] == "ping":
            self._ping_sent[request_id] = now
            self._ping_sent.pop(request_id - 16, None)  # unanswered pings are forgotten
        if len(self._requests) > 1000:  # replies to pings may never come; forget old ones
            for old in list(self._requests)[:500]:
                del self._requests[old]
            self._user_pings &= self._requests.keys()
        message["id"] = request_id
        self._out.append(encode(message))
        self._last_sent = now
        return request_id

    def _ask_snapshot(self, now: float) -> int:
        message: SnapshotRequest = {"t": "snapshot"}
        if self.token is not None:
            message["token"] = self.token
        request = self._send(message, now)
        self._snapshot_asked = now
        self._snapshot_request = request
        return request

    # -- reading --------------------------------------------------------------------------------

    def view(self, *, for_screen: bool = False) -> StateView:
        """The table as this seat sees it, with the PlayerView reading API (for bots).
        Raises ClientError before the welcome.

        ``for_screen``: the table as a screen shows it (the terminal client). The pending
        decision is this seat's only while it waits for this side's answer (:attr:`ready`);
        otherwise the view's pending decision is the table's, naming only the seats it still
        waits for: not those that sealed their offer, nor this one once it has answered (the
        question is still this seat's while the link is down and nothing was answered), and
        nobody at a table that is gone. Such a view shares no conversions with the others:
        it may be read in another thread."""
        if self.deck is None:
            raise ClientError("not joined yet")
        data = dict(self.state)
        data.update(self.private)
        data["seat"] = self.seat
        p = self.pending
        if for_screen:
            p = self.ready
            self._show_waiting(data)
        pending = None
        if p is not None and self.seat is not None:
            detail = freeze(p.detail)
            if p.phase == "offer" and "least" in detail:  # the engine's shape too (§8)
                detail = {**detail, "sizes": {self.seat: (detail["least"], detail["most"])}}
            pending = Pending(p.phase, (self.seat,), detail)
            data["phase"] = p.phase
        return StateView(data, self.deck, list(p.legal) if p is not None else None, pending,
                         None if for_screen else self._frozen)

    def _show_waiting(self, data: Message) -> None:
        """The state's pending decision in ``data`` names only the seats the table still
        waits for (``view(for_screen=True)``)."""
        if self.closed and self.result is None:
            data["pending"] = None  # the table is gone: nobody is asked anything any more
        raw = data.get("pending")
        if not isinstance(raw, dict):
            return
        table = self.state.get("table") or {}
        done = set(table.get("committed") or ()) if raw.get("kind") == "offer" else set()
        if self.ready is None and (self.synced or self.pending is None):
            done.add(self.seat)  # answered (offline, the question is still this seat's)
        elif self.seat is not None:
            done.discard(self.seat)
        data["pending"] = {**raw, "seats": [s for s in raw.get("seats") or () if s not in done]}

    # -- messages on the DEALER -------------------------------------------------------------------

    def _on_dealer(self, m: Message, now: float) -> None:
        t = m["t"]
        if t == "private":
            private = m.get("private") or {}
            self._set_private(private, int(m.get("seq", 0)),
                              tuple(private.get("events") or ()), now)
        elif t == "ok":
            self._on_ok(cast(OkMessage, m), now)
        elif t == "error":
            self._on_error(cast(ErrorMessage, m), now)
        elif t == "welcome":
            self._on_welcome(cast(WelcomeMessage, m), now)
        elif t == "snapshot":
            self._on_snapshot(cast(SnapshotMessage, m), now)
        elif t == "taken_over":
            self._gone(TAKEN_OVER, str(m.get("message") or "another client took this seat"))
        elif t == "pong":
            request = self._requests.pop(m.get("id", -1), None)
            if request is not None:
                self.latency = now - self._ping_sent.pop(m["id"], now)
                if m["id"] in self._user_pings:
                    self._user_pings.discard(m["id"])
                    self._notices.append(Pong(m["id"], self.latency))
        # a host's ping: only a sign of life

    def _on_ok(self, m: OkMessage, now: float) -> None:
        request = self._requests.pop(m.get("id", -1), None)
        if request is None or request[0] in ("ping", "snapshot"):
            return
        self._notices.append(Accepted(request[0], m["id"]))
        p = self.pending
        if request[0] in ANSWERS and p is not None and p.id == request[1]:
            # §6: the answered decision is gone; the host sends no private message only to
            # say so.
            self.pending = None
            self._notices.append(PrivateUpdate((), None))
            self._check_behind(now)

    def _on_error(self, m: ErrorMessage, now: float) -> None:
        request = self._requests.pop(m.get("id", -1), None)
        kind, pending_id = request if request is not None else (None, None)
        code = m.get("code")
        if code == "flood":
            # The host names no request and drops what follows for a second (§10): hold,
            # then answer the pending decision again (its answer may be among the dropped).
            self._hold_until = now + RATE_HOLD_S
            self._answered = None
        elif pending_id is not None and pending_id == self._answered and code != "stale":
            self._answered = None  # the answer did not count: the decision is open again
        if code == "bad_token" and self.welcome is not None and self.token is not None:
            # The host welcomed this token before and knows it no more: another game runs
            # at the address now (a host that resumes its game keeps every token).
            self._gone(REPLACED, "the host no longer knows this seat's token")
            return
        if code == "seat_in_use" and kind == "hello" and self.welcome is not None:
            # Reconnecting, and another program holds the seat now: it took it over (its
            # taken_over did not reach this side). Stop: never take it back (§3).
            self._gone(TAKEN_OVER, str(m.get("message", "")))
            return
        if code == "not_joined" and request is not None and kind not in ("hello", "bye") \
                and now - self._rejoined_at >= self.heartbeat_s:
            # The host does not know this link: it restarted (and resumed its game from its
            # log) or forgot it. Say hello again, with the token (§11).
            self._rejoined_at = now
            self._notices.append(Lost("the host does not know this connection (restarted?)"))
            self._reopen(now)
            return
        self._notices.append(Refused(str(code), str(m.get("message", "")), m.get("rule"),
                                     kind, m.get("id")))
        if kind == "hello":  # no seat (table full, bad token...): nothing more to do
            self.close()

    def _on_welcome(self, m: WelcomeMessage, now: float) -> None:
        resumed = self.welcome is not None
        deck = self.deck if self.deck is not None and resumed else deck_from_wire(m["deck"])
        welcome = Welcome(
            seat=m.get("seat"), token=m.get("token"), game=str(m["game"]), name=str(m["name"]),
            players=int(m["players"]), names=tuple(m.get("names") or ()),
            options=dict(m.get("options") or {}), deck=deck, pub_port=int(m["pub_port"]),
            heartbeat_ms=int(m.get("heartbeat_ms") or DEFAULT_HEARTBEAT_MS),
            host_key=m.get("host_key") if isinstance(m.get("host_key"), str) else None,
            sign_key=m.get("sign_key") if isinstance(m.get("sign_key"), str) else None,
            seed_commitment=bytes(m["seed_commitment"])
            if isinstance(m.get("seed_commitment"), bytes) else None,
            invite=m["invite"] if isinstance(m.get("invite"), str) else None)
        if resumed and self._another_game(welcome):
            # A new game behind the same address (a spectator is welcomed to anything).
            self._gone(REPLACED, f"the host runs another game ({welcome.game})")
            return
        self._lost_at = None
        witness = self.witness
        if witness is None or (witness.game, witness.seat) != (welcome.game, welcome.seat):
            load = self.load_witness
            loaded = load(welcome.game, welcome.seat) if load is not None else None
            # What an earlier run of this client saw from this seat, or nothing yet.
            self.witness = loaded if loaded is not None else \
                Witness(welcome.game, seat=welcome.seat)
        self.welcome = welcome
        self.seat = welcome.seat
        if welcome.token is not None:
            self.token = welcome.token
        self.game_id = welcome.game
        self.deck = deck
        self.heartbeat_s = max(0.01, welcome.heartbeat_ms / 1000)
        if self.link is not Link.LIVE:
            self.link = Link.SYNCING
        self._out.append(Subscribe(welcome.pub_port))
        self._notices.append(Joined(welcome, resumed))
        if m.get("contribute") and self.settings.contribute and self.token is not None:
            # §15: the host committed to its seed (the welcome says to what) before this
            # random share of the seed is sent.
            self.contribution = self.entropy(fairdeal.CONTRIBUTION_BYTES)
            self._send({"t": "contribute", "token": self.token, "value": self.contribution},
                       now)
        # A late join (or a rejoin) starts from a snapshot; updates that arrive before it
        # are buffered (§5). Nothing answered before the welcome is kept either.
        self._answered = None
        self._ask_starting_snapshot(now)

    def _ask_starting_snapshot(self, now: float) -> None:
        """Ask for the snapshot that is the starting point whatever its seq: a host resumed
        from an older copy of its log numbers updates and pending ids again from that older
        point (§5, §11), so nothing buffered before is kept."""
        self._buffer.clear()
        self._private_ahead.clear()
        self._start_over = True
        self._ask_snapshot(now)

    def _another_game(self, welcome: Welcome) -> bool:
        """Whether a welcome after a reconnect is to another game than the first one."""
        first = self.welcome
        if self.game_id is not None and welcome.game != self.game_id:
            return True
        return first is not None and first.seed_commitment is not None \
            and welcome.seed_commitment is not None \
            and first.seed_commitment != welcome.seed_commitment

    def _on_snapshot(self, m: SnapshotMessage, now: float) -> None:
        self._requests.pop(m.get("id", -1), None)
        seq = int(m["seq"])
        start_over, self._start_over = self._start_over, False
        if self.synced and seq <= self.seq and not start_over:
            # Nothing new in it. The answer to the last request (request_snapshot with
            # nothing missed) ends the wait; an older one (a retried request) does not.
            if m.get("id") is not None and m.get("id") == self._snapshot_request:
                self._snapshot_asked = None
                self._apply_buffered(now)
            return
        if start_over and seq < self.seq:
            self._answered = None  # the host went back: it gives its pending ids out again
        history = list(m.get("events") or ())
        # A snapshot newer than what was applied, or the first after a welcome or a heartbeat
        # behind (an older one, the reply to a retried request, is dropped above): its
        # history must go on from what was witnessed.
        witness = self.witness
        if witness is not None and self.rewind is None:
            state = m.get("state") or {}
            raw_round = state.get("round")
            host_round = raw_round if isinstance(raw_round, int) else 0
            rewind = witness.check(history, host_round)
            if rewind is not None:
                self._rewound(rewind)
            else:  # it goes on from what was seen: the witness grows to it
                self.witness = witness.rebased(history, max(witness.round, host_round))
                if self.witness.round > witness.round:
                    self._save_witness()
        events = history
        known = len(self.events)
        if known > len(events) or (known and events[known - 1] != self.events[-1]):
            # The host's history is shorter than ours, or another one (a restarted host, which
            # does not tell chats, comings and goings from before its restart): start over.
            self.events = []
        new = events[len(self.events):]
        self.events = events
        self.seq = seq
        self.state = m["state"]
        self._snapshot_asked = None
        if self.connected:
            self.link = Link.LIVE
        placed: tuple[Message | None, ...] = ()
        private = m.get("private")
        if private is not None:
            # The snapshot's private events are every one so far (§6): each goes in its
            # public event's place; those held, or still to come, up to its seq are in it.
            self._private_ahead = {s: e for s, e in self._private_ahead.items() if s > seq}
            self._private_told = seq
            placed = place_private(private.get("events") or (), events)[0]
            placed = placed[len(events) - len(new):]
            if not any(placed):
                placed = ()
            self._set_private(private, seq, (), now)
        self._notices.append(Synced(seq))
        self._after_public(new, now, placed)
        self._apply_buffered(now)
        self._check_behind(now)

    def _set_private(self, m: Message, seq: int, events: tuple[Message, ...], now: float
                     ) -> None:
        self.private = {k: v for k, v in m.items() if k not in ("v", "t", "id", "events",
                                                               "pending", "seq")}
        if self.private.get("seat") is not None:
            self.seat = int(self.private["seat"])
        raw = m.get("pending")
        pending = None
        if raw is not None:
            deadline = raw.get("deadline_ms")
            pending = PendingDecision(
                id=int(raw["id"]), kind=str(raw["kind"]), detail=dict(raw.get("detail") or {}),
                legal=self._decode_legal(int(raw["id"]), raw.get("legal") or ()),
                deadline=None if deadline is None else now + deadline / 1000, seq=seq)
        self.pending = pending
        if seq <= self._private_told:
            events = ()  # told with a snapshot already
        elif events and seq > self.seq:
            # Ahead of the public update it goes with: told in that update's order.
            self._private_ahead[seq] = self._private_ahead.get(seq, ()) + events
            events = ()
        self._notices.append(PrivateUpdate(events, pending))
        self._check_behind(now)
        self._auto_answer(now)

    def _decode_legal(self, pending_id: int, raw: Sequence[Any]) -> tuple[Decision, ...]:
        cached = self._legal_cache
        if cached is not None and (cached[0] == pending_id or cached[1] == raw):
            self._legal_cache = (pending_id, cached[1], cached[2])
            return cached[2]
        legal = tuple(legal_decision(d) for d in raw)
        self._legal_cache = (pending_id, raw, legal)
        return legal

    def _check_behind(self, now: float) -> None:
        """A pending decision ahead of the public state starts the SYNC_GRACE_S grace."""
        if self.pending is None or self.pending.seq <= self.seq:
            self._behind_since = None
        elif self._behind_since is None:
            self._behind_since = now

    # -- public messages (§5) -------------------------------------------------------------------

    def _on_public(self, m: Message, now: float) -> None:
        t = m["t"]
        if t == "update":
            update = cast(UpdateMessage, m)
            seq = int(update["seq"])
            if self._snapshot_asked is not None or not self.synced:
                self._buffer[seq] = update
            elif seq <= self.seq:
                return  # already applied
            elif seq == self.seq + 1:
                self._apply_update(update, now)
                self._apply_buffered(now)
            else:  # a gap: something was missed
                self._buffer[seq] = update
                self._ask_snapshot(now)
        elif t == "heartbeat" and self.synced and self._snapshot_asked is None:
            seq = int(m["seq"])
            if seq > self.seq and seq not in self._buffer:
                self._ask_snapshot(now)  # the last update was lost
            elif seq < self.seq:
                # Behind what this client has seen, the link live: not the history it
                # followed (a host restarted without its log, or resumed from an older copy
                # of it). The snapshot's answer, whatever its seq, tells which game runs.
                self._ask_starting_snapshot(now)

    def _apply_update(self, m: UpdateMessage, now: float) -> None:
        changed = m["changed"]
        if not isinstance(changed, dict):
            raise TypeError("an update's 'changed' is a map")
        self.seq = int(m["seq"])
        # §5: the keys that changed replace ours; the others keep their values. A new map,
        # so that a state handed out before stays as it was.
        self.state = {**self.state, **changed}
        events = list(m.get("events") or ())
        self.events.extend(events)
        witness = self.witness
        if witness is not None and self.rewind is None:
            self.witness = witness.after(events, self._state_round())
            if self.witness.round > witness.round:
                self._round_witness()  # once a round: what a restarted client compares
        self._after_public(events, now)

    def _apply_buffered(self, now: float) -> None:
        for seq in sorted(self._buffer):
            if seq <= self.seq:
                del self._buffer[seq]
            elif seq == self.seq + 1:
                self._apply_update(self._buffer.pop(seq), now)
            else:
                self._ask_snapshot(now)  # still a hole
                return

    def _after_public(self, events: list[Message], now: float,
                      placed: tuple[Message | None, ...] = ()) -> None:
        private, late = self._private_in_place(events)
        private = placed or private  # a snapshot's (it drops those held up to its seq)
        if events:
            self._notices.append(PublicEvents(self.seq, tuple(events), private))
        if late:  # no public event of theirs among these: told after them
            self._notices.append(PrivateUpdate(late, self.pending))
        for event in events:
            self._watch_offers(event)
        self._check_behind(now)
        if self.result is None:
            result = result_from_wire(self.state.get("result"))
            if result is not None:
                self.result = result
                self._notices.append(GameOver(result))

    def _private_in_place(self, events: list[Message]
                          ) -> tuple[tuple[Message | None, ...], tuple[Message, ...]]:
        """The private events held for the updates up to :attr:`seq` put in their places
        among ``events`` (:func:`place_private`)."""
        held = [seq for seq in sorted(self._private_ahead) if seq <= self.seq]
        if not held:
            return (), ()
        return place_private([e for seq in held for e in self._private_ahead.pop(seq)],
                             events)

    def _watch_offers(self, event: Message) -> None:
        """Check one public event (§7, §15); a ``reveals`` event also spends the secret."""
        promised = self.welcome.seed_commitment if self.welcome is not None else None
        self._checks.event(event, self.game_id, self.seat, promised, self.contribution)
        if event.get("kind") == "reveals" and self.secret is not None \
                and self.secret.round <= int(event["round"]):
            self._set_secret(None)

    def _mismatch(self, rnd: int, seat: int, reason: str) -> None:
        notice = Mismatch(rnd, seat, reason)
        self.mismatches.append(notice)
        self._notices.append(notice)

    def _set_secret(self, secret: OfferSecret | None) -> None:
        self.secret = secret
        if self.on_secret is not None:
            self.on_secret(secret)
