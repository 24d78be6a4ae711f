"""Game records: everything needed to replay and check a game, as one JSON document.

A record holds the options and seed, the seats' names, every decision a seat made (in the
decision notation of docs/notation.md, with who made it), the commit-reveal data of every
networked offer, any violations, and the result. Replaying the decisions on a new game with
the same options reproduces the game card for card (R2.6). The format is documented in
docs/record.md.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from mundus_net.engine.decisions import Decision, RuleError
from mundus_net.engine.deck import Deck, deck_for_record, default_deck
from mundus_net.engine.errors import MundusError
from mundus_net.engine.game import Game, Options, Result

__all__ = ["FORMAT", "GameRecord", "RecordError", "RecordedDecision", "RecordedOffer"]

FORMAT = "mundus-record/1"


class RecordError(MundusError, ValueError):
    """A record that cannot be read or does not replay; the message says what and where."""


@dataclass(frozen=True, slots=True)
class RecordedDecision:
    seat: int
    decision: Decision
    by: str = "player"  # player, bot, default (timeout or violation)


@dataclass(frozen=True, slots=True)
class RecordedOffer:
    """One seat's commit-reveal in one offer step (hex strings for the bytes)."""

    round: int
    seat: int
    commitment: str
    offer: tuple[int, ...]
    nonce: str


@dataclass
class GameRecord:
    game_id: str
    options: Options
    deck: str = "default"
    deck_digest: str = ""
    names: list[str] = field(default_factory=list)
    decisions: list[RecordedDecision] = field(default_factory=list)
    offers: list[RecordedOffer] = field(default_factory=list)
    violations: list[dict[str, Any]] = field(default_factory=list)
    result: Result | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    # The fair deal (docs/record.md): seed commitment, host seed, contributions, deal digest.
    fairness: dict[str, Any] | None = None

    @classmethod
    def from_game(cls, game: Game, game_id: str, names: list[str] | None = None) -> GameRecord:
        """A record of a game played in-process: its non-automatic decisions, in order."""
        record = cls(game_id=game_id, options=game.options, deck=game.deck.name,
                     deck_digest=game.deck.digest, names=names or [], result=game.result)
        for event in game.log:
            if event.kind != "decision" or event.public["auto"]:
                continue
            seat = event.public["seat"]
            if "decision" in event.public:
                decision = event.public["decision"]
            else:
                assert event.private is not None
                decision = event.private[seat]["decision"]
            record.decisions.append(RecordedDecision(seat, decision, "player"))
        return record

    def to_json(self) -> str:
        from mundus_net.engine.notation import format_decision

        data: dict[str, Any] = {
            "format": FORMAT,
            "game": self.game_id,
            "options": asdict(self.options),
            "deck": self.deck,
            "deck_digest": self.deck_digest,
            "names": self.names,
            "decisions": [[d.seat, format_decision(d.decision), d.by] for d in self.decisions],
            "offers": [asdict(o) for o in self.offers],
            "violations": self.violations,
            "result": None if self.result is None else asdict(self.result),
            "meta": self.meta,
        }
        if self.fairness is not None:
            data["fairness"] = self.fairness
        return json.dumps(data, indent=1, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | bytes) -> GameRecord:
        """The record in ``text``, the file's text or its bytes (UTF-8). A RecordError says in
        plain words what is wrong: what kind of file it is when it is no record at all (a
        picture, a host's game log, a deck file, tournament results...), that it is empty or
        cut short, or which field of a damaged record is missing or malformed."""
        from mundus_net.engine.notation import NotationError, parse_decision

        if isinstance(text, (bytes, bytearray)):
            raw = bytes(text)
            kind = _binary_kind(raw)
            if kind is not None:
                raise RecordError(kind)
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise RecordError(_BINARY) from None
        if "\x00" in text:
            raise RecordError(_BINARY)
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(_not_json(text, exc)) from None
        except RecursionError:
            raise RecordError("it is damaged: its JSON is nested too deeply to be a game "
                              "record") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(_not_a_record(data))
        where = "its \"options\" field"
        try:
            # A record made before the rules correction names no edition: the first (R6.9).
            options = Options(**{"rules": 1, **data["options"]})
            _check_options(options)
            decisions = []
            for index, (seat, text_, by) in enumerate(data["decisions"]):
                where = f"decision {index + 1}"
                try:
                    _, decision = parse_decision(text_)
                except NotationError as exc:
                    raise RecordError(f"it is a damaged game record: decision {index + 1} "
                                      f"({text_}) cannot be read: {exc}") from None
                decisions.append(RecordedDecision(int(seat), decision, str(by)))
            offers = []
            for index, o in enumerate(data["offers"]):
                where = f"committed offer {index + 1}"
                offer = RecordedOffer(o["round"], o["seat"], o["commitment"],
                                      tuple(o["offer"]), o["nonce"])
                if not (_whole(offer.round) and _whole(offer.seat)
                        and all(_whole(v) for v in offer.offer)
                        and isinstance(offer.commitment, str) and isinstance(offer.nonce, str)):
                    raise ValueError("a field of the wrong type")
                offers.append(offer)
            where = "its result"
            result = None
            if data.get("result") is not None:
                r = data["result"]
                result = Result(tuple(r["winners"]), r["reason"], tuple(r["doubloons"]),
                                tuple(r["places"]), r["rounds"])
            where = "one of its fields"
            return cls(game_id=str(data["game"]), options=options, deck=str(data["deck"]),
                       deck_digest=str(data.get("deck_digest", "")), names=list(data["names"]),
                       decisions=decisions, offers=offers,
                       violations=list(data.get("violations", [])), result=result,
                       meta=dict(data.get("meta", {})),
                       fairness=dict(data["fairness"]) if data.get("fairness") else None)
        except RecordError:
            raise
        except KeyError as exc:
            key = exc.args[0] if exc.args else "?"
            if key in _FIELDS and key not in data:
                raise RecordError(f"it is a damaged game record: its \"{key}\" field is "
                                  "missing") from None
            raise RecordError(f"it is a damaged game record: {where} has no \"{key}\""
                              ) from None
        except (TypeError, ValueError, AttributeError):
            raise RecordError(f"it is a damaged game record: {where} is malformed") from None

    def replay(self, deck: Deck | None = None, upto: int | None = None) -> Game:
        """The game after the first ``upto`` decisions (all by default)."""
        deck = deck or deck_for_record(self.deck_digest) or default_deck()
        if self.deck_digest and deck.digest != self.deck_digest:
            raise RecordError(f"it was played with deck '{self.deck}' ({self.deck_digest}), "
                              f"not '{deck.name}' ({deck.digest}): give that deck with "
                              "--deck FILE")
        try:
            game = Game(self.options, deck)
        except RuleError as exc:
            raise RecordError(f"its options make no game: {exc}") from None
        for index, rec in enumerate(self.decisions[:upto]):
            try:
                game.apply(rec.seat, rec.decision)
            except RuleError as exc:
                raise RecordError(f"decision {index + 1} (seat {rec.seat}) does not replay: "
                                  f"{exc}") from None
        return game


# -- what a file is when it is not a record (the texts of RecordError) ------------------------

_FIELDS = ("format", "game", "options", "deck", "names", "decisions", "offers", "result")
_GAME_LOG_HINT = ("`mundus host --resume GAME` continues that game, and the game record is "
                  "the file `mundus host --record FILE` writes")
_BINARY = ("it is a binary file, not a game record (a game record is a JSON text file, as "
           "`mundus host --record FILE` and `mundus sim --records DIR` write them)")
# The first bytes of the kinds of files people give by mistake.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"SQLite format 3\x00", "it is a host's game log (the database `mundus host` keeps to "
                             f"resume a game after a crash), not a game record: {_GAME_LOG_HINT}"),
    (b"\x37\x7f\x06\x82", "it is the write-ahead file of a host's game log, not a game "
                         f"record: {_GAME_LOG_HINT}"),
    (b"\x37\x7f\x06\x83", "it is the write-ahead file of a host's game log, not a game "
                         f"record: {_GAME_LOG_HINT}"),
    (b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7", "it is the journal file of a host's game log, "
                                         f"not a game record: {_GAME_LOG_HINT}"),
    (b"\x89PNG\r\n\x1a\n", "it is a PNG picture, not a game record"),
    (b"\xff\xd8\xff", "it is a JPEG picture, not a game record"),
    (b"%PDF", "it is a PDF document, not a game record"),
    (b"\x1f\x8b", "it is compressed (gzip): unpack it first (gunzip FILE), then give the "
                  "record inside"),
    (b"PK\x03\x04", "it is a zip archive: unpack it first, then give the record inside"),
)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_options(options: Options) -> None:
    """ValueError unless every option has its type (the engine checks their ranges)."""
    if not (_whole(options.players) and _whole(options.seed) and _whole(options.rules)
            and isinstance(options.promo, bool)
            and (options.first_tm is None or _whole(options.first_tm))
            and (options.round_limit is None or _whole(options.round_limit))):
        raise ValueError("an option of the wrong type")


def _binary_kind(data: bytes) -> str | None:
    """The words for a file of a known binary kind, or None."""
    return next((words for magic, words in _MAGIC if data.startswith(magic)), None)


def _ran_out(text: str, exc: json.JSONDecodeError) -> bool:
    """Whether the text is the start of a JSON document that stops in the middle (a file cut
    short): an unclosed string, the end reached while more was expected, or a last word or
    number cut off ("tr", "1.")."""
    end = len(text.rstrip())
    if exc.msg.startswith("Unterminated string") or exc.pos >= end:
        return True
    rest = text[exc.pos:end]
    return any(word.startswith(rest) for word in ("true", "false", "null")) or bool(
        _NUMBER_START.fullmatch(rest))


_NUMBER_START = re.compile(r"-?\d*(\.\d*)?([eE][+-]?\d*)?")


def _not_json(text: str, exc: json.JSONDecodeError) -> str:
    stripped = text.strip()
    if not stripped:
        return "it is empty, so there is no game record in it"
    if stripped.startswith("mundus-deck"):
        return ("it is a deck file (docs/deck-format.md), not a game record: a deck is given "
                "with --deck FILE")
    head = stripped[:2000]
    if "<svg" in head:
        return "it is an SVG picture, not a game record"
    if stripped[0] in "{[":
        if _ran_out(text, exc):
            return (f"it is cut short: the record stops in the middle, at line {exc.lineno} "
                    "(the file was not written or copied to its end)")
        return (f"it is damaged: it is not a JSON document (it breaks at line {exc.lineno}, "
                f"column {exc.colno}: {exc.msg[:1].lower()}{exc.msg[1:]})")
    return ("it is not a JSON document, so not a game record (a game record is a JSON file, "
            "as `mundus host --record FILE` writes it)")


def _not_a_record(data: Any) -> str:
    """What a JSON document is when it is not a record of this format."""
    if not isinstance(data, dict):
        return ("it holds JSON, but not a game record (a game record is a JSON object with "
                f"\"format\": \"{FORMAT}\")")
    fmt = data.get("format")
    if isinstance(fmt, str):
        if fmt.startswith("mundus-record/"):
            return (f"it is a game record of format {fmt}, which this version of mundus-net "
                    f"does not read (it reads {FORMAT}): a newer version wrote it")
        if fmt.startswith("mundus-net/tokens/"):
            return "it is the file of seat tokens that `mundus join` keeps, not a game record"
        if fmt.startswith("mundus-net/known-hosts/"):
            return "it is the list of the hosts this computer trusts, not a game record"
        if fmt.startswith("mundus-net/host-key/"):
            return "it is a host's key file (keep it private), not a game record"
        return f"it is not a game record: its format is {fmt}, not {FORMAT}"
    if "summary" in data and "games" in data:
        return ("it is the results of a tournament (mundus tournament --json), not a game "
                "record: `mundus tournament --records DIR` writes the record of every game")
    if "per_bot" in data:
        return ("it is the summary of a run of games (mundus sim --json), not a game record: "
                "`mundus sim --records DIR` writes the record of every game")
    if "token" in data and "seat" in data:
        return "it is a bot's seat-token file (mundus bot --token-file), not a game record"
    return (f"it holds JSON, but not a game record (it has no \"format\": \"{FORMAT}\")")
