"""What a client core tells its user: the notices that :meth:`ClientCore.notices
<mundus_net.client.core.ClientCore.notices>` and ``Connection.poll`` return, and the values
they carry (h11's ``_events.py`` is the model).

Each notice is a frozen dataclass, a subclass of :class:`Notice`; a user reads them in order
and matches on their type. :class:`Welcome` and :class:`PendingDecision` are here too: a
:class:`Joined` notice carries the welcome and a :class:`PrivateUpdate` the pending decision,
and both are what :meth:`Connection.connect` and :attr:`ClientCore.ready` hand back. The
module imports nothing of the client, so the terminal client, the bots and the tests read
notices without the core's protocol machinery, and the core imports them from here. The
notices whose words are the client's own are said in the reader's language here too
(:func:`rewind_sentence`, :func:`problem_sentence`), for the screen and ``mundus bot`` alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mundus_net.engine.decisions import Decision
from mundus_net.engine.deck import Deck
from mundus_net.engine.game import Result
from mundus_net.i18n import Translator, current

__all__ = [
    "OVER", "REPLACED", "SECRET_PHASES", "STOPPED", "TAKEN_OVER", "Accepted", "Closed",
    "GameOver", "Gone", "Joined", "Lost", "Mismatch", "Notice", "PendingDecision", "Pong",
    "PrivateUpdate", "Problem", "PublicEvents", "Refused", "Rewound", "Synced", "Welcome",
    "problem_sentence", "rewind_sentence",
]

SECRET_PHASES = {"commit": "offer", "reveal": "offer"}  # the offer step's pending kinds


# -- what notices carry -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Welcome:
    seat: int | None
    token: str | None
    game: str
    name: str
    players: int
    names: tuple[str, ...]
    options: dict[str, Any]
    deck: Deck
    pub_port: int
    heartbeat_ms: int
    host_key: str | None = None  # the CURVE key the host proved it holds (None: insecure)
    sign_key: str | None = None  # the Ed25519 key that signs the host's records (hex)
    seed_commitment: bytes | None = None  # the host's commitment to its seed (§15)
    invite: str | None = None  # the table's invite code, told to a seated player


@dataclass(frozen=True, slots=True)
class PendingDecision:
    """This seat's pending decision as the host sent it (§6)."""

    id: int
    kind: str  # an engine phase, or commit / reveal
    detail: dict[str, Any]
    legal: tuple[Decision, ...]
    deadline: float | None  # on the clock of the ``now`` it arrived with, or None
    seq: int  # the public update it goes with

    @property
    def phase(self) -> str:
        """The engine phase: commit and reveal are the offer step."""
        return SECRET_PHASES.get(self.kind, self.kind)


# -- the notices ----------------------------------------------------------------------------


class Notice:
    """Something that happened, returned by :meth:`ClientCore.notices` (and
    ``Connection.poll``)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Joined(Notice):
    welcome: Welcome
    resumed: bool  # True after a reconnect with the token


@dataclass(frozen=True, slots=True)
class Synced(Notice):
    """A snapshot was applied (after a join, a reconnect or a gap)."""

    seq: int


@dataclass(frozen=True, slots=True)
class PublicEvents(Notice):
    """New public events (each delivered once, in order) and the state they led to.

    ``private`` is empty, or as long as ``events``: at each index, this seat's own version of
    that event (its public part with its private part merged in: its dealt cards, its stored
    cards...) when the private message of the same update came first, else None. Read
    :meth:`as_seen` for the events in the engine's order as this seat sees them."""

    seq: int
    events: tuple[dict[str, Any], ...]
    private: tuple[dict[str, Any] | None, ...] = ()

    def as_seen(self) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
        """Each public event with this seat's version of it (None: it has no private part)."""
        private = self.private or (None,) * len(self.events)
        return list(zip(self.events, private, strict=True))


@dataclass(frozen=True, slots=True)
class PrivateUpdate(Notice):
    """This seat's private state changed. ``events``: private events whose public update was
    delivered before them (their private message came late); those that come first are
    delivered in place, in :attr:`PublicEvents.private`."""

    events: tuple[dict[str, Any], ...]
    pending: PendingDecision | None


@dataclass(frozen=True, slots=True)
class Accepted(Notice):
    request: str  # decide, commit, reveal, chat, bye, contribute
    id: int


@dataclass(frozen=True, slots=True)
class Refused(Notice):
    """An ``error`` from the host (§10); ``request`` is the request type it answers."""

    code: str
    message: str
    rule: str | None
    request: str | None
    id: int | None


@dataclass(frozen=True, slots=True)
class Pong(Notice):
    """The answer to :meth:`ClientCore.ping`: ``seconds`` of round trip on the caller's
    clock."""

    id: int
    seconds: float


@dataclass(frozen=True, slots=True)
class Mismatch(Notice):
    """A seat's reveal does not open its commitment, or differs from the offer the host
    revealed: the host (or that seat) cheated. ``seat`` -1 is the host's own seed
    commitment or the deal (§15)."""

    round: int
    seat: int
    reason: str


@dataclass(frozen=True, slots=True)
class Rewound(Notice):
    """The host came back at an earlier point of the game than this client saw, or with
    another history, or asked again for an offer this seat already revealed
    (docs/security.md, "A host that goes back in time"). ``kind`` is ``earlier``,
    ``another`` or ``offer_again``; ``sentence`` says it for people. The core decides nothing
    until its user chooses: :meth:`ClientCore.accept_rewind` goes on with the host's state
    (and says so at the table), or leave (``bye`` and ``close``)."""

    kind: str
    seen: int  # public events (of the chain) this client had witnessed
    host: int  # those in the host's history
    round: int  # the highest round this client had seen
    host_round: int  # the host's round now
    sentence: str


@dataclass(frozen=True, slots=True)
class Problem(Notice):
    """A local difficulty worth telling the user (e.g. a lost secret after a restart).
    ``message`` is a fixed English sentence marked for the catalogs (``N_``); ``detail``,
    when there is one, what went wrong as the program found it (an exception's text), shown
    after it untranslated."""

    message: str
    detail: str = ""


def problem_sentence(notice: Problem, t: Translator | None = None) -> str:
    """A :class:`Problem` in ``t``'s language (the current one by default), its detail
    kept."""
    t = t or current()
    if not notice.detail:
        return t._(notice.message)
    return t._("{problem}: {detail}").format(problem=t._(notice.message),
                                             detail=notice.detail)


def rewind_sentence(notice: Rewound, t: Translator | None = None) -> str:
    """What the client saw of a host that went back in time, in ``t``'s language (the
    notice's own sentence is the English one the client says at the table)."""
    t = t or current()
    if notice.kind == "earlier":
        return t._("The host went back in time: its game is at round {host_round}, event "
                   "{host}, but this client saw round {round}, event {seen}").format(
            host_round=notice.host_round, host=notice.host, round=notice.round,
            seen=notice.seen)
    if notice.kind == "offer_again":
        return t._("The host went back in time: it asks again for the offer of round "
                   "{round}, which this client already revealed").format(
            round=notice.host_round)
    return t._("The host's game is not the one this client saw: its history differs within "
               "the first {seen} events (round {round})").format(seen=notice.seen,
                                                                 round=notice.round)


@dataclass(frozen=True, slots=True)
class Lost(Notice):
    reason: str


@dataclass(frozen=True, slots=True)
class GameOver(Notice):
    result: Result


@dataclass(frozen=True, slots=True)
class Closed(Notice):
    reason: str


REPLACED = "replaced"
STOPPED = "stopped"
OVER = "over"
TAKEN_OVER = "taken_over"


@dataclass(frozen=True, slots=True)
class Gone(Notice):
    """The table is gone for good (:mod:`mundus_net.client.core` says when): ``why`` is
    :data:`REPLACED` (a new game runs at the address; this seat's token is dead and
    forgotten), :data:`STOPPED` (the host did not come back), :data:`OVER` (the game is over
    and the host stopped) or :data:`TAKEN_OVER` (another client sits in this seat now, with
    its token: this one stops reconnecting). The link closes right after (a :class:`Closed`
    follows)."""

    why: str
    detail: str
