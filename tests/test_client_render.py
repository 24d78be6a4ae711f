"""Screen regions (client/tui/render.py): they fit their width, show the right cards and names,
and the whole screen is usable at 80x24."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.utils import get_cwidth
from support.positions import R, give, new_game, start_announce, start_takes, start_turn

from mundus_net.bots.random_bot import RandomBot
from mundus_net.client.tui import helptext, render
from mundus_net.client.tui.advisor import View
from mundus_net.engine.decisions import Announce
from mundus_net.engine.game import PHASES, Game, Pending
from mundus_net.engine.view import PlayerView, StateView
from mundus_net.protocol.codec import to_wire

NAMES = ["Ana", "Bartolomé the Long-Named", "Cy", "Dee", "Esmeralda", "Fu"]


def _regions(width: int) -> dict[str, Callable[[View], StyleAndTextTuples]]:
    return {
        "header": lambda v: render.header(v, NAMES, width),
        "queue": lambda v: render.queue(v, width),
        "market": lambda v: render.market(v, width),
        "players": lambda v: render.players(v, NAMES, width, [True, False] * 3),
        "hand": lambda v: render.hand(v, width),
        "stored": lambda v: render.stored(v, width),
        "prompt": lambda v: render.prompt(v, NAMES, width),
    }


def _views(seed: int, players: int, every: int = 11) -> Iterator[View]:
    """Views of a random game every few decisions: seat 0, a spectator, and seat 0 as the
    network client sees it."""
    g = Game.new(players, seed, promo=True)
    bots = [RandomBot(seed * 7 + s) for s in range(players)]
    step = 0
    while True:
        if step % every == 0 or g.is_over:
            view = PlayerView(g, 0)
            yield view
            yield PlayerView(g, None)
            yield StateView(to_wire(view.to_dict()), g.deck, list(view.legal))
        if g.is_over:
            return
        seat = g.waiting_seats()[0]
        g.apply(seat, bots[seat].decide(PlayerView(g, seat), g.legal(seat)))
        step += 1


def _assert_fits(formatted: StyleAndTextTuples, width: int, what: str) -> None:
    for line in render.lines_of(formatted):
        assert get_cwidth(line) <= width, f"{what}: {len(line)} > {width}: {line!r}"


@pytest.mark.parametrize("width", [80, 120])
def test_every_region_fits_its_width_over_random_games(width: int) -> None:
    regions = _regions(width)
    for seed, players in ((1, 6), (2, 4), (3, 2)):
        for view in _views(seed, players):
            for name, make in regions.items():
                _assert_fits(make(view), width, name)


@pytest.mark.parametrize(("width", "height"), [(80, 24), (120, 40), (160, 50), (60, 20)])
def test_whole_screen_fits_width_and_height(width: int, height: int) -> None:
    log = ["A rather long sentence about who took what from whom " * 3] * 40
    for view in _views(4, 6, every=23):
        formatted = render.screen(view, NAMES, width, height, log, [True] * 6)
        lines = render.lines_of(formatted)
        assert len(lines) <= height
        _assert_fits(formatted, width, "screen")


def test_80x24_with_six_players_keeps_the_decision_the_hand_and_a_few_log_lines() -> None:
    g = new_game(6, 2)
    start_turn(g, 0, (1, 1, 2, 3, 4, 5, 7, 9, R))
    log = [f"line {i}" for i in range(30)]
    lines = render.lines_of(render.screen(PlayerView(g, 0), NAMES, 80, 24, log))
    assert len(lines) == 24
    text = "\n".join(lines)
    assert lines[0].startswith("Round")
    assert "Hand 9:" in text
    assert "Your move: progression turn" in text
    assert sum(1 for line in lines if line.startswith("line ")) >= 3
    for name in ("Ana", "Cy", "Esmeralda"):
        assert name in text


def test_hand_is_grouped_by_value_coloured_by_class_and_relics_apart() -> None:
    g = new_game(4, 1)
    start_turn(g, 0, (1, 1, 5, 8, R, R))
    formatted = render.hand(PlayerView(g, 0), 80)
    text = render.to_plain(formatted)
    assert text.startswith("Hand 6:")
    assert "1 cocoa ×2" in text and "5 cotton" in text and "8 indigo" in text
    assert text.index("8 indigo") < text.index("|") < text.index("relic ×2")
    styles = {t: s for s, t, *_ in formatted}
    assert styles["1 cocoa ×2"] == "class:common"
    assert styles["5 cotton"] == "class:uncommon"
    assert styles["8 indigo"] == "class:rare"
    assert styles["relic ×2"] == "class:relic"


def test_hand_wraps_at_80_columns_rather_than_cutting() -> None:
    g = new_game(4, 1)
    start_turn(g, 0, (1, 2, 3, 4, 5, 6, 7, 8, 9, R))
    lines = render.lines_of(render.hand(PlayerView(g, 0), 60))
    assert len(lines) == 2
    assert "9 vanilla" in "".join(lines) and "relic" in lines[-1]


def test_queue_names_each_card_and_marks_what_the_best_set_reaches_R6_3() -> None:
    g = new_game(4, 1)
    start_turn(g, 0, (2, 2, 2, 2))  # 4 common cards: queue cards 1-3
    lines = render.lines_of(render.queue(PlayerView(g, 0), 80))
    assert len(lines) == 5
    for pos, (line, card_id) in enumerate(zip(lines, g.queue, strict=True), start=1):
        assert g.deck[card_id].name[:15] in line
        assert line[0] == ("*" if pos <= 3 else " ")
        assert line[1] == str(pos)


def test_queue_mark_under_storm_is_card_one_only_R6_3() -> None:
    g = new_game(4, 1)
    start_turn(g, 0, (9, 9, 9), event="ST")
    lines = render.lines_of(render.queue(PlayerView(g, 0), 120))
    assert [line[0] for line in lines] == ["*", " ", " ", " ", " "]


def test_players_table_shows_money_fleet_developments_tm_and_away() -> None:
    g = new_game(4, 1)
    give(g, 1, "D07", "D03", "D16", "D22", "D36")
    start_turn(g, 1, (1, 2, 3))
    g.doubloons[1] = 42
    text = render.to_plain(render.players(PlayerView(g, 0), NAMES, 80,
                                          connected=[True, True, False, True]))
    row = next(line for line in text.split("\n") if "Bartolom" in line)
    assert row.startswith("> ")  # Bo's turn
    assert "42" in row and "3+7=10" in row
    # At 80 columns the developments that do not fit are counted, none is cut inside.
    # (Almagro; the income +2/round is no development of its own)
    assert row.endswith("merch u · store 2 and 1 more") and "…" not in row.split("42")[1]
    wide = render.to_plain(render.players(PlayerView(g, 0), NAMES, 120))
    assert "merchants uncommon · warehouses 2 · Almagro · +2/round" in wide
    cy = next(line for line in text.split("\n") if "Cy" in line)
    assert "(away)" in cy
    ana = next(line for line in text.split("\n") if "Ana" in line)
    assert "TM" in ana


def test_take_prompt_says_what_a_take_is_and_rules_R5_5() -> None:
    g = new_game(4, 1)
    start_takes(g, {1: (5, 9), 2: (R,)}, taker=0, hands={0: (1,)})
    view = PlayerView(g, 0)
    text = render.to_plain(render.prompt(view, NAMES, 120))
    assert "Your move: take a card" in text and "R5.5" in text
    assert "keep it, or swap it for a market card" in text  # the cards: the choices below
    waiting = render.to_plain(render.prompt(PlayerView(g, 1), NAMES, 120))
    assert waiting.startswith("Waiting for Ana: take a card")


def test_a_started_table_without_the_seats_own_cards_yet_draws_without_them() -> None:
    """Under load the public snapshot of a started game can reach the client before the
    seat's private part (hand, stored cards): the table screen is drawn with an empty hand
    instead of failing (the lobby test once crashed the client there)."""
    for view in _views(6, 4, every=23):
        if view.seat is None:
            continue
        data = to_wire(view.to_dict())
        for private in ("hand", "stored", "my_offer"):
            data.pop(private, None)
        partial = StateView(data, view.deck)
        text = render.to_plain(render.screen(partial, NAMES, 80, 24, ["Round 1 begins"]))
        # (once over, the final standings: no hand is drawn, the game_over screen's test)
        assert "Hand 0:" in text if partial.pending is not None else "Final standings" in text


def test_every_style_class_used_is_in_the_style_table() -> None:
    known = {f"class:{name}" for name in render.STYLE_RULES}
    for view in _views(5, 5, every=17):
        formatted = render.screen(view, NAMES, 100, 30, ["<Ana> hi", "Bo took corn"])
        for style, *_ in formatted:
            for part in style.split():
                assert part in known, part
    render.make_style(True)
    render.make_style(False)


def test_no_color_and_dumb_terminals_turn_colour_off() -> None:
    assert render.use_color({"TERM": "xterm-256color"})
    assert not render.use_color({"TERM": "xterm", "NO_COLOR": "1"})
    assert not render.use_color({"TERM": "dumb"})


def test_to_plain_drops_styles() -> None:
    assert render.to_plain([("class:rare", "vanilla"), ("", " x2")]) == "vanilla x2"


def test_game_over_prompt_names_the_winner() -> None:
    g = Game.new(2, 3)
    bots = [RandomBot(1), RandomBot(2)]
    while not g.is_over:
        seat = g.waiting_seats()[0]
        g.apply(seat, bots[seat].decide(PlayerView(g, seat), g.legal(seat)))
    assert g.result is not None
    winner = g.result.winners[0]
    other = 1 - winner
    # Wide enough for the whole sentence whoever wins (seat 1's name is long on purpose).
    text = render.to_plain(render.prompt(PlayerView(g, other), NAMES, 120))
    assert text.startswith("Game over after")
    said = text.split("\nFinal standings")[0].replace("\n", " ")  # wrapped, never cut
    assert f"{NAMES[winner]} wins with {g.result.doubloons[winner]} doubloons" in said
    own = render.to_plain(render.prompt(PlayerView(g, winner), NAMES, 80))
    own_said = own.split("\nFinal standings")[0].replace("\n", " ")
    assert "You win with" in own_said and NAMES[winner] not in own_said


# -- help text (client/tui/helptext.py), shown beside the prompt -----------------------------------


@pytest.mark.parametrize("kind", [*PHASES, "commit", "reveal"])
def test_help_exists_for_every_pending_kind_with_rule_ids(kind: str) -> None:
    text = helptext.help_text(kind)
    rules = helptext.rules_for(kind)
    assert rules and all(re.fullmatch(r"R\d+\.\d+|P0\d", r) for r in rules), rules
    assert len(text) > 80 and f"Rules: {', '.join(rules)}." in text
    lines = helptext.help_lines(kind, 60)
    assert lines[0] == helptext.HELP[kind].title
    assert all(len(line) <= 60 for line in lines)


def test_take_help_names_the_trade_rules_R5_5_R5_6_R5_7_R5_10() -> None:
    assert {"R5.5", "R5.6", "R5.7", "R5.10"} <= set(helptext.rules_for("take"))
    assert helptext.rules_text("take") == "R5.5-R5.8, R5.10"
    assert helptext.rules_text("coronado") == "R3.3, R3.4, R1.4"


def test_help_rule_ids_exist_in_the_rules() -> None:
    rules = Path(__file__).resolve().parents[1] / "docs" / "rules.md"
    text = rules.read_text(encoding="utf-8")
    for kind in helptext.HELP:
        for rule in helptext.rules_for(kind):
            assert f"**{rule}" in text, (kind, rule)


def test_turn_help_mentions_the_event_that_applies_R3_4() -> None:
    g = new_game(4, 1)
    start_turn(g, 0, (1, 2, 3), event="ST")
    assert "This round: Storm" in helptext.help_text("turn", PlayerView(g, 0))
    give(g, 0, "D37")  # Juan de la Cosa: events do not touch his owner
    assert "does not affect you" in helptext.help_text("turn", PlayerView(g, 0))


def test_network_view_with_a_commit_pending_prompts_and_marks_every_waiting_seat_R5_3() -> None:
    g = new_game(4, 1)
    start_announce(g, {s: (1, 2, 3, 4, 5) for s in range(4)}, tm=0)
    g.apply(0, Announce(3))
    view = PlayerView(g, 0)
    data = to_wire(view.to_dict())
    data["phase"] = "commit"  # as client/connection.py builds it from the private state
    pending = Pending("commit", (0,), {"n": 3, "least": 3, "most": 3})
    wire = StateView(data, g.deck, list(view.legal), pending)
    text = render.to_plain(render.prompt(wire, NAMES, 80))
    assert text.startswith("Your move: choose an offer")
    assert "Choose exactly 3 cards" in text
    table = render.lines_of(render.players(wire, NAMES, 80))
    assert all(row.startswith("> ") for row in table[1:])
    assert render.lines_of(render.header(wire, NAMES, 80))[0].startswith(
        "Round 1 · Trade step: offers")


def test_wrapping_measures_cells_and_breaks_between_words() -> None:
    """Wide characters take two cells: lines are measured in cells, never cut with "…", and
    a word is broken only when it is wider than a whole line."""
    text = "Game over: 王小明 and Zoë share the victory with 84 doubloons (R8.4)"
    for width in (12, 20, 33, 80):
        lines = render.wrap(text, width, indent=2)
        assert all(get_cwidth(line) <= width for line in lines), lines
        assert " ".join(line.strip() for line in lines) == text
        assert not any("…" in line for line in lines)
    assert render.wrap("王小明王小明", 5) == ["王小", "明王", "小明"]
    styled = render.wrap_line([("", " "), ("class:group", "reaching queue cards 1-3"),
                               ("", ":")], 24, indent=4)
    assert ["".join(t for _, t in line) for line in styled] == [" reaching queue cards",
                                                                 "    1-3:"]


def test_status_pieces_are_whole_or_left_out() -> None:
    pieces = ["greedy 1 took tobacco from you",
              "Offers revealed: you cocoa, tobacco (4); greedy 1 corn, potatoes (9)",
              "F1 help", "F2 log", "F3 players"]
    assert render.fit_pieces(pieces, 80) == [
        "greedy 1 took tobacco from you · F1 help · F2 log · F3 players"]
    long = ["Refused: R5.5: you may not take a card from greedy 2 again (no ping-pong); "
            "choose another card"]
    assert render.fit_pieces(long, 80) == [
        "Refused: R5.5: you may not take a card from greedy 2 again (no ping-pong);",
        "  choose another card"]


@pytest.mark.parametrize("language", ["en", "it", "ru", "nl", "ko"])
def test_the_market_line_keeps_the_pile_sizes_at_80_columns(language: str) -> None:
    """Issue 36, item 10: the longest market names (Italian's canna da zucchero, granturco,
    vaniglia) do not push the pile sizes off the line: the market goes by value then."""
    from mundus_net.client.i18n import translator, use

    g = new_game(4, seed=3)
    g.market = [2, 6, 9]  # the three longest Italian names
    g.display = [1, 3, 5, 7]
    use(language)
    text = "\n".join(render.lines_of(render.market(PlayerView(g, 0), 80)))
    piles = translator(language)._(
        "  draw {draw} · discard {discard} · dev pile {developments}").split("{")[0].strip()
    assert piles in text and get_cwidth(text) <= 80, text
