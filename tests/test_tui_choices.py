"""The numbered choices in words (client/tui/choices.py), the full-screen pages (log, players)
and refusals in the player's terms: no terminal, seeded games."""

from __future__ import annotations

import re
import sys

import pytest

from mundus_net.bots.base import load_bot
from mundus_net.client.notices import PendingDecision, Synced
from mundus_net.client.tui.app import Send, Snapshot, TableModel, in_player_terms
from mundus_net.client.tui.choices import (
    Choice,
    by_number,
    choices_for,
    number_list,
    numbered,
    panel,
)
from mundus_net.client.tui.render import line_width, split_rows
from mundus_net.client.tui.sentences import card_name
from mundus_net.engine.decisions import (
    Convert,
    EndTurn,
    MakeRelicSet,
    MakeSeries,
    MakeSet,
    Take,
)
from mundus_net.engine.game import Game, Pending
from mundus_net.engine.notation import format_decision
from mundus_net.engine.view import PlayerView, StateView

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from tui_term import NOTATION_ONLY

NAMES = ("Ana", "greedy 1", "greedy 2", "greedy 3")


def view_of(game: Game, seat: int, **changes: object) -> StateView:
    """The seat's view as it comes over the network, with some fields changed."""
    pending = game.pending
    assert pending is not None
    data = PlayerView(game, seat).to_dict()
    data.update(changes)
    return StateView(data, game.deck, list(game.legal(seat)),
                     Pending(pending.kind, (seat,), pending.detail))


def every_question(seeds: range, players: int = 4):  # type: ignore[no-untyped-def]
    """(game, seat) at every decision of seeded games played by greedy bots."""
    for seed in seeds:
        game = Game.new(players, seed=seed, promo=seed % 2 == 1)
        bots = [load_bot("greedy", s) for s in range(players)]
        while not game.is_over:
            pending = game.pending
            assert pending is not None
            for seat in pending.seats:
                yield game, seat
            seat = pending.seats[0]
            game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))


def test_no_choice_of_any_step_is_notation_alone() -> None:
    kinds: set[str] = set()
    for game, seat in every_question(range(3)):
        view = view_of(game, seat)
        assert view.pending is not None
        kinds.add(view.pending.kind)
        for choice in choices_for(view, view.pending, game.legal(seat), NAMES):
            assert not NOTATION_ONLY.match(choice.words), (view.pending.kind, choice)
            assert not NOTATION_ONLY.match(choice.short), (view.pending.kind, choice)
            assert re.search(r"[a-z]{3}", choice.short), choice
    assert {"announce", "offer", "take", "turn", "first"} <= kinds


def test_every_listed_choice_is_legal_and_a_number_picks_it() -> None:
    for game, seat in every_question(range(2)):
        view = view_of(game, seat)
        legal = set(game.legal(seat))
        listed = choices_for(view, view.pending, game.legal(seat), NAMES)
        assert listed, view.pending
        for choice in listed:
            assert choice.decisions[0] in legal, choice


def _take_position() -> tuple[Game, int]:
    for game, seat in every_question(range(10)):
        if game.pending is not None and game.pending.kind == "take" and \
                any(isinstance(d, Take) and d.swap == d.card for d in game.legal(seat)):
            return game, seat
    raise AssertionError("no take with a same-value swap in ten games")


def test_take_choices_are_grouped_by_card_and_player_R5_5() -> None:
    game, seat = _take_position()
    view = view_of(game, seat)
    listed = choices_for(view, view.pending, game.legal(seat), NAMES)
    keeps = [c for c in listed if c.label == "keep it"]
    takes = {(d.seat, d.card) for d in game.legal(seat) if isinstance(d, Take)}
    assert len(keeps) == len(takes)  # one group per card on the table
    for choice in listed:
        d = choice.decisions[0]
        assert isinstance(d, Take) and choice.group is not None
        assert choice.group.endswith(f"from {NAMES[d.seat]}")


def test_a_swap_that_changes_nothing_is_not_listed_R5_5() -> None:
    game, seat = _take_position()
    view = view_of(game, seat)
    listed = [c.decisions[0] for c in choices_for(view, view.pending, game.legal(seat), NAMES)]
    assert not any(isinstance(d, Take) and d.swap == d.card for d in listed)
    useful = [d for d in game.legal(seat) if not (isinstance(d, Take) and d.swap == d.card)]
    assert listed == useful
    # Still typeable: the model sends it (the engine judges it).
    same = next(d for d in game.legal(seat) if isinstance(d, Take) and d.swap == d.card)
    model = _model(game, seat)
    action = model.interpret(format_decision(same))
    assert getattr(action, "decisions", None) == (same,)


def test_a_same_value_swap_that_pays_orellana_is_listed_R5_10() -> None:
    game, seat = _take_position()
    same = next(d for d in game.legal(seat) if isinstance(d, Take) and d.swap == d.card)
    orellana = next(c.id for c in game.deck.cards if c.power == "orellana")
    developments = [list(d) for d in PlayerView(game, seat).developments]
    developments[seat].append(orellana)
    # A market of three identical cards: the swap in keeps it so, and pays (R5.10).
    view = view_of(game, seat, developments=developments, market=[same.card] * 3)
    listed = choices_for(view, view.pending, game.legal(seat), NAMES)
    paying = [c for c in listed if c.decisions[0] == same]
    assert paying and "(+2, Orellana)" in paying[0].words


def _choice(n: int, group: str | None = None) -> Choice:
    return Choice((), f"choice number {n}", f"label {n}", group)


@pytest.mark.parametrize("width, room", [(80, 5), (80, 9), (50, 6), (120, 12)])
def test_the_panel_pages_whole_and_keeps_the_numbers(width: int, room: int) -> None:
    listed = [_choice(n, f"group {n // 4}") for n in range(60)]
    seen: list[int] = []
    first = panel(listed, "Choices (60):", width, room)
    assert first.pages > 1
    for page in range(first.pages):
        shown = panel(listed, "Choices (60):", width, room, page)
        assert len(shown.lines) <= room
        assert all(line_width(line) <= width for line in shown.lines)
        title = "".join(t for _, t in shown.lines[0])
        assert f"page {page + 1} of {first.pages}" in title
        text = "\n".join("".join(t for _, t in line) for line in shown.lines[1:])
        seen += [int(n) for n in re.findall(r"(\d+)\) label", text)]
    assert seen == list(range(1, 61))


def _model(game: Game, seat: int, **changes: object) -> TableModel:
    pending = game.pending
    assert pending is not None
    legal = tuple(game.legal(seat))
    ready = PendingDecision(id=17, kind=pending.kind, detail=dict(pending.detail), legal=legal,
                            deadline=None, seq=1)
    model = TableModel(address="tcp://127.0.0.1:7700")
    model.on_notice(Synced(1), Snapshot(view_of(game, seat, **changes), ready, NAMES,
                                        online=True, seat=seat))
    return model


def test_page_down_turns_the_pages_of_choices() -> None:
    game, seat = _take_position()
    model = _model(game, seat)
    model.draw(80, 23)  # 80x24 (the input line aside): the choices need pages
    if model.choice_pages < 2:
        pytest.skip("this take fits one page")
    model.page(+1)
    text = "\n".join("".join(t for _, t in r) for r in split_rows(model.draw(80, 23)))
    assert f"page 2 of {model.choice_pages}" in text


def test_the_log_page_shows_the_whole_log_a_screen_at_a_time() -> None:
    game, seat = _take_position()
    model = _model(game, seat)
    model.sentences = [f"sentence {i}" for i in range(100)]
    model.page(-1)  # PageUp with one page of choices: the log
    assert model.overlay == "log"
    newest = "\n".join("".join(t for _, t in r) for r in split_rows(model.draw(80, 23)))
    assert "sentence 99" in newest and "page" in newest
    model.page(-1)
    older = "\n".join("".join(t for _, t in r) for r in split_rows(model.draw(80, 23)))
    assert "sentence 99" not in older and "sentence 70" in older
    model.open_overlay(None)
    assert model.overlay is None


def test_the_players_page_names_every_development_in_full() -> None:
    game, seat = _take_position()
    long_name = max(game.deck.cards, key=lambda c: len(c.name))
    other = (seat + 1) % 4
    developments = [list(d) for d in PlayerView(game, seat).developments]
    developments[other].append(long_name.id)
    model = _model(game, seat, developments=developments)
    model.open_overlay("players")
    text = "\n".join("".join(t for _, t in r) for r in split_rows(model.draw(80, 23)))
    assert long_name.name in text
    assert all(name in text for name in NAMES if name != NAMES[seat])


def test_refusals_name_players_not_seat_numbers() -> None:
    assert in_player_terms("seat 2 has no such card on the table", NAMES, 0) == \
        "greedy 2 has no such card on the table"
    assert in_player_terms("it is seat 1's decision, not seat 0's", NAMES, 0) == \
        "it is greedy 1's decision, not yours"
    assert in_player_terms("no ping-pong: you may not take from seat 3 again", NAMES, 0) == \
        "no ping-pong: you may not take from greedy 3 again"


def test_nonsense_at_the_prompt_is_answered_in_words() -> None:
    game, seat = _take_position()
    model = _model(game, seat)
    said = model.interpret("banana")
    text = getattr(said, "text", "")
    assert "not something you can do here" in text and "unknown kind" not in text


# -- numbers a player can trust (issue 24, item 8) ----------------------------------------------


def _offer_like(n: int) -> Choice:
    """An ungrouped choice as long as an offer's words: two of them fit side by side in 80
    columns, not three."""
    return Choice((), f"corn + potatoes no. {n:>2} (worth 9)")


def _page_numbers(listed: list[Choice], width: int, room: int) -> list[list[int]]:
    first = panel(listed, f"Choices ({len(listed)}):", width, room)
    pages = []
    for page in range(first.pages):
        shown = panel(listed, f"Choices ({len(listed)}):", width, room, page)
        assert len(shown.lines) <= room
        assert all(line_width(line) <= width for line in shown.lines)
        # Read as a person does: down the first column, then down the next.
        rows = ["".join(t for _, t in line) for line in shown.lines[1:]]
        columns: dict[int, list[int]] = {}
        for row in rows:
            for m in re.finditer(r"(?<!\S)(\d+)\) (?=\S)", row):  # not "(worth 9) "
                columns.setdefault(m.start() // 30, []).append(int(m.group(1)))
        pages.append([n for col in sorted(columns) for n in columns[col]])
    return pages


@pytest.mark.parametrize("count", [15, 16, 30])
def test_pages_hold_the_choices_in_number_order(count: int) -> None:
    """At 80x24 the panel gets 8 rows (a title and 7): 15 choices in two columns of 8 rows
    once put 1-7 and 9-15 on page 1 and 8 alone on page 2."""
    listed = [_offer_like(n) for n in range(1, count + 1)]
    pages = _page_numbers(listed, 80, 8)
    assert len(pages) > 1
    assert [n for page in pages for n in page] == list(range(1, count + 1))
    for page in pages:  # each page a run of numbers, read down then across
        assert page == list(range(page[0], page[0] + len(page)))


def test_groups_and_single_choices_page_in_number_order() -> None:
    listed = [_choice(n, f"group {n // 3}" if n % 7 else None) for n in range(40)]
    pages = [panel(listed, "Choices (40):", 80, 6, page) for page in range(
        panel(listed, "Choices (40):", 80, 6).pages)]
    seen = [int(n) for shown in pages for line in shown.lines[1:]
            for n in re.findall(r"(\d+)\) ", "".join(t for _, t in line))]
    assert seen == list(range(1, 41))


def _second_turn_question() -> tuple[Game, int, Game]:
    """A progression turn whose seat makes a combination and is asked again: the game at the
    first question and at the second."""
    for game, seat in every_question(range(6)):
        if game.pending is None or game.pending.kind != "turn":
            continue
        before = game.copy()
        view = view_of(before, seat)
        listed = choices_for(view, view.pending, before.legal(seat), NAMES)
        combos = [c for c in listed if len(c.decisions) == 1 and c.number is None]
        if len(combos) < 2:
            continue
        after = before.copy()
        after.apply(seat, combos[0].decisions[0])
        if after.pending is not None and after.pending.kind == "turn" and \
                seat in after.pending.seats:
            return before, seat, after
    raise AssertionError("no progression turn with two questions in six games")


def _ask(model: TableModel, game: Game, seat: int, ident: int) -> None:
    pending = game.pending
    assert pending is not None
    ready = PendingDecision(id=ident, kind=pending.kind, detail=dict(pending.detail),
                            legal=tuple(game.legal(seat)), deadline=None, seq=ident)
    model.on_notice(Synced(ident), Snapshot(view_of(game, seat), ready, NAMES, online=True,
                                            seat=seat))


def test_end_the_turn_keeps_number_0_and_a_changed_list_is_said() -> None:
    before, seat, after = _second_turn_question()
    model = TableModel(address="tcp://127.0.0.1:7700")
    _ask(model, before, seat, 17)
    first = model.choices()
    assert model.interpret("0") == Send((EndTurn(),))
    assert model.changed == ""
    screen = "\n".join("".join(t for _, t in r) for r in split_rows(model.draw(80, 23)))
    assert " 0) end the turn" in screen
    model.sending(Send(first[0].decisions))
    _ask(model, after, seat, 18)  # the same turn asks again: fewer combinations
    second = model.choices()
    assert second != first
    assert model.interpret("0") == Send((EndTurn(),))
    # What is still possible keeps its number; what is new follows the highest before.
    earlier = {c.words: n for n, c in numbered(first)}
    now = numbered(second)
    assert [n for n, _ in now] == [*sorted(n for n, _ in now if n), 0]  # in number order
    kept = [(n, c) for n, c in now if c.words in earlier]
    assert all(earlier[c.words] == n for n, c in kept)
    assert all(n > max(earlier.values()) for n, c in now if c.words not in earlier)
    assert model.changed.startswith("The choices changed after your move: ")
    assert re.search(r": 1\b.* no longer possible", model.changed)  # 1 was made
    assert "0 still ends the turn" in model.changed
    if len(kept) > 1:
        assert "the others keep their numbers" in model.changed
    screen = "\n".join("".join(t for _, t in r) for r in split_rows(model.draw(80, 23)))
    assert "The choices changed after your move" in re.sub(r"\s+", " ", screen)
    for n, c in now:  # each shown with the number that picks it
        assert model.interpret(str(n)) == Send(c.decisions)
    said = getattr(model.interpret("1"), "text", "")
    if by_number(second, 1) is None:
        assert said.startswith(f"Choose {number_list(sorted(n for n, _ in now))},")


def test_a_number_keeps_its_meaning_while_the_question_stands() -> None:
    before, seat, after = _second_turn_question()
    model = TableModel(address="tcp://127.0.0.1:7700")
    _ask(model, before, seat, 17)
    first = list(model.choices())
    pending = before.pending
    assert pending is not None
    # The same question (id 17), with a view that would list other combinations: the list
    # shown stays, so a number typed now picks what the player read.
    ready = PendingDecision(id=17, kind="turn", detail=dict(pending.detail),
                            legal=tuple(before.legal(seat)), deadline=None, seq=2)
    changed = view_of(after, seat)
    assert choices_for(changed, changed.pending, ready.legal, NAMES) != first
    model.on_notice(Synced(2), Snapshot(changed, ready, NAMES, online=True, seat=seat))
    assert model.choices() == first
    assert model.interpret("1") == Send(first[0].decisions)


def _card_words(value: int) -> str:
    return "relic" if value == 10 else card_name(value)


def test_every_suggestion_names_every_card_it_uses() -> None:
    """A merchant's conversion names the card it turns; a set its value and its relics; a
    series every value: nothing used is left unsaid (the words are never cut on screen)."""
    checked = 0
    for game, seat in every_question(range(6)):
        if game.pending is None or game.pending.kind != "turn":
            continue
        view = view_of(game, seat)
        for choice in choices_for(view, view.pending, game.legal(seat), NAMES):
            words = choice.words
            for d in choice.decisions:
                if isinstance(d, Convert):
                    assert f"Convert {_card_words(d.source)} → {card_name(d.value)}" in words
                elif isinstance(d, MakeSeries):
                    assert all(card_name(c) in words for c in d.cards), words
                elif isinstance(d, MakeSet):
                    assert f"set of {len(d.cards)} " in words.lower(), words
                    relics = d.cards.count(10)
                    assert card_name(d.value) in words or relics == len(d.cards), words
                    if relics:
                        assert "relic" in words, words
                elif isinstance(d, MakeRelicSet):
                    assert f"Relic set of {d.size}" in words
                checked += 1
    assert checked > 100


# -- nothing a player must read is cut (issue 24, item 5) --------------------------------------


def _screen(model: TableModel, width: int, height: int) -> list[str]:
    rows = ["".join(t for _, t in row) for row in split_rows(model.draw(width, height - 1))]
    assert all(line_width([("", row)]) <= width for row in rows)
    return rows


def _finished(seed: int) -> Game:
    game = Game.new(4, seed=seed)
    bots = [load_bot("greedy", s) for s in range(4)]
    while not game.is_over:
        pending = game.pending
        assert pending is not None
        seat = pending.seats[0]
        game.apply(seat, bots[seat].decide(PlayerView(game, seat), game.legal(seat)))
    return game


def _over_model(game: Game, seat: int, **result: object) -> TableModel:
    data = PlayerView(game, seat).to_dict()
    data["result"] = {**data["result"], **result}
    model = TableModel(address="tcp://127.0.0.1:7700")
    model.on_notice(Synced(1), Snapshot(StateView(data, game.deck, [], None), None, NAMES,
                                        online=True, seat=seat))
    return model


def test_no_screen_of_any_question_cuts_a_word_at_80x24() -> None:
    """The main screen and the players page (F3) at every question of four seeded games
    (promo cards in two), and the game over: wrapped or said shorter, never cut with "…"."""
    for game, seat in every_question(range(4)):
        model = _model(game, seat)
        for page in (None, "players"):
            model.open_overlay(page)
            cut = [row for row in _screen(model, 80, 24) if "…" in row]
            assert not cut, (game.pending, page, cut)
    over = _over_model(_finished(3), 0)
    assert not [row for row in _screen(over, 80, 24) if "…" in row]


@pytest.mark.parametrize("width, height", [(80, 24), (120, 40)])
def test_the_final_standings_show_places_with_shared_ones(width: int, height: int) -> None:
    """R8.4: a tie for richest is a shared victory; the standings say "1 (tie)" for both,
    and the next player is third."""
    game = _finished(3)
    money = [60, 80, 80, 41]
    model = _over_model(game, 0, doubloons=money, winners=[1, 2], places=[3, 1, 1, 4])
    rows = _screen(model, width, height)
    start = rows.index("Final standings")
    head, *table = rows[start + 1:start + 6]
    assert re.match(r"Place +Player +Doubloons +Developments$", head)
    places = [re.split(r"\s{2,}", row)[:3] for row in table]
    assert places == [["1 (tie)", "greedy 1", "80"], ["1 (tie)", "greedy 2", "80"],
                      ["3", "Ana (you)", "60"], ["4", "greedy 3", "41"]]
    for seat, row in zip((1, 2, 0, 3), table, strict=True):
        count = len(PlayerView(game, seat).developments[seat])
        assert re.search(rf"\b{money[seat]}\s+{count}\b", row), row
    said = " ".join(rows[:start])
    assert "greedy 1 and greedy 2 share the victory with 80 doubloons" in re.sub(r"\s+", " ",
                                                                                 said)


def test_a_group_taller_than_a_page_goes_on_under_its_title() -> None:
    """Issue 36, item 7: a group's last choice never sits alone on a page without the group's
    title; pages hold whole groups, several to a page when they fit."""
    big = [Choice((), f"long words of choice {n}", f"queue {n}: a long development name",
                  "Set of 4 sugar cane (3 + 1 relic), reaching queue cards 1-5") for n in range(7)]
    small = [Choice((), f"small {n}", f"small {n}", f"group {g}") for g in range(3)
             for n in range(2)]
    listed = big + small
    first = panel(listed, "Suggestions (13):", 80, 5)
    pages = [panel(listed, "Suggestions (13):", 80, 5, page) for page in range(first.pages)]
    for shown in pages:
        rows = ["".join(t for _, t in line) for line in shown.lines[1:]]
        assert len(shown.lines) <= 5
        assert rows[0].startswith(" ") and not rows[0].startswith("    "), rows  # a title
    seen = [int(n) for shown in pages for line in shown.lines[1:]
            for n in re.findall(r"(\d+)\) ", "".join(t for _, t in line))]
    assert seen == list(range(1, 14))
    titles = [sum(1 for line in shown.lines[1:] if "".join(t for _, t in line).startswith(
        " group")) for shown in pages]
    assert max(titles) >= 2  # the small groups share a page
