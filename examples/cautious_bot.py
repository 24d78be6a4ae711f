"""An example bot for the bot SDK (docs/bots.md): cautious, simple, and deterministic.

It gives away as little as it can, takes the highest cards it is offered, and cashes in a
combination whenever it has one. Run it against the built-in bots from the repository's
root::

    mundus sim --bots examples.cautious_bot:CautiousBot,greedy,random,random --games 100
    mundus tournament --bots examples/cautious_bot.py:CautiousBot,random,random --games 90
    mundus bot --connect tcp://127.0.0.1:7700 --strategy examples.cautious_bot:CautiousBot
"""

from __future__ import annotations

from collections.abc import Sequence

from mundus_net.bots.sdk import PhaseBot, best, of_kind
from mundus_net.engine.decisions import (
    Announce,
    ChooseFirst,
    ChooseTradeMaster,
    Decision,
    EndTurn,
    Gift,
    MakePerfect,
    MakeRelicSet,
    MakeSeries,
    MakeSet,
    Offer,
    PickCards,
    PirateDiscard,
    Store,
    Take,
)
from mundus_net.engine.view import PlayerView


class CautiousBot(PhaseBot):
    """Offers and gives its lowest cards, takes the highest, keeps what it can."""

    # -- the supply step --------------------------------------------------------------------

    def on_pick(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        return best(of_kind(legal, PickCards), lambda d: sum(d.cards), self.rng)

    def on_pirates(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        return best(of_kind(legal, PirateDiscard), lambda d: -sum(d.cards), self.rng)

    # -- the trade step ----------------------------------------------------------------------

    def on_announce(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        return best(of_kind(legal, Announce), lambda d: -d.n)  # as few cards as possible

    def on_offer(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        # Fewest cards first (Las Casas may offer none), then the lowest.
        return best(of_kind(legal, Offer), lambda d: -100 * len(d.cards) - sum(d.cards),
                    self.rng)

    def on_tm_tie(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        return best(of_kind(legal, ChooseTradeMaster), lambda d: d.seat == view.seat, self.rng)

    def on_take(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        # The highest card, kept rather than swapped.
        return best(of_kind(legal, Take),
                    lambda d: (d.swap if d.swap is not None else d.card)
                    + (0.5 if d.swap is None else 0.0), self.rng)

    def on_gift(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        return best(of_kind(legal, Gift), lambda d: -d.card)

    def on_first(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        return ChooseFirst(view.seat or 0)

    # -- the progression step ----------------------------------------------------------------

    def on_turn(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        if MakePerfect() in legal:
            return MakePerfect()
        sets = of_kind(legal, MakeSet)
        if sets:  # the biggest set, aimed at the first queue position it may take
            return best(sets, lambda d: 10 * len(d.cards) - d.target, self.rng)
        series = of_kind(legal, MakeSeries)
        if series:
            return best(series, lambda d: len(d.cards), self.rng)
        relics = of_kind(legal, MakeRelicSet)
        if relics:
            return best(relics, lambda d: d.size)
        return EndTurn()

    def on_store(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        return best(of_kind(legal, Store), lambda d: 100 * len(d.cards) + sum(d.cards),
                    self.rng)
