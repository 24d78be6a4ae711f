"""``mundus sim`` and mundus_net.tools.sim.run_sim."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from mundus_net.cli import main
from mundus_net.engine.deck import default_deck_text
from mundus_net.engine.seeds import bot_seed, game_seed
from mundus_net.tools.progress import ProgressReport
from mundus_net.tools.results import REASONS, wilson
from mundus_net.tools.sim import format_summary, run_sim

FOUR_RANDOM = ["random"] * 4


def test_same_seed_same_summary() -> None:
    a = run_sim(4, FOUR_RANDOM, 6, seed=11)
    b = run_sim(4, FOUR_RANDOM, 6, seed=11)
    assert json.dumps(a) == json.dumps(b)
    c = run_sim(4, FOUR_RANDOM, 6, seed=12)
    assert json.dumps(a) != json.dumps(c)


def test_seeds_derive_from_the_master_seed_and_the_game_index() -> None:
    assert game_seed(7, 3) == game_seed(7, 3)
    assert len({game_seed(7, i) for i in range(50)}) == 50
    assert game_seed(7, 0) != game_seed(8, 0)
    assert bot_seed(7, 0, 1) != bot_seed(7, 0, 2)
    assert game_seed(7, 0) == 7732908979887315085  # stable across runs and versions


def test_summary_fields() -> None:
    s = run_sim(3, ["greedy", "random", "random"], 4, seed=2)
    for key in ("players", "bots", "games", "seed", "rotate", "promo", "round_limit", "deck",
                "shared_victories", "per_bot", "by_name", "per_seat", "mean_rounds",
                "min_rounds", "max_rounds", "end_reasons"):
        assert key in s
    assert s["players"] == 3 and s["games"] == 4 and s["bots"] == ["greedy", "random", "random"]
    assert set(s["end_reasons"]) == set(REASONS)
    assert sum(s["end_reasons"].values()) == 4
    assert sum(b["wins"] for b in s["per_bot"]) == pytest.approx(4)
    assert sum(p["wins"] for p in s["per_seat"]) == pytest.approx(4)
    for b in s["per_bot"]:
        assert set(b) == {"index", "bot", "wins", "win_rate", "win_rate_ci95",
                          "mean_doubloons", "mean_place"}
        lo, hi = b["win_rate_ci95"]
        assert 0 <= lo <= b["win_rate"] <= hi <= 1
    assert s["by_name"]["random"]["seats"] == 2
    assert s["by_name"]["random"]["wins"] == pytest.approx(
        s["per_bot"][1]["wins"] + s["per_bot"][2]["wins"])
    assert s["min_rounds"] <= s["mean_rounds"] <= s["max_rounds"]
    text = format_summary(s, elapsed=1.0)
    assert "win rate" in text and "games/s" in text and "1/k" in text
    assert "games/s" not in format_summary(s)


def test_rotation_moves_the_bots_around_the_table() -> None:
    fixed = run_sim(4, ["greedy", *FOUR_RANDOM[1:]], 4, seed=3)
    rotated = run_sim(4, ["greedy", *FOUR_RANDOM[1:]], 4, seed=3, rotate=True)
    assert rotated["rotate"] is True
    # Greedy wins (nearly) everything: without rotation from seat 0, with it from every seat.
    assert fixed["per_seat"][0]["wins"] >= 3
    assert all(p["wins"] >= 0.5 for p in rotated["per_seat"])


def test_round_limit_and_promo() -> None:
    s = run_sim(4, FOUR_RANDOM, 3, seed=1, round_limit=2, promo=True)
    assert s["max_rounds"] <= 2
    assert s["end_reasons"]["round_limit"] == 3
    assert s["promo"] is True and s["round_limit"] == 2


def test_deck_file(tmp_path: Path) -> None:
    text = default_deck_text()
    path = tmp_path / "mine.deck"
    path.write_text(text, encoding="utf-8")
    s = run_sim(4, FOUR_RANDOM, 2, seed=1, deck=path)
    assert s["deck"] == "mine"
    assert json.dumps({**s, "deck": "default"}) == json.dumps(run_sim(4, FOUR_RANDOM, 2, seed=1))


@pytest.mark.parametrize(("bots", "message"), [
    (["random", "random"], "4 players need 4 bots"),
    (["random"] * 5, "4 players need 4 bots"),
    (["random", "random", "random", "nosuchbot"], "unknown strategy 'nosuchbot'"),
    (["random", "random", "random", "no_such_module_xyz:Bot"], "cannot import"),
])
def test_run_sim_rejects_bad_bots(bots: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        run_sim(4, bots, 1)


def test_run_sim_rejects_bad_numbers() -> None:
    with pytest.raises(ValueError, match="2 to 6 players"):
        run_sim(7, ["random"] * 7, 1)
    with pytest.raises(ValueError, match="at least 1"):
        run_sim(4, FOUR_RANDOM, 0)
    with pytest.raises(ValueError, match="round limit"):
        run_sim(4, FOUR_RANDOM, 1, round_limit=0)


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sim", "--players", "4", "--bots", "greedy,random,random,random", "--games", "3",
            "--seed", "7", "--json"]
    assert main(argv) == 0
    first = capsys.readouterr()
    assert main(argv) == 0
    second = capsys.readouterr()
    assert first.out == second.out  # same seed, same output
    data = json.loads(first.out)
    assert data == run_sim(4, ["greedy", "random", "random", "random"], 3, seed=7)
    assert first.err == ""  # no progress line when stderr is not a terminal


def test_cli_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--bots", "random,random", "--players", "2", "--games", "3",
                 "--rotate", "--round-limit", "30"]) == 0
    out = capsys.readouterr().out
    assert "3 games, 2 players, seed 0" in out
    assert "seats rotated" in out and "round limit 30" in out
    assert "shared victories" in out and "games ended by" in out and "games/s" in out


def test_cli_default_bots_fill_the_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "--players", "3", "--games", "1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bots"] == ["greedy", "random", "random"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--bots", "greedy,random"], "4 players need 4 bots"),
    (["--bots", "greedy,random,random,bogus"], "unknown strategy 'bogus'"),
    (["--bots", "greedy,random,random,no_such_module_xyz:X"], "cannot import"),
    (["--bots", "greedy,random,random,mundus_net.tools.sim:nothing"], "has no 'nothing'"),
    (["--players", "7"], "2 to 6 players"),
    (["--games", "0"], "must be at least 1"),
    (["--games", "many"], "not a whole number"),
    (["--round-limit", "0"], "must be at least 1"),
    (["--deck", "/no/such/file.deck"], "cannot read the deck file"),
])
def test_cli_bad_arguments(argv: list[str], message: str,
                           capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["sim", *argv])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_progress_bar_on_a_terminal() -> None:
    stream = io.StringIO()
    show = ProgressReport(stream, "sim", tty=True, redraw_s=0)
    show(1, 3)
    show(3, 3)
    text = stream.getvalue()
    assert "sim:" in text and "1/3" in text and "3/3" in text
    assert text.endswith("\r")  # cleared at the end


def test_wilson_interval() -> None:
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0


def test_the_human_output_fits_80_columns_with_file_named_bots(tmp_path: Path) -> None:
    """Issue 36, item 9: bots named by their files (docs/bots.md's `taker.py:Taker`, and a
    longer path) keep every line of the summary within 80 columns, each name whole or cut."""
    bot = tmp_path / "a_rather_long_folder_name" / "my_cautious_taker_bot.py"
    bot.parent.mkdir()
    bot.write_text("from mundus_net.bots.greedy import GreedyBot as Taker\n")
    s = run_sim(4, [f"{bot}:Taker", "greedy", "random", "random"], 2, seed=7, rotate=True,
                promo=True, round_limit=12)
    text = format_summary(s, elapsed=1.0)
    assert all(len(line) <= 80 for line in text.splitlines()), text
    assert "strategy" in text and "seats rotated" in text
    assert "0  Taker " in text  # the class, as the tournament's tables name a long entry
