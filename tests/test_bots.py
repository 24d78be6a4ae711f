"""The built-in bots (random, greedy) and the bot registry (mundus_net.bots.base)."""

from __future__ import annotations

import ast
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from support.build import COMPILED

from mundus_net.bots import base, load_bot, strategy_names
from mundus_net.bots.base import Bot
from mundus_net.bots.greedy import GreedyBot, _among
from mundus_net.bots.random_bot import RandomBot
from mundus_net.engine.cards import VALUES
from mundus_net.engine.decisions import (
    END_TURN,
    Convert,
    Decision,
    MakePerfect,
    MakeRelicSet,
    MakeSeries,
    MakeSet,
)
from mundus_net.engine.game import Game
from mundus_net.engine.view import PlayerView
from mundus_net.tools.runner import play_game

# What a bot may read of its view: every public name of PlayerView.
PUBLIC_VIEW = frozenset(name for name in dir(PlayerView) if not name.startswith("_"))


class ViewProxy:
    """Forwards only PlayerView's public names; a private name (``_game``...) fails the
    test, an unknown one raises AttributeError as the real view would."""

    def __init__(self, view: PlayerView) -> None:
        object.__setattr__(self, "_view", view)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AssertionError(f"a bot read the view's private {name!r}")
        if name not in PUBLIC_VIEW:
            raise AttributeError(name)  # as PlayerView itself would
        return getattr(object.__getattribute__(self, "_view"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AssertionError(f"a bot tried to set {name!r} on its view")


class Checked:
    """Wraps a bot: it sees only a ViewProxy, and each answer must be in ``legal``. (A compiled
    bot takes a PlayerView only, so against the compiled build it sees the view itself: what
    the proxy checks is the source, which both builds share.)"""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.decisions = 0

    def decide(self, view: PlayerView, legal: Sequence[Decision]) -> Decision:
        assert legal
        before = list(legal)
        seen = view if COMPILED else ViewProxy(view)
        choice = self.bot.decide(seen, legal)  # type: ignore[arg-type]
        assert choice in legal, f"{choice!r} is not legal in phase {view.phase}"
        assert list(legal) == before, "the bot changed the legal list"
        self.decisions += 1
        return choice


@pytest.mark.parametrize(("players", "promo", "seed"), [
    (2, False, 1), (3, True, 2), (4, False, 3), (4, True, 4), (5, False, 5), (6, True, 6),
])
def test_greedy_and_random_always_answer_legally(players: int, promo: bool, seed: int) -> None:
    bots = [Checked(GreedyBot(seed * 10 + s) if s % 2 == 0 else RandomBot(seed * 10 + s))
            for s in range(players)]
    game = play_game(Game.new(players, seed, promo=promo), bots)
    assert game.is_over
    assert all(b.decisions > 0 for b in bots)


def test_greedy_games_among_themselves_end_and_answer_legally() -> None:
    for seed in range(3):
        bots = [Checked(GreedyBot(seed * 10 + s)) for s in range(4)]
        game = play_game(Game.new(4, seed), bots)
        assert game.result is not None
        assert game.result.rounds < 40


def _perturb_hidden(game: Game, seat: int, rng: random.Random) -> Game:
    """A copy of ``game`` that ``seat`` cannot tell apart from it: opponents' hands and
    stored cards swapped with draw-pile cards (sizes kept), the draw pile reshuffled."""
    other = game.copy()
    for s in range(other.players):
        if s == seat:
            continue
        for pile in (other.hands[s], other.stored[s]):
            for v in VALUES:
                for _ in range(pile[v]):
                    if other.draw and rng.random() < 0.7:
                        i = rng.randrange(len(other.draw))
                        w = other.draw[i]
                        other.draw[i] = v
                        pile[v] -= 1
                        pile[w] += 1
    rng.shuffle(other.draw)
    other.set_state(other.state())  # the cards moved: its legal lists worked out again
    return other


def blind_comparisons(game: Game, bots: Sequence[Any], rng: random.Random,
                      probe: Callable[[], Any], last_round: int | None = None) -> int:
    """Play ``game`` (to its end, or through ``last_round``); at seat 0's decisions with a
    choice (not offers or pirate discards), check that a bot made by ``probe`` (seat 0's
    kind, fresh: a built-in bot decides from the view and the question's seed alone) decides
    the same in the game and in a twin whose hidden cards differ, when its legal choices are
    the same there. Returns the decisions compared. Fresh bots rather than copies of seat 0's:
    compiled classes cannot be deep-copied, and so the check runs in both builds."""
    compared = 0
    views = [PlayerView(game, s) for s in range(game.players)]
    while not game.is_over and (last_round is None or game.round <= last_round):
        seat = game.waiting_seats()[0]
        legal = game.legal(seat)
        if seat == 0 and len(legal) > 1 and game.phase not in ("offer", "pirates"):
            twin = _perturb_hidden(game, 0, rng)
            if twin.legal(0) == legal:
                probe_a, probe_b = probe(), probe()
                a = probe_a.decide(views[0], legal)
                b = probe_b.decide(PlayerView(twin, 0), twin.legal(0))
                assert a == b, f"phase {game.phase}: {a} vs {b}"
                compared += 1
        game.apply(seat, bots[seat].decide(views[seat], legal))
    return compared


def test_greedy_decisions_do_not_depend_on_hidden_information() -> None:
    """At many decision points, greedy decides the same in a game whose hidden cards differ
    (and that its seat cannot tell apart), as long as its own legal choices are the same."""
    rng = random.Random(5)
    compared = 0
    for seed in range(3):
        bots = [GreedyBot(100 + s) for s in range(4)]
        compared += blind_comparisons(Game.new(4, seed), bots, rng, lambda: GreedyBot(100))
    assert compared > 30


def _play(bots: list[Bot], seed: int) -> Game:
    return play_game(Game.new(4, seed), bots)


@pytest.mark.parametrize("name", ["greedy", "random"])
def test_bots_with_the_same_seed_play_the_same_game(name: str) -> None:
    first = _play([load_bot(name, 40 + s) for s in range(4)], seed=9)
    second = _play([load_bot(name, 40 + s) for s in range(4)], seed=9)
    assert first.result == second.result
    assert [e for e in first.log] == [e for e in second.log]


def test_greedy_tie_breaks_follow_its_seed() -> None:
    results = {_play([load_bot("greedy", k * 4 + s) for s in range(4)], seed=3).result
               for k in range(4)}
    assert len(results) > 1


def test_greedy_beats_random() -> None:
    wins = 0.0
    for i in range(8):
        seat = i % 4
        bots = [load_bot("greedy" if s == seat else "random", 1000 + i * 4 + s)
                for s in range(4)]
        result = _play(bots, seed=200 + i).result
        assert result is not None
        if seat in result.winners:
            wins += 1 / len(result.winners)
    assert wins >= 6


def test_load_bot_by_name_and_by_module_class() -> None:
    assert {"greedy", "random"} <= set(strategy_names())
    assert isinstance(load_bot("greedy", 1), GreedyBot)
    assert isinstance(load_bot("random", 1), RandomBot)
    assert isinstance(load_bot("mundus_net.bots.greedy:GreedyBot", 1), GreedyBot)
    assert isinstance(load_bot("mundus_net.bots.random_bot:RandomBot", 1), RandomBot)
    game = Game.new(4, 0)
    view = PlayerView(game, game.waiting_seats()[0])
    a = load_bot("random", 7).decide(view, game.legal(view.seat or 0))
    b = load_bot("mundus_net.bots.random_bot:RandomBot", 7).decide(view, game.legal(view.seat or 0))
    assert a == b


@pytest.mark.parametrize(("spec", "message"), [
    ("nosuchbot", "unknown strategy 'nosuchbot'"),
    ("no_such_module_xyz:Bot", "cannot import 'no_such_module_xyz'"),
    ("mundus_net.bots.greedy:NoSuchClass", "has no 'NoSuchClass'"),
    ("builtins:str", "has no decide(view, legal) method"),
])
def test_load_bot_rejects_bad_specs(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_bot(spec, 0)


def test_greedy_values_storage_for_next_rounds_event() -> None:
    """In the storage step (after every progression turn, R6.9) the queue is final: greedy
    values kept cards for next round's event, queue card 1's icon (R3.2), unless it owns Juan
    de la Cosa (R3.4), and a pair by the best queue card a set of its class reaches; in the
    other steps storage is valued as for any round."""
    from mundus_net.bots.greedy import STORE_PAIR, STORE_QUEUE, store_worths

    events: set[str | None] = set()
    for seed in range(6):
        game = Game.new(4, seed)
        bots = [GreedyBot(seed * 4 + s) for s in range(4)]
        while not game.is_over:
            seat = game.waiting_seats()[0]
            view = PlayerView(game, seat)
            ctx = bots[seat].context(view)
            if game.phase != "store":
                assert ctx.next_event is None
                assert ctx.store_pair[1:] == [STORE_PAIR] * 3
            else:
                cosa = game.owner.get("cosa") == seat
                icon = game.deck[game.queue[0]].icon if game.queue else None
                assert ctx.next_event == (None if cosa else icon)
                events.add(ctx.next_event)
                pair, single, relic = store_worths(ctx.next_event)
                assert (ctx.store_single, ctx.store_relic) == (single, relic)
                assert all(pair * (1 - STORE_QUEUE) - 1e-9 <= p <= pair + 1e-9
                           for p in ctx.store_pair[1:])
                if ctx.next_event != "ST":  # a rare pair's set reaches any queue card
                    assert ctx.store_pair[3] == pytest.approx(pair)
            game.apply(seat, bots[seat].decide(view, game.legal(seat)))
    assert None in events and len(events) >= 2  # with an event and without


def test_the_registry_names_the_builtin_bots_without_importing_them() -> None:
    """bots/base.py knows the built-in strategies as "module:attr" (imported when a bot of
    that name is made): it imports no bot module, and each entry is a bot factory."""
    tree = ast.parse(Path(base.__file__).read_text("utf-8"))
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for a in node.names}
    assert not {m for m in imported if m and m.startswith("mundus_net.bots")}
    assert set(base.BUILTIN_BOTS) == {"random", "greedy", "search", "learned"} \
        <= set(strategy_names())
    for name, target in base.BUILTIN_BOTS.items():
        module_name, _, attr = target.partition(":")
        assert type(load_bot(name, 1)).__name__ == attr
        assert type(load_bot(name, 1)).__module__ == module_name



def test_greedys_test_of_a_turns_decision_among_the_legal_ones_agrees_with_in() -> None:
    """_among (greedy's `decision in legal` comparing within the decision's kind only) says
    what `in` says, for each legal decision of the progression turns of greedy games (as
    the same object and as an equal copy) and for decisions not in the list."""
    others: list[Decision] = [
        END_TURN, MakePerfect(), Convert(1, 2), Convert(9, 7), MakeSeries((1, 2, 3, 4)),
        MakeRelicSet(3), MakeSet(5, (5, 5, 5), 1), MakeSet(9, (10, 10, 10), 2)]
    checked = 0
    for seed in (1, 2):
        g = Game.new(4, seed)
        bots = [GreedyBot(seed * 4 + s) for s in range(4)]
        while not g.is_over:
            seat = g.waiting_seats()[0]
            legal = g.legal(seat)
            if g.phase == "turn":
                checked += 1
                for d in legal:
                    assert _among(d, legal) and _among(type(d)(*d), legal)
                for other in others:
                    assert _among(other, legal) == (other in legal)
            g.apply(seat, bots[seat].decide(PlayerView(g, seat), legal))
    assert checked > 50
