"""Game records: everything needed to replay and check a game, as one JSON document.

A record holds the options and seed, the seats' names, every decision a seat made (in the
decision notation of docs/notation.md, with who made it), the commit-reveal data of every
networked offer, any violations, and the result. Replaying the decisions on a new game with
the same options reproduces the game card for card (R2.6). The format is documented in
docs/record.md.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from mundus_net.engine.decisions import Decision, RuleError
from mundus_net.engine.deck import Deck, deck_for_record, default_deck
from mundus_net.engine.game import Game, Options, Result

FORMAT = "mundus-record/1"


class RecordError(ValueError):
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
    def from_json(cls, text: str) -> GameRecord:
        from mundus_net.engine.notation import NotationError, parse_decision

        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"not a JSON document: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RecordError(f"not a game record (expected format {FORMAT!r})")
        try:
            # A record made before the rules correction names no edition: the first (R6.9).
            options = Options(**{"rules": 1, **data["options"]})
            decisions = []
            for index, (seat, text_, by) in enumerate(data["decisions"]):
                try:
                    _, decision = parse_decision(text_)
                except NotationError as exc:
                    raise RecordError(f"decision {index + 1} ({text_!r}): {exc}") from None
                decisions.append(RecordedDecision(int(seat), decision, str(by)))
            offers = [RecordedOffer(o["round"], o["seat"], o["commitment"],
                                    tuple(o["offer"]), o["nonce"]) for o in data["offers"]]
            result = None
            if data.get("result") is not None:
                r = data["result"]
                result = Result(tuple(r["winners"]), r["reason"], tuple(r["doubloons"]),
                                tuple(r["places"]), r["rounds"])
            return cls(game_id=str(data["game"]), options=options, deck=str(data["deck"]),
                       deck_digest=str(data.get("deck_digest", "")), names=list(data["names"]),
                       decisions=decisions, offers=offers,
                       violations=list(data.get("violations", [])), result=result,
                       meta=dict(data.get("meta", {})),
                       fairness=dict(data["fairness"]) if data.get("fairness") else None)
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, RecordError):
                raise
            raise RecordError(f"a field is missing or malformed: {exc!r}") from None

    def replay(self, deck: Deck | None = None, upto: int | None = None) -> Game:
        """The game after the first ``upto`` decisions (all by default)."""
        deck = deck or deck_for_record(self.deck_digest) or default_deck()
        if self.deck_digest and deck.digest != self.deck_digest:
            raise RecordError(f"the record was played with deck {self.deck!r} "
                              f"({self.deck_digest}), not {deck.name!r} ({deck.digest})")
        game = Game(self.options, deck)
        for index, rec in enumerate(self.decisions[:upto]):
            try:
                game.apply(rec.seat, rec.decision)
            except RuleError as exc:
                raise RecordError(f"decision {index + 1} (seat {rec.seat}) does not replay: "
                                  f"{exc}") from None
        return game
