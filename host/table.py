"""One table behind the protocol, without sockets (docs/protocol.md).

The server feeds a :class:`Table` decoded client messages (:meth:`Table.handle`, which
returns the reply), lets time pass (:meth:`Table.advance`: liveness, deadlines, host bots)
and sends what :meth:`Table.drain` returns: public updates for the PUB socket and private
messages for single connections, which the table's :attr:`Table.output` (host/updates.py)
makes; the public and private states are read there too. The clock is injected, so tests need
no sleeping, and every handler checks everything before it changes anything: a refused message
changes nothing.

The game log (host/gamelog.py) restores a table through its public replay interface only:
host/replay.py takes each logged input again through the handlers that made it (the
table's ``take_logged_seat``, ``set_seat_flags``, ``time_out``, ``play_host_bot``,
``answer_as``...), :meth:`Table.resume` continues its pending ids and update numbers after a
host restart, and :attr:`Table.next_pending_id` tells how many pending ids were handed out.

Connections are opaque ``bytes`` (the ROUTER identities); the seat token, not the connection,
is what lets a message act for a seat.
"""

from __future__ import annotations

import hmac
import secrets
import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from math import ceil
from typing import Any

from mundus_net.bots.base import Bot, load_bot
from mundus_net.engine.decisions import Decision, Offer, RuleError
from mundus_net.engine.deck import Deck, default_deck
from mundus_net.engine.defaults import default_decision
from mundus_net.engine.game import OFFER, RULES_EDITION, Game, Options, Pending, decision_phase
from mundus_net.engine.record import GameRecord, RecordedDecision
from mundus_net.engine.seeds import derive_seed
from mundus_net.engine.view import PlayerView
from mundus_net.host.commitreveal import CommitReveal, OfferWiring
from mundus_net.host.guard import (
    TAKE_OVER_BURST,
    TAKE_OVER_RATE,
    InviteGuard,
    SeatGuard,
    TokenBucket,
)
from mundus_net.host.logrows import Journal, bot_row
from mundus_net.host.offerstep import COMMIT, REVEAL, OfferStep
from mundus_net.host.updates import TableOutput, card_wire
from mundus_net.protocol import fairdeal
from mundus_net.protocol.codec import KIND_OF, decision_from_wire, decision_to_wire, to_wire
from mundus_net.protocol.commitment import new_nonce
from mundus_net.protocol.errors import ProtocolError
from mundus_net.protocol.invite import matches as invite_matches
from mundus_net.protocol.messages import DEFAULT_HEARTBEAT_MS
from mundus_net.protocol.names import DEFAULT_NAME, clean_name, unique_name
from mundus_net.protocol.signing import deal_digest, fairness_fields

Clock = Callable[[], float]
Message = dict[str, Any]
Later = Callable[[], None]  # the change a message makes, once its reply is sent

MISSED_HEARTBEATS = 5  # §11: silence for this many heartbeats marks a seat away
DEFAULT_BOT_SECONDS = 10.0
CONTRIBUTION_SECONDS = 30.0
STAND_IN_STRATEGY = "greedy"
MAX_SPECTATORS = 64  # connections watching at once (each may hold a snapshot in flight)
MAX_SPECTATOR_NAMES = 200  # spectator names told in the history (the first time each watches)
# Chat (docs/protocol.md §9): per seat, whatever its connections, a burst of CHAT_BURST lines
# then one every 1/CHAT_RATE seconds (the history keeps the last lines only: host/updates.py).
CHAT_RATE = 0.5
CHAT_BURST = 5.0
# Snapshots (§5) carry the whole history: per connection a burst of SNAPSHOT_BURST, then one
# every 1/SNAPSHOT_RATE seconds (a client asks on a join or a gap, and retries after three
# heartbeats), so that no peer can make the host rebuild and send it without end.
SNAPSHOT_RATE = 0.5
SNAPSHOT_BURST = 3.0
# Snapshots for spectators and strangers together (no token): only so many a second are made
# and queued for all of them (Table.snapshot_refusal; the server's socket asks it).
SNAPSHOTS_ALL_RATE = 20.0
SNAPSHOTS_ALL_BURST = 40.0
# The connection replayed messages come from: never a ZeroMQ identity (those are 5 bytes).
_REPLAY_CONN = b"\x00mundus-net/replay"


def error_message(err: ProtocolError) -> Message:
    return {"t": "error", "code": err.code, "message": err.message, "rule": err.rule}


@dataclass
class Seat:
    index: int
    name: str = ""
    token: str = ""
    taken: bool = False
    host_bot: Bot | None = None  # decided here, synchronously, never times out
    program: bool = False  # a host bot, or a client whose hello said bot=true
    conn: bytes | None = None
    client: str | None = None  # the client id its connection's hello gave (one per program)
    connected: bool = False
    last_seen: float = 0.0
    contribute: bool = False  # its client said it sends a contribution to the seed (§15)
    contribution: bytes | None = None
    away_since: float | None = None  # when its client was last marked away
    standing_in: bool = False  # host_bot is a stand-in for its absent player


@dataclass
class Conn:
    role: str  # "player" or "spectator"
    seat: int | None
    name: str
    last_seen: float = 0.0


@dataclass
class SeatPending:
    """What one seat is asked now; ``id`` is what its answer must name (§8)."""

    id: int
    kind: str
    detail: Any
    legal: list[Any]  # wire decisions, as sent
    deadline: float | None  # on the table's clock
    decisions: list[Decision] = field(default_factory=list, compare=False, repr=False)

    def lookup(self, wire: Any) -> Decision | None:
        """The decision of ``legal`` that ``wire`` is, exactly as it was sent, or None (the
        answer may still be legal: the engine judges it)."""
        if not _plain(wire):
            return None
        try:
            return self.decisions[self.legal.index(wire)]
        except ValueError:
            return None


def _plain(wire: Any) -> bool:
    """Whether ``wire`` is a map of text to ints, text, nil or arrays of ints and text (as
    every wire decision is). Types are exact, so that when such a map equals a legal
    decision, ``true`` or ``3.0`` did not stand in for ``1`` or ``3``."""
    if type(wire) is not dict:
        return False
    for name, value in wire.items():
        if type(name) is not str:
            return False
        kind = type(value)
        if kind is list:
            for item in value:
                if type(item) is not int and type(item) is not str:
                    return False
        elif kind is not int and kind is not str and value is not None:
            return False
    return True


@dataclass(frozen=True)
class TableSettings:
    """How a table plays, apart from its collaborators (deck, bots, clock, seed): each field
    is one setting of ``mundus host`` or of a restored log's ``create`` row."""

    promo: bool = False
    """Deal the promo cards too."""
    first_tm: int | None = 0
    """The seat of the first Trade Master (None: drawn by the seed)."""
    round_limit: int | None = None
    """End the game after this many rounds (None: only by the rules)."""
    rules: int = RULES_EDITION
    """The rules edition the engine plays (a log written before the correction plays 1)."""
    name: str = "Mundus table"
    """The table's name, told in the welcome and the beacon."""
    game_id: str | None = None
    """The game's id (None: a random one); it is in every commitment and record."""
    decision_seconds: float | None = None
    """A person's time for a decision; past it the default is played (None: no limit)."""
    bot_seconds: float = DEFAULT_BOT_SECONDS
    """A host bot's time for a decision; past it the default is played."""
    heartbeat_ms: int = DEFAULT_HEARTBEAT_MS
    """The heartbeat told to clients (§11); MISSED_HEARTBEATS of silence mark a seat away."""
    autostart: bool = True
    """Begin the game as soon as every seat is taken (False: ``begin`` is called)."""
    bot_pace: float = 0.0
    """Seconds between two host-bot moves, so that people can follow (0: no wait)."""
    pub_port: int = 0
    """The PUB port told in the welcome (0: none yet)."""
    fixed_seed: bool = False
    """The seed is the engine seed itself, the seats' contributions unmixed (needs a seed)."""
    contribution_seconds: float = CONTRIBUTION_SECONDS
    """A promised seed share (§15) that has not come this long after the last seat was taken
    is made by the host."""
    invite: str | None = None
    """Only those who know this code take a seat or watch (None: anyone)."""
    stand_in_after: float | None = None
    """A seat whose player has been away this long is played by a stand-in host bot until the
    player is back (None: never)."""


class TableStage(StrEnum):
    """The table's life cycle: seats are taken while it waits, ``begin`` deals and it
    plays, the game's end makes it over. Waiting -> playing -> over, never back."""

    WAITING = "waiting"
    PLAYING = "playing"
    OVER = "over"


class Table:
    """A game of Mundus Novus with its seats, as the host runs it."""

    def __init__(self, players: int, settings: TableSettings | None = None, *,
                 seed: int | None = None, deck: Deck | None = None, bots: Sequence[Bot] = (),
                 bot_names: Sequence[str] | None = None,
                 bot_seats: Sequence[int] | None = None, clock: Clock = time.monotonic,
                 host_seed: bytes | None = None) -> None:
        """``settings``: how the table plays (``TableSettings``; None: its defaults); the
        collaborators beside it: ``seed`` (fixes the host seed), the ``deck``, the host
        ``bots`` (their names and seats), the ``clock`` and a restored ``host_seed``."""
        settings = settings or TableSettings()
        self.settings = settings
        promo, first_tm, round_limit, rules = (settings.promo, settings.first_tm,
                                               settings.round_limit, settings.rules)
        name, game_id, decision_seconds = (settings.name, settings.game_id,
                                           settings.decision_seconds)
        bot_seconds, heartbeat_ms, autostart = (settings.bot_seconds, settings.heartbeat_ms,
                                                settings.autostart)
        bot_pace, pub_port, fixed_seed = settings.bot_pace, settings.pub_port, settings.fixed_seed
        contribution_seconds, invite, stand_in_after = (
            settings.contribution_seconds, settings.invite, settings.stand_in_after)
        if len(bots) > players:
            raise ValueError(f"{len(bots)} host bots do not fit at {players} seats")
        if decision_seconds is not None and decision_seconds <= 0:
            raise ValueError("decision_seconds must be positive")
        if bot_seconds <= 0:
            raise ValueError("bot_seconds must be positive")
        self.deck = deck or default_deck()
        # The deck as every welcome lists it (§4): the same for each, made once.
        self._deck_wire = [card_wire(asdict(c)) for c in self.deck.cards]
        self.name = name
        self.game_id = game_id or secrets.token_hex(8)
        # Fair deals (§15): the engine seed is derived at the start from this secret host
        # seed and every seat's contribution; the commitment is fixed (and told in every
        # welcome) before any contribution can arrive. ``seed`` fixes the host seed (tests,
        # replays); ``fixed_seed`` makes it the engine seed itself, contributions unmixed.
        # ``host_seed`` gives the 32 bytes themselves (a table restored from its log).
        if fixed_seed and seed is None:
            raise ValueError("fixed_seed needs a seed")
        if host_seed is not None:
            self.host_seed = bytes(host_seed)
        else:
            self.host_seed = fairdeal.new_host_seed() if seed is None \
                else fairdeal.host_seed_from_int(seed)
        self.fixed_seed = fixed_seed
        self.seed_commitment = fairdeal.seed_commitment(self.game_id, self.host_seed)
        # The identity the server's sockets prove (told in the welcome; None: insecure).
        self.host_key: str | None = None
        self.sign_key: str | None = None
        # Until the game starts, a game with the same options stands in (its seed is not
        # the game's: that is known only when every contribution is in). Nothing it dealt
        # goes on the wire: the public and private states (host/updates.py) tell the options and
        # seats only.
        options = Options(players, seed if fixed_seed and seed is not None else 0, promo,
                          first_tm, round_limit, rules)
        self.game = Game(options, self.deck)  # RuleError for impossible options
        self.decision_seconds = decision_seconds
        self.bot_seconds = bot_seconds
        self.heartbeat_ms = heartbeat_ms
        self.pub_port = pub_port
        self.autostart = autostart
        self.bot_pace = bot_pace
        # A promised share of the seed (§15) that does not come this long after the last seat
        # was taken is made by the host, as for seats that promised none: no client can hold
        # the start back.
        self.contribution_seconds = contribution_seconds
        # Only those who know it take a seat or watch (protocol/invite.py); None: anyone.
        # Guesses at it are limited per source address and in all (host/guard.py).
        self.invite = invite
        self.invite_guesses = InviteGuard(clock)
        # Take-overs and flag changes, per seat (docs/protocol.md §3; host/guard.py).
        self.seat_guard = SeatGuard(clock)
        # A seat whose player has been away this long is played by a stand-in host bot until
        # the player says hello again (None: never).
        self.stand_in_after = stand_in_after
        self._full_since: float | None = None
        self._clock = clock
        # The game log (host/gamelog.py): every input is written to it before it acts, and
        # committed before anything that depends on it leaves the table. None: no log.
        self.journal: Journal | None = None
        self.nonce_source: Callable[[], bytes] = new_nonce  # the host bots' offer nonces
        self._began = False  # read as started / stage
        self.record = GameRecord(game_id=self.game_id, options=options, deck=self.deck.name,
                                 deck_digest=self.deck.digest, meta={"table": name})

        now = clock()
        self.seats = [Seat(i) for i in range(players)]
        self._views = [PlayerView(self.game, s) for s in range(players)]  # the host bots'
        self._conns: dict[bytes, Conn] = {}
        self._spectator_names: set[str] = set()
        self._pending: dict[int, SeatPending] = {}
        self._next_id = 1
        self._next_bot_at = now

        self._snapshot_bucket: dict[bytes, TokenBucket] = {}  # per connection (host/guard.py)
        self._chat_bucket: dict[int, TokenBucket] = {}  # per seat
        self._snapshots_all: TokenBucket | None = None  # made on its first use, at its now
        # Per seat, the pending id of its last answer that got an ``ok``: the ok says that
        # this decision is answered, so no private message is sent only to clear it (§6).
        self._accepted: dict[int, int] = {}
        # What the table tells: its states, updates and private messages (host/updates.py).
        self.output = TableOutput(self, self.game, clock, self._accepted)
        # The offer steps' commit-reveal (host/commitreveal.py): the table checks and logs
        # each message, the moves are made there.
        self.offers = CommitReveal(OfferWiring(
            game=lambda: self.game, game_id=self.game_id, record=self.record, emit=self._emit,
            after_reveal=self.output.after_reveal, play=self._apply, recorded=self._recorded,
            after_change=self._after_change))
        # Wire forms of decisions (immutable, hashable) and of each seat's last legal list.
        self._wire_memo: dict[Decision, Message] = {}
        self._legal_wire: dict[int, tuple[list[Decision], list[Message]]] = {}

        self._handlers: dict[str, Callable[[bytes, Message], Message]] = {
            "hello": self._hello, "snapshot": self._snapshot, "chat": self._chat,
            "ping": self._ping, "bye": self._bye, "contribute": self._contribute,
        }
        # Answers to pending decisions: the reply, and the change when it can wait for it.
        self._answers: dict[str, Callable[[bytes, Message], tuple[Message, Later | None]]] = {
            "decide": self._decide, "commit": self._commit, "reveal": self._reveal,
        }
        names = list(bot_names or ())
        # The host bots take the first seats, or those given (``mundus play`` seats its player
        # first, so that each bot's number is its seat's).
        places = list(bot_seats) if bot_seats is not None else list(range(len(bots)))
        if len(places) != len(bots) or len(set(places)) != len(places) or \
                any(not 0 <= s < players for s in places):
            raise ValueError(f"bot seats {places} do not fit {len(bots)} bots at {players} seats")
        for index, bot in enumerate(bots):
            seat = self.seats[places[index]]
            seat.name = names[index] if index < len(names) else f"bot {places[index]}"
            seat.taken = seat.program = seat.connected = True
            seat.host_bot = bot
            self._emit({"kind": "joined", "seat": seat.index, "name": seat.name, "bot": True})
        self._maybe_start()

    # -- reading ------------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.game.players

    @property
    def over(self) -> bool:
        return self.game.is_over

    @property
    def started(self) -> bool:
        """Whether the game has begun (it may be over)."""
        return self._began

    @property
    def stage(self) -> TableStage:
        """Where the table is in its life cycle (waiting, playing, over)."""
        if not self._began:
            return TableStage.WAITING
        return TableStage.OVER if self.game.is_over else TableStage.PLAYING

    @property
    def names(self) -> list[str]:
        return [s.name if s.taken else "" for s in self.seats]

    @property
    def seq(self) -> int:
        """The number of the last public update (§5; ``output.seq``)."""
        return self.output.seq

    @seq.setter
    def seq(self, value: int) -> None:
        self.output.seq = value

    def free_seats(self) -> int:
        return sum(1 for s in self.seats if not s.taken)

    def knows(self, conn: bytes) -> bool:
        """Whether ``conn`` has said hello (a player's or a spectator's connection)."""
        return conn in self._conns

    def connections(self) -> list[bytes]:
        """Every joined connection (players and spectators): the host pings each."""
        return list(self._conns)

    def pending_of(self, seat: int) -> SeatPending | None:
        return self._pending.get(seat)

    @property
    def next_pending_id(self) -> int:
        """The id the next pending decision gets: every id below it was handed out (pending
        ids count from 1 and never repeat, §8)."""
        return self._next_id

    # Read-outs for observers (tests, tools): copies or read-only views, never the state.

    def pending_seats(self) -> dict[int, SeatPending]:
        """Every seat's pending decision now, by seat (a copy)."""
        return dict(self._pending)

    @property
    def offer_step(self) -> OfferStep | None:
        """The commit-reveal state of the offer step under way (§7), or None."""
        return self.offers.step

    def welcome(self, seat: int | None) -> Message:
        return {
            "t": "welcome", "seat": seat,
            "token": None if seat is None else self.seats[seat].token,
            "game": self.game_id, "name": self.name, "players": self.players,
            "names": self.names,
            "options": self.output.options_wire(),
            "deck": self._deck_wire,
            "pub_port": self.pub_port, "heartbeat_ms": self.heartbeat_ms,
            "host_key": self.host_key, "sign_key": self.sign_key,
            "seed_commitment": self.seed_commitment,
            "contribute": seat is not None and not self.started
            and self.seats[seat].contribute and self.seats[seat].contribution is None,
            # A seated player shows it in the lobby's join command (docs/security.md).
            **({"invite": self.invite} if seat is not None and self.invite is not None
               else {}),
        }

    # -- messages -----------------------------------------------------------------------------

    def handle(self, conn: bytes, message: Message) -> Message:
        """Answer one client message, already checked by ``protocol.decode_client``, and make
        the change it asks for."""
        reply, later = self.answer(conn, message)
        if later is not None:
            later()
        return reply

    def answer(self, conn: bytes, message: Message, source: str | None = None
               ) -> tuple[Message, Later | None]:
        """The reply to one client message, and the change it makes if that is not made yet.

        Every check is made before the reply is known. An answer that names its seat's
        current pending id and is exactly one of the legal decisions sent with it cannot be
        refused, so its ``ok`` does not wait for the engine: the change is returned, and the
        caller sends the reply, then calls it before the table does anything else (before
        the next message, a flush or a clock step). Everything else is done at once and
        returns None. ``source``: the address the message came from (invite guesses are
        counted per source), None when not known."""
        request_id = message.get("id")
        later: Later | None = None
        try:
            self._touch_conn(conn)
            kind = message["t"]
            answers = self._answers.get(kind)
            if answers is not None:
                reply, later = answers(conn, message)
            elif kind == "hello":
                reply = self._hello(conn, message, source)
            else:
                reply = self._handlers[kind](conn, message)
        except ProtocolError as err:
            reply = error_message(err)
        if request_id is not None:
            reply["id"] = request_id
        if self.journal is not None:
            self.journal.commit(self)  # what the reply tells is in the log before it leaves
        return reply, later

    def _hello(self, conn: bytes, m: Message, source: str | None = None) -> Message:
        # Printable, one line, no bidi overrides (protocol/names.py); made unique on a seat.
        name, token = clean_name(m["name"], DEFAULT_NAME), m.get("token")
        current = self._conns.get(conn)
        if self.invite is not None and token is None:  # a seat's token is proof enough
            given = m.get("invite")
            if given is None:
                raise ProtocolError("invite_needed", "this table is for the invited: ask the "
                                                     "host for its invite code")
            wait = self.invite_guesses.wait(source)
            if wait > 0:  # not compared: a guess that waits tells nothing
                raise ProtocolError("rate_limited", "too many wrong invite codes: the table "
                                                    f"looks at the next one in {ceil(wait)} s")
            if not invite_matches(self.invite, given):
                self.invite_guesses.wrong(source)
                raise ProtocolError("bad_invite", "that is not this table's invite code: ask "
                                                  "the host for it again")
            self.invite_guesses.right(source)
        if m["role"] == "spectator":
            if token is not None:
                raise ProtocolError("bad_field", "field 'token': a spectator has no token")
            if current is not None and current.role == "spectator":
                return self.welcome(None)  # a retried hello
            # Bounded, whoever floods the table with hellos from new connections: the
            # spectators at once, and the names the history tells (docs/security.md).
            if sum(1 for c in self._conns.values() if c.role == "spectator") >= MAX_SPECTATORS:
                raise ProtocolError("table_full", f"{MAX_SPECTATORS} spectators watch already")
            self._release_conn(conn)
            self._conns[conn] = Conn("spectator", None, name, self._clock())
            if name not in self._spectator_names and \
                    len(self._spectator_names) < MAX_SPECTATOR_NAMES:
                self._spectator_names.add(name)
                self._emit({"kind": "spectator", "name": name})
            return self.welcome(None)
        if token is not None:
            index = self._seat_of_token(token)
            if index is None:
                raise ProtocolError("bad_token", "no seat has this token")
            seat = self.seats[index]
            # What the hello changes of its seat, logged first (a restored table replays it).
            # A program's seat stays a program's once the game has begun: its questions keep
            # a deadline, whoever holds the token (docs/security.md, "A stolen token").
            program = seat.program if m.get("bot") is None or (self.started and seat.program) \
                else bool(m["bot"])
            contribute = seat.contribute if m.get("contribute") is None or self.started \
                else bool(m["contribute"])
            changed = (program, contribute) != (seat.program, seat.contribute)
            wait = self.seat_guard.flag_wait(index) if changed else 0.0
            if wait > 0:
                raise ProtocolError(
                    "rate_limited", f"seat {index}'s flags (bot, contribute) changed too often: "
                    f"the host takes the next change in {ceil(wait)} s (a hello that keeps "
                    "them as they are is welcome now)")
            self._check_seat_free(conn, seat, m)
            if changed:
                self.seat_guard.flags_changed(index)
                self._set_flags(seat, program, contribute)
            if m.get("bot") is not None:
                self.output.touch()
            self._attach(conn, index, client=m.get("client"))
            self._maybe_start()
            return self.welcome(index)
        if current is not None and current.seat is not None:
            return self.welcome(current.seat)  # a retried hello keeps its seat
        if self.started:
            raise ProtocolError("table_full", "the game has begun: every seat is taken")
        free = next((s for s in self.seats if not s.taken), None)
        if free is None:
            raise ProtocolError("table_full", f"all {self.players} seats are taken")
        name = unique_name(name, (s.name for s in self.seats if s.taken))
        self._take_seat(free.index, name, secrets.token_hex(16), bool(m.get("bot", False)),
                        bool(m.get("contribute", False)))
        self._attach(conn, free.index, first=True, client=m.get("client"))
        self._maybe_start()
        return self.welcome(free.index)

    def _check_seat_free(self, conn: bytes, seat: Seat, m: Message) -> None:
        """A seat's token in a hello while another live connection holds the seat: refused
        (``seat_in_use``), unless the hello comes from the same client program (its
        reconnect) or says ``take_over``. Then the connection that held it is told
        (``taken_over``) and forgotten: two clients never take a seat from each other in a
        loop, because the one taken over stops (docs/protocol.md §3). A connection or client
        program taken over is refused (``seat_in_use``) if it comes back while the seat is
        held, and take-overs are limited per seat (``rate_limited``: the seat stays with its
        holder; ``SeatGuard``, host/guard.py)."""
        holder = seat.conn
        if holder is None or holder == conn or not seat.connected:
            return
        client = m.get("client")
        same_client = client is not None and client == seat.client
        guard = self.seat_guard
        # The same client id as the holder's is its reconnect: only its connection is
        # looked up (the id may have been taken over before, then come back to a free seat).
        if guard.was_taken_over(seat.index, conn, None if same_client else client):
            guard.refused(seat.index, seat.name, "a client taken over came back")
            raise ProtocolError(
                "seat_in_use", f"this client was taken over from seat {seat.index} "
                f"({seat.name}), and another sits in it now: a client taken over stops for "
                "good (§3)")
        if not same_client and not m.get("take_over"):
            heard = max(0.0, self._clock() - seat.last_seen)
            raise ProtocolError(
                "seat_in_use", f"{seat.name} sits at seat {seat.index} already, from another "
                f"connection (heard {heard:.0f} s ago): say hello with take_over to take the "
                "seat over, or sit as a new player")
        wait = 0.0 if same_client else guard.take_over_wait(seat.index)
        if wait > 0:
            guard.refused(seat.index, seat.name, "too many take-overs")
            raise ProtocolError(
                "rate_limited", f"seat {seat.index} ({seat.name}) is being fought over: it "
                f"was taken over {TAKE_OVER_BURST:g} times at once, and then at most once "
                f"every {1 / TAKE_OVER_RATE:g} s, so it stays with the client that holds it; "
                f"the host takes the next take-over in {ceil(wait)} s")
        guard.taken_over(seat.index, holder, seat.client, by_take_over=not same_client)
        self.output.send(holder, {
            "t": "taken_over", "seat": seat.index,
            "message": f"another client took seat {seat.index} ({seat.name}) over with its "
                       "token" if not same_client else
                       f"this client program said hello for seat {seat.index} "
                       f"({seat.name}) from another connection: this one no longer acts for "
                       "the seat"})

    def _take_seat(self, index: int, name: str, token: str, program: bool,
                   contribute: bool) -> None:
        """A free seat is taken (logged first: a restored table gives it to the same token)."""
        self._write("seat", seat=index, name=name, token=token, bot=program,
                    contribute=contribute)
        seat = self.seats[index]
        seat.taken = True
        seat.name = name
        seat.token = token
        seat.program = program
        seat.contribute = contribute
        self._emit({"kind": "joined", "seat": index, "name": name, "bot": program})
        if self.free_seats() == 0:
            self._full_since = self._clock()

    def _set_flags(self, seat: Seat, program: bool, contribute: bool) -> None:
        """A seat's flags changed by a hello with its token (logged first)."""
        self._write("flags", seat=seat.index, bot=program, contribute=contribute)
        seat.program = program
        seat.contribute = contribute

    def snapshot_refusal(self, m: Message, unread: bool, now: float) -> Message | None:
        """The error reply to a snapshot request refused before the table looks at it, or
        None: ``unread`` (its connection has not read what it was sent: the server's socket
        knows), or no token and the snapshots for everyone together are spent. Every
        snapshot carries the history; a seat's own (its token checked by the table) is never
        held back by the others: there are at most six seats."""
        if unread:
            reply = error_message(ProtocolError(
                "rate_limited", "snapshots: this connection has not read what the host sent "
                                "it yet; ask again once it has"))
        elif "token" not in m and not self._snapshots_all_take(now):
            reply = error_message(ProtocolError(
                "rate_limited", f"snapshots: the host makes at most {SNAPSHOTS_ALL_RATE:g} a "
                                "second for everyone; ask again in a second"))
        else:
            return None
        if "id" in m:
            reply["id"] = m["id"]
        return reply

    def _snapshots_all_take(self, now: float) -> bool:
        if self._snapshots_all is None:
            self._snapshots_all = TokenBucket(SNAPSHOTS_ALL_RATE, SNAPSHOTS_ALL_BURST, now)
        return self._snapshots_all.take(now)

    def _snapshot(self, conn: bytes, m: Message) -> Message:
        self._joined(conn)
        now = self._clock()
        bucket = self._snapshot_bucket.get(conn)
        if bucket is None:
            bucket = self._snapshot_bucket[conn] = TokenBucket(SNAPSHOT_RATE, SNAPSHOT_BURST, now)
        if not bucket.take(now):
            raise ProtocolError("rate_limited", f"snapshots: at most {SNAPSHOT_BURST:g} at once, "
                                                f"then one every {1 / SNAPSHOT_RATE:g} seconds")
        seat = None
        if m.get("token") is not None:
            seat = self._seat_of_token(m["token"])
            if seat is None:
                raise ProtocolError("bad_token", "no seat has this token")
        return self.output.snapshot(seat, conn)

    def _decide(self, conn: bytes, m: Message) -> tuple[Message, Later | None]:
        seat = self._acting_seat(conn, m["token"])
        current = self._pending.get(seat)
        if current is not None and current.id == m["pending"] \
                and current.kind not in (COMMIT, REVEAL):
            listed = current.lookup(m["decision"])
            if listed is not None:
                # In the log (committed before the ok leaves) before the engine sees it.
                self._write("decide", seat=seat, pending=current.id, round=self.game.round,
                            decision=m["decision"], by=self._by(seat))
                self._accepted[seat] = current.id
                return {"t": "ok"}, lambda: self._apply_listed(seat, listed)
        decision = decision_from_wire(m["decision"])
        pending = self._current(seat, m["pending"])
        if pending.kind in (COMMIT, REVEAL) or isinstance(decision, Offer):
            raise ProtocolError("not_pending", f"the seat is asked to {pending.kind}; offers go "
                                               "through commit and reveal (§7)")
        if decision_phase(decision) != pending.kind:  # §10: another kind than the one asked
            raise ProtocolError("not_pending", f"the seat is asked {pending.kind}, not "
                                               f"{KIND_OF[type(decision)]}")
        mark = self._mark()
        self._write("decide", seat=seat, pending=pending.id, round=self.game.round,
                    decision=decision_to_wire(decision), by=self._by(seat))
        try:
            self.game.apply(seat, decision)
        except RuleError as err:
            self._undo(mark)  # refused: the row never reaches the log
            raise ProtocolError("illegal", str(err), rule=err.rule) from None
        self._recorded(seat, decision, self._by(seat))
        self._accepted[seat] = pending.id
        self._after_change((seat,))
        return {"t": "ok"}, None

    def _apply_listed(self, seat: int, decision: Decision) -> None:
        """Apply an answer found in the seat's legal list (its ``ok`` may be sent already)."""
        try:
            self.game.apply(seat, decision)
        except RuleError as err:  # the engine refused a decision it listed: a bug
            self._write("void", seat=seat)  # the logged decision did not happen
            self._after_change((seat,))  # a fresh pending id: the seat may answer again
            raise RuntimeError(f"the engine refused {decision!r}, one of its legal decisions "
                               f"for seat {seat}: {err}") from err
        self._recorded(seat, decision, self._by(seat))
        self._after_change((seat,))

    def _commit(self, conn: bytes, m: Message) -> tuple[Message, Later | None]:
        seat = self._acting_seat(conn, m["token"])
        pending = self._current(seat, m["pending"])
        if pending.kind != COMMIT:
            raise ProtocolError("commit_phase", f"the seat is asked to {pending.kind}, not to "
                                                "commit")
        step = self.offers.step
        assert step is not None
        commitment: bytes = m["commitment"]
        self._write("commit", seat=seat, pending=pending.id, round=step.round,
                    commitment=commitment.hex())
        later = self.offers.commit(seat, commitment)
        self._accepted[seat] = pending.id
        return {"t": "ok"}, later

    def _reveal(self, conn: bytes, m: Message) -> tuple[Message, Later | None]:
        seat = self._acting_seat(conn, m["token"])
        pending = self._current(seat, m["pending"])
        if pending.kind != REVEAL:
            raise ProtocolError("commit_phase", f"the seat is asked to {pending.kind}, not to "
                                                "reveal")
        step = self.offers.step
        assert step is not None
        offer, nonce = tuple(m["offer"]), m["nonce"]
        by = self._by(seat)
        # Logged whatever comes of it: a broken reveal changes the game too (§7).
        self._write("reveal", seat=seat, pending=pending.id, round=step.round,
                    offer=list(offer), nonce=nonce.hex(), by=by)
        later = self.offers.reveal(seat, offer, nonce,
                                   pending.lookup({"kind": "offer", "cards": list(offer)}), by)
        self._accepted[seat] = pending.id
        return {"t": "ok"}, later

    def _contribute(self, conn: bytes, m: Message) -> Message:
        """§15: a seat's random contribution to the engine seed, before the game starts.
        The first one counts; a repeat (a retried message) changes nothing."""
        seat = self.seats[self._acting_seat(conn, m["token"], decides=False)]
        if seat.contribution is not None:
            return {"t": "ok"}
        if self.started:
            raise ProtocolError("commit_phase", "the game has begun: the seed is fixed")
        self._write("contribute", seat=seat.index, value=bytes(m["value"]).hex())
        seat.contribution = bytes(m["value"])
        seat.contribute = True
        self._maybe_start()
        return {"t": "ok"}

    def _chat(self, conn: bytes, m: Message) -> Message:
        seat = self._acting_seat(conn, m["token"], decides=False)
        now = self._clock()
        bucket = self._chat_bucket.get(seat)
        if bucket is None:
            bucket = self._chat_bucket[seat] = TokenBucket(CHAT_RATE, CHAT_BURST, now)
        if not bucket.take(now):
            raise ProtocolError("rate_limited", f"chat: at most {CHAT_BURST:g} lines at once, "
                                                f"then one every {1 / CHAT_RATE:g} seconds a seat")
        self._emit({"kind": "chat", "seat": seat, "name": self.seats[seat].name,
                    "text": m["text"]})
        return {"t": "ok"}

    def _ping(self, conn: bytes, m: Message) -> Message:
        if m.get("token") is not None and self._seat_of_token(m["token"]) is None:
            raise ProtocolError("bad_token", "no seat has this token")
        if m.get("token") is not None and conn not in self._conns:
            # A seat's client this host does not know: the host restarted (it resumed its
            # game from the log) or forgot the connection. §11: it says hello again.
            raise ProtocolError("not_joined", "this connection has not said hello (the host "
                                              "may have restarted): say hello with the token")
        return {"t": "pong"}

    def _bye(self, conn: bytes, m: Message) -> Message:
        if m.get("token") is not None and self._seat_of_token(m["token"]) is None:
            raise ProtocolError("bad_token", "no seat has this token")
        self._release_conn(conn)
        return {"t": "ok"}

    # -- checks -------------------------------------------------------------------------------

    def _joined(self, conn: bytes) -> Conn:
        current = self._conns.get(conn)
        if current is None:
            raise ProtocolError("not_joined", "this connection has not said hello")
        return current

    def _seat_of_token(self, token: str) -> int | None:
        found = None
        for seat in self.seats:  # compare with every seat: the time says nothing
            if seat.token and hmac.compare_digest(seat.token, token):
                found = seat.index
        return found

    def _acting_seat(self, conn: bytes, token: str, decides: bool = True) -> int:
        """The seat a seat action acts for: the one its token proves, whatever the
        connection (§3); spectators may not act."""
        if self._joined(conn).role == "spectator":
            raise ProtocolError("spectator", "spectators may not act")
        seat = self._seat_of_token(token)
        if seat is None:
            raise ProtocolError("bad_token", "no seat has this token")
        if decides and self.over:
            raise ProtocolError("game_over", "the game is over")
        return seat

    def _current(self, seat: int, pending_id: int) -> SeatPending:
        pending = self._pending.get(seat)
        if pending is not None and pending.id == pending_id:
            return pending
        if pending is not None or pending_id < self._next_id:
            raise ProtocolError("stale", f"pending decision {pending_id} is not the seat's "
                                         f"current one"
                                + ("" if pending is None else f" ({pending.id})"))
        raise ProtocolError("not_pending", f"seat {seat} has nothing to decide now")

    def _by(self, seat: int) -> str:
        return "bot" if self.seats[seat].program else "player"

    # -- connections and liveness -------------------------------------------------------------

    def _touch_conn(self, conn: bytes) -> None:
        """Any message is a sign of life of the connection and its seat (§11)."""
        current = self._conns.get(conn)
        if current is None:
            return
        current.last_seen = self._clock()
        if current.seat is None:
            return
        seat = self.seats[current.seat]
        seat.last_seen = self._clock()
        if not seat.connected:
            seat.connected = True
            self._emit({"kind": "back", "seat": seat.index})
            if seat.standing_in:
                self.give_back(seat.index)

    def _attach(self, conn: bytes, index: int, first: bool = False,
                client: str | None = None) -> None:
        seat = self.seats[index]
        seat.client = client
        if seat.conn is not None and seat.conn != conn:
            self._conns.pop(seat.conn, None)  # the seat moved to a new connection
        current = self._conns.get(conn)
        if current is not None and current.seat is not None and current.seat != index:
            self._release_conn(conn)
        self._conns[conn] = Conn("player", index, seat.name, self._clock())
        if seat.standing_in:
            self.give_back(index)
        seat.conn = conn
        seat.last_seen = self._clock()
        self.output.send_whole_private(index)
        if not seat.connected:
            seat.connected = True
            if not first:
                self._emit({"kind": "back", "seat": index})

    def _release_conn(self, conn: bytes) -> None:
        self._snapshot_bucket.pop(conn, None)
        current = self._conns.pop(conn, None)
        if current is None or current.seat is None:
            return
        seat = self.seats[current.seat]
        if seat.conn == conn:
            seat.conn = None
            if seat.connected:
                seat.connected = False
                seat.away_since = self._clock()
                self._emit({"kind": "away", "seat": seat.index})

    def _check_liveness(self, now: float) -> None:
        limit = MISSED_HEARTBEATS * self.heartbeat_ms / 1000
        for seat in self.seats:
            if seat.host_bot is None and seat.connected and now - seat.last_seen > limit:
                seat.connected = False
                seat.away_since = now
                self._emit({"kind": "away", "seat": seat.index})
        # Silent spectators are forgotten (no event): the host stops pinging them, and
        # connections that come and go cannot pile up.
        for conn in [c for c, v in self._conns.items()
                     if v.role == "spectator" and now - v.last_seen > limit]:
            del self._conns[conn]

    # -- the game -----------------------------------------------------------------------------

    def _maybe_start(self) -> None:
        if self.autostart and not self.started and self.free_seats() == 0 and not any(
                s.contribute and s.contribution is None for s in self.seats):
            self.begin()

    def _deal(self) -> None:
        """§15: the engine seed from the host seed and every seat's contribution (the host
        makes one for host bots and for clients that sent none), and the real game."""
        values: list[tuple[bytes, str]] = []
        for seat in self.seats:
            if seat.contribution is not None:
                values.append((seat.contribution, "player"))
                continue
            # Derived from the secret host seed: as unpredictable to the players as random
            # bytes, and a table restored from its log makes the same ones again.
            made = fairdeal.host_contribution(self.host_seed, seat.index)
            values.append((made, "bot" if seat.host_bot is not None else "host"))
        mixed = not self.fixed_seed
        seed = fairdeal.engine_seed(self.game_id, self.host_seed, [v for v, _ in values], mixed)
        options = replace(self.game.options, seed=seed)
        self.game = Game(options, self.deck)
        self._views = [PlayerView(self.game, s) for s in range(self.players)]
        self.output.dealt(self.game)
        self.record.options = options
        self.record.fairness = fairness_fields(
            mixed=mixed, commitment_=self.seed_commitment, host_seed=self.host_seed,
            contributions=values, digest=deal_digest(self.game))
        self._emit({"kind": "fair_deal", "commitment": self.seed_commitment,
                    "mixed": mixed, "contributions": {
                        str(s): v for s, (v, _) in enumerate(values)}})

    def begin(self) -> None:
        """Start the game (every seat must be taken): ``started`` and the engine's events so
        far are published and the first decisions asked."""
        if self.started:
            return
        if self.free_seats():
            raise ValueError(f"{self.free_seats()} seat(s) are still free")
        self._deal()
        self._write("begin", options=asdict(self.game.options))  # the dealt seed
        self._emit({"kind": "started"})  # before the engine's first events
        self._began = True
        self.record.names = self.names
        self._after_change(())

    def _recorded(self, seat: int, decision: Decision, by: str) -> None:
        self.record.decisions.append(RecordedDecision(seat, decision, by))

    def _apply(self, seat: int, decision: Decision, by: str) -> None:
        self.game.apply(seat, decision)
        self._recorded(seat, decision, by)

    def _after_change(self, answered: Iterable[int]) -> None:
        """After any change: notice a new offer step, renew pending decisions, note the end."""
        self.output.touch()
        game = self.game
        if self.started:
            self.offers.follow(game)
        self._refresh_pending(set(answered))
        if game.is_over and self.record.result is None:
            self.record.result = game.result
            # §15: the host seed, now that it can tell nothing to come: anyone can check the
            # commitment and the seed (mundus verify does, from the record).
            self._emit({"kind": "seed_reveal", "host_seed": self.host_seed,
                        "seed": game.options.seed})

    def _ask(self, seat: int, pending: Pending | None,
             waiting: tuple[int, ...]) -> tuple[str, Any, list[Any]] | None:
        """What ``seat`` is asked now: (kind, detail, legal), or None. ``pending`` and
        ``waiting`` are the engine's, read once for all seats."""
        game = self.game
        if game.phase == OFFER:
            step = self.offers.step
            asked = None if step is None else step.asks(seat)
            if step is None or asked is None:
                return None
            kind = asked
            assert pending is not None
            least, most = pending.detail["sizes"][seat]
            detail = {"n": game.announced, "least": least, "most": most, "round": step.round}
            return kind, detail, self._legal_of(seat)
        if seat not in waiting:
            return None
        assert pending is not None
        return pending.kind, to_wire(pending.detail), self._legal_of(seat)

    def _legal_of(self, seat: int) -> list[Message]:
        """The wire form of ``seat``'s legal decisions: the previous list object while the
        engine's list is unchanged, so that an unchanged question costs no conversion."""
        legal = self.game.legal(seat)
        cached = self._legal_wire.get(seat)
        if cached is not None and cached[0] == legal:  # element identity: fast
            return cached[1]
        memo = self._wire_memo
        if len(memo) > 50_000:
            memo.clear()
        wire = []
        for decision in legal:
            value = memo.get(decision)
            if value is None:
                value = memo[decision] = decision_to_wire(decision)
            wire.append(value)
        self._legal_wire[seat] = (list(legal), wire)
        return wire

    def _refresh_pending(self, answered: set[int]) -> None:
        """A seat keeps its pending id while its question stays the same; a new question (or
        the same one again after it answered) gets a new id and a new deadline."""
        fresh: dict[int, SeatPending] = {}
        if self.started and not self.over:
            pending = self.game.pending
            waiting = self.game.waiting_seats()
            for seat in self.seats:
                if seat.host_bot is not None:
                    continue
                ask = self._ask(seat.index, pending, waiting)
                if ask is None:
                    continue
                kind, detail, legal = ask
                old = self._pending.get(seat.index)
                if old is not None and seat.index not in answered and old.kind == kind \
                        and old.detail == detail and (old.legal is legal or old.legal == legal):
                    fresh[seat.index] = old
                    continue
                seconds = self.bot_seconds if seat.program else self.decision_seconds
                deadline = None if seconds is None else self._clock() + seconds
                fresh[seat.index] = SeatPending(self._next_id, kind, detail, legal, deadline,
                                                self._legal_wire[seat.index][0])
                self._next_id += 1
        self._pending = fresh

    # -- time and host bots -------------------------------------------------------------------

    def advance(self, budget: int | None = None) -> bool:
        """Let time pass: mark silent seats away, play the default for overdue decisions and
        let host bots decide (at most ``budget`` decisions). True if host bots have more to do
        right now (the caller should come back without waiting)."""
        now = self._clock()
        self._check_liveness(now)
        if not self.started:
            self._contributions_due(now)
        if not self.started or self.over:
            return False
        self._stand_in_for_absent(now)
        self._apply_timeouts(now)
        done = 0
        while budget is None or done < budget:
            if self.bot_pace and now < self._next_bot_at:
                return False
            seat = self.bot_to_play()
            if seat is None:
                return False
            self.play_host_bot(seat)
            done += 1
            if self.bot_pace:
                self._next_bot_at = now + self.bot_pace
        return self.bot_to_play() is not None

    def _stand_in_for_absent(self, now: float) -> None:
        """Seats whose player has been away ``stand_in_after`` seconds get a stand-in."""
        if self.stand_in_after is None:
            return
        step = self.offers.step
        for seat in self.seats:
            if seat.host_bot is not None or seat.connected or not seat.taken or \
                    seat.away_since is None or now - seat.away_since < self.stand_in_after:
                continue
            if step is not None and step.owes_reveal(seat.index):
                continue  # its offer's secret is its client's: the reveal waits for it
            self.hand_to_stand_in(seat.index)

    def _stand_in_bot(self, index: int) -> Bot:
        """The stand-in of seat ``index``: greedy, seeded from the host seed and the seat, so
        a restored table plays it the same way."""
        seed = int.from_bytes(self.host_seed[:8], "big")
        return load_bot(STAND_IN_STRATEGY, derive_seed(seed, "stand-in", index))

    def hand_to_stand_in(self, index: int) -> None:
        """The seat of an absent player is played by a stand-in (logged first)."""
        seat = self.seats[index]
        self._write("stand_in", seat=index, on=True)
        seat.host_bot = self._stand_in_bot(index)
        seat.standing_in = True
        self._emit({"kind": "stand_in", "seat": index, "strategy": STAND_IN_STRATEGY})
        self._refresh_pending(set())  # its question goes to the stand-in
        self.output.touch()

    def give_back(self, index: int) -> None:
        """The player is back: the seat is theirs again (logged first)."""
        seat = self.seats[index]
        self._write("stand_in", seat=index, on=False)
        seat.host_bot = None
        seat.standing_in = False
        seat.away_since = None
        self._emit({"kind": "stand_in_end", "seat": index})
        self._refresh_pending({index})  # asked again, with a new pending id
        self.output.touch()

    def _contributions_due(self, now: float) -> None:
        """§15: seats whose promised contribution is overdue no longer hold the start: the
        host makes their share (logged as a change of the seat's flags, so a restored table
        does the same)."""
        if not self.autostart or self._full_since is None or self.free_seats() or \
                now - self._full_since < self.contribution_seconds:
            return
        late = [s for s in self.seats if s.contribute and s.contribution is None]
        for seat in late:
            self._write("flags", seat=seat.index, bot=seat.program, contribute=False)
            seat.contribute = False
            self._emit({"kind": "contribution_late", "seat": seat.index,
                        "seconds": self.contribution_seconds})
        if late:
            self._maybe_start()

    def next_wakeup(self) -> float | None:
        """The clock time of the next deadline or paced bot move, if any."""
        times = [p.deadline for p in self._pending.values() if p.deadline is not None]
        if not self.started and self._full_since is not None and any(
                s.contribute and s.contribution is None for s in self.seats):
            times.append(self._full_since + self.contribution_seconds)
        if self.bot_pace and self.bot_to_play() is not None:
            times.append(self._next_bot_at)
        return min(times) if times else None

    def _apply_timeouts(self, now: float) -> None:
        while not self.over:
            due = sorted((p.deadline, s) for s, p in self._pending.items()
                         if p.deadline is not None and p.deadline <= now)
            if not due:
                return
            seat = due[0][1]
            self._timeout(seat, self._pending[seat])

    def _timeout(self, seat: int, pending: SeatPending) -> None:
        """§8: the default decision for a seat that did not answer in time."""
        self._write("timeout", seat=seat, pending=pending.id, phase=pending.kind)
        if pending.kind == COMMIT:
            self.offers.time_out_commit(seat)  # its default offer: when the reveals open
        elif pending.kind == REVEAL:
            self.offers.time_out_reveal(seat)
        else:
            self._emit({"kind": "timeout", "seat": seat, "phase": pending.kind})
            self.record.violations.append({"round": self.game.round, "seat": seat,
                                           "reason": "timeout", "phase": pending.kind})
            self._apply(seat, default_decision(self.game, seat), "default")
            self._after_change((seat,))

    def bot_to_play(self) -> int | None:
        """A host-bot seat with something to decide now, or None."""
        game = self.game
        if not self.started or game.is_over:
            return None
        if game.phase == OFFER:
            step = self.offers.step
            if step is None:
                return None
            return step.next_to_commit(lambda s: self.seats[s].host_bot is not None)
        return next((s for s in game.waiting_seats() if self.seats[s].host_bot is not None),
                    None)

    def play_host_bot(self, seat: int, stand_in: Bot | None = None,
                  secret: bytes | None = None) -> None:
        """The host bot of ``seat`` decides (``stand_in`` decides for it, and ``secret`` is its
        offer's nonce, when a logged turn is replayed)."""
        bot = stand_in if stand_in is not None else self.seats[seat].host_bot
        assert bot is not None
        legal = self.game.legal(seat)
        raised = None
        try:
            choice = bot.decide(self._views[seat], legal)
        except Exception as exc:  # a broken strategy must not stop the table
            traceback.print_exc()
            choice = None
            raised = type(exc).__name__
            reason = f"bot failed ({raised})"
        else:
            reason = f"bot chose an illegal decision ({choice!r})"
        offering = self.game.phase == OFFER
        nonce = None
        if offering:
            nonce = secret if secret is not None else self.nonce_source()
        # Logged before it acts, with its offer's nonce: the log is private to the host, like
        # the tokens, and a restored table must open the same commitment.
        if self.journal is not None:
            self._write("bot", **bot_row(seat, self.game.round, choice, raised, nonce))
        if offering:
            assert nonce is not None
            offer = Offer(tuple(sorted(choice.cards))) if isinstance(choice, Offer) else None
            by = "bot"
            if offer is None or offer not in legal:
                by = "default"
                self._bot_failed(seat, reason)
                fallback = default_decision(self.game, seat)
                assert isinstance(fallback, Offer)
                offer = fallback
            self.offers.commit_host_bot(seat, offer, nonce, by)
        else:
            try:
                if choice is None:
                    raise RuleError("R7", reason)
                self._apply(seat, choice, "bot")
            except RuleError:
                self._bot_failed(seat, reason)
                self._apply(seat, default_decision(self.game, seat), "default")
        self._after_change((seat,))

    def _bot_failed(self, seat: int, reason: str) -> None:
        self._emit({"kind": "violation", "seat": seat, "reason": reason})
        self.record.violations.append({"round": self.game.round, "seat": seat,
                                       "reason": reason, "phase": self.game.phase})

    # -- the game log -----------------------------------------------------------------------

    def _write(self, kind: str, **data: Any) -> None:
        """A row of the game log (host/gamelog.py), written before the change it makes."""
        if self.journal is not None:
            self.journal.write(kind, data)

    def _mark(self) -> int:
        return 0 if self.journal is None else self.journal.mark()

    def _undo(self, mark: int) -> None:
        if self.journal is not None:
            self.journal.undo(mark)

    def commit_log(self) -> None:
        """Make every row written so far durable (the server's answers and drains do)."""
        if self.journal is not None:
            self.journal.commit(self)

    # -- replaying the game log (host/replay.py reads rows; these take them) ----------------

    def take_logged_seat(self, index: int, name: str, token: str, program: bool,
                         contribute: bool) -> None:
        """A logged ``seat`` row: the free seat ``index`` is taken with its logged token, and
        the game begins if it can (host/replay.py checks the seat is free)."""
        self._take_seat(index, name, token, program, contribute)
        self._maybe_start()

    def set_seat_flags(self, index: int, program: bool, contribute: bool) -> None:
        """A logged ``flags`` row: what a hello with a token changed of its taken seat."""
        self._set_flags(self.seats[index], program, contribute)
        self._maybe_start()

    def time_out(self, index: int) -> None:
        """A logged ``timeout`` row: the default is played for the seat's pending question
        (host/replay.py checks the seat is asked the logged one)."""
        self._timeout(index, self._pending[index])

    def answer_as(self, message: Message) -> tuple[Message, Later | None]:
        """:meth:`answer` for a seat's logged message, from a connection no client can have
        (the message's token says which seat it acts for)."""
        self._conns[_REPLAY_CONN] = Conn("player", None, "replay")
        try:
            return self.answer(_REPLAY_CONN, message)
        finally:
            self._conns.pop(_REPLAY_CONN, None)

    def resume(self, next_pending_id: int, seq: int) -> None:
        """The table goes on after a host restart (host/gamelog.py: a ``resumed`` row).

        Pending ids continue from ``next_pending_id`` and update numbers from ``seq`` (both
        past what the host handed out before it stopped, so that no answer or update from
        before is taken for a new one); every seat's question is asked again with a new id
        (and a new deadline); ``record.meta["resumed"]`` counts the restart. Returns None.
        Raises ValueError, changing nothing, when either number would go back."""
        if next_pending_id < self._next_id or seq < self.seq:
            raise ValueError(f"a resumed table goes on, never back: pending id "
                             f"{next_pending_id} (the next is {self._next_id}), update number "
                             f"{seq} (the last is {self.seq})")
        self._next_id = next_pending_id
        self.seq = seq
        self._pending = {}
        self._after_change(())
        self.record.meta["resumed"] = int(self.record.meta.get("resumed", 0)) + 1

    # -- outputs ------------------------------------------------------------------------------

    def _emit(self, event: Message) -> None:
        """A host event (§9), after the engine events that came before it."""
        self.output.emit(event)

    def drain(self) -> tuple[list[Message], list[tuple[bytes, Message]]]:
        """The public updates and the (connection, private message) pairs to send now."""
        self.output.flush()
        if self.journal is not None:
            self.journal.commit(self)  # what they tell is in the log before they leave
        return self.output.take()
