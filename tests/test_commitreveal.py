"""host/commitreveal.py alone: commit-reveal's moves (docs/protocol.md §7) on a real engine,
with a wiring that records what the table would be told, and no table."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest
from support.positions import bot_step, random_bots

from mundus_net.engine.decisions import Decision, Offer
from mundus_net.engine.game import OFFER, Game
from mundus_net.engine.record import GameRecord
from mundus_net.host.commitreveal import CommitReveal, OfferWiring
from mundus_net.host.offerstep import OfferStage
from mundus_net.protocol.commitment import commit
from mundus_net.protocol.errors import ProtocolError

GAME_ID = "commit-reveal-test"
Told = tuple[Any, ...]


def offer_phase(players: int = 3, seed: int = 2) -> Game:
    """A seeded random game played up to its first offer step."""
    game = Game.new(players, seed)
    bots = random_bots(game, seed)
    for _ in range(2000):  # a deadline: the first offer step comes long before
        if game.phase == OFFER:
            return game
        bot_step(game, bots)
    raise AssertionError("no offer step in 2000 decisions")


class Wired:
    """The table's side of OfferWiring: plays on the engine, and keeps, in order, what it
    was told."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.record = GameRecord(game_id=GAME_ID, options=game.options)
        self.told: list[Told] = []
        self.offers = CommitReveal(OfferWiring(
            game=lambda: self.game, game_id=GAME_ID, record=self.record, emit=self.emit,
            after_reveal=self.after_reveal, play=self.play, recorded=self.recorded,
            after_change=self.after_change))
        self.offers.follow(game)

    def emit(self, event: dict[str, Any]) -> None:
        self.told.append(("emit", event["kind"], event.get("seat")))

    def after_reveal(self, event: dict[str, Any]) -> None:
        self.told.append(("after_reveal", event["kind"], sorted(event["reveals"])))

    def play(self, seat: int, decision: Decision, by: str) -> None:
        self.game.apply(seat, decision)
        self.told.append(("play", seat, by))

    def recorded(self, seat: int, decision: Decision, by: str) -> None:
        self.told.append(("recorded", seat, by))

    def after_change(self, answered: Iterable[int]) -> None:
        self.told.append(("after_change", tuple(answered)))


def stage(wired: Wired) -> OfferStage:
    """The step's stage, read anew (an inline read would stay narrowed for mypy)."""
    step = wired.offers.step
    assert step is not None
    return step.stage


def an_offer(game: Game, seat: int) -> Offer:
    return next(d for d in game.legal(seat) if isinstance(d, Offer))


def commit_all(wired: Wired, nonces: dict[int, bytes]) -> dict[int, Offer]:
    """Every asked seat commits to a legal offer (each ``ok`` sent, then its change made)."""
    step = wired.offers.step
    assert step is not None
    offers = {}
    for seat in step.asked:
        offers[seat] = an_offer(wired.game, seat)
        wired.offers.commit(seat, commit(GAME_ID, step.round, seat, offers[seat].cards,
                                         nonces[seat]))()
    return offers


def test_a_step_commits_opens_and_closes_publishing_in_order() -> None:
    wired = Wired(offer_phase())
    step = wired.offers.step
    assert step is not None and len(step.asked) >= 2
    nonces = {seat: bytes([seat + 1]) * 32 for seat in step.asked}
    offers = commit_all(wired, nonces)
    first, *_, last = step.asked
    assert stage(wired) is OfferStage.REVEAL
    committed = [t for t in wired.told if t[:2] == ("emit", "committed")]
    assert committed == [("emit", "committed", s) for s in step.asked]
    # The commitments are published once, after the last seat committed.
    assert wired.told.index(("emit", "commitments", None)) > wired.told.index(
        ("emit", "committed", last))
    for seat in step.asked:
        listed = next(d for d in wired.game.legal(seat) if d == offers[seat])
        later = wired.offers.reveal(seat, offers[seat].cards, nonces[seat], listed, "player")
        assert later is not None
        later()
    assert stage(wired) is OfferStage.DONE
    assert wired.told[-2:] == [("after_reveal", "reveals", sorted(map(str, step.asked))),
                               ("after_change", (last,))]
    assert [(o.seat, o.nonce) for o in wired.record.offers] == [
        (s, nonces[s].hex()) for s in step.asked]
    assert wired.record.violations == [] and first in step.revealed


def test_a_reveal_that_does_not_open_its_commitment_plays_the_default_offer() -> None:
    wired = Wired(offer_phase())
    step = wired.offers.step
    assert step is not None
    nonces = {seat: bytes([seat + 1]) * 32 for seat in step.asked}
    offers = commit_all(wired, nonces)
    breaker = step.asked[0]
    del wired.told[:]
    with pytest.raises(ProtocolError) as refused:
        wired.offers.reveal(breaker, offers[breaker].cards, bytes(32), None, "player")
    assert refused.value.code == "commit_mismatch"
    assert wired.told == [("emit", "violation", breaker), ("play", breaker, "default"),
                          ("after_change", (breaker,))]
    assert wired.record.violations == [{"round": step.round, "seat": breaker,
                                        "reason": "commit_mismatch", "phase": "reveal"}]
    assert step.broken == {breaker} and breaker not in step.revealed
    assert wired.record.offers == [] and stage(wired) is OfferStage.REVEAL


def test_a_host_bots_offer_stays_secret_until_every_seat_committed() -> None:
    wired = Wired(offer_phase())
    step = wired.offers.step
    assert step is not None
    bot, *others = step.asked
    wired.offers.commit_host_bot(bot, an_offer(wired.game, bot), bytes(32), "bot")
    assert step.commitments[bot] == commit(GAME_ID, step.round, bot,
                                           an_offer(wired.game, bot).cards, bytes(32))
    assert wired.told == [("emit", "committed", bot)] and wired.record.offers == []
    for seat in others:
        offer = an_offer(wired.game, seat)
        wired.offers.commit(seat, commit(GAME_ID, step.round, seat, offer.cards,
                                         bytes(32)))()
    # The last commitment opens the reveals, and the host's own offer with them.
    assert ("recorded", bot, "bot") in wired.told
    assert wired.told.index(("emit", "commitments", None)) < wired.told.index(
        ("recorded", bot, "bot"))
    assert [o.seat for o in wired.record.offers] == [bot] and bot in step.revealed
