"""``mundus report``: pictures of a game record (doubloons by round) and of tournament results
(win rates with 95% intervals, final doubloons per bot), as PNG and SVG files."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from mundus_net.bots.base import load_bot
from mundus_net.cli import main
from mundus_net.engine.game import Game
from mundus_net.engine.record import GameRecord
from mundus_net.tools import report as report_module
from mundus_net.tools.report import (
    Tournament,
    draw_record,
    draw_win_rates,
    end_words,
    load_results,
    nice_axis,
    record_series,
    tournament_stats,
)
from mundus_net.tools.runner import play_game
from mundus_net.tools.sim import run_sim

pytest.importorskip("matplotlib")

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def record() -> GameRecord:
    game = Game.new(3, 21, round_limit=4)
    play_game(game, [load_bot("greedy", s) for s in range(3)])
    return GameRecord.from_game(game, "report-test", ["Ana", "Bo", "Cy"])


def tiny_tournament() -> dict[str, object]:
    """The shape of ``mundus tournament --json`` (docs/tournament.md), made by hand."""
    rows = [{"game": i, "seed": 100 + i, "seating": [(s - i) % 3 for s in range(3)],
             "winners": [0], "places": [1, 2, 3], "doubloons": [80 - i, 40 + i, 20 + 2 * i],
             "rounds": 9, "reason": "doubloons", "faults": [{}, {}, {}]} for i in range(6)]
    per_bot = [{"index": j, "bot": bot, "games": 6, "wins": w, "win_rate": w / 6,
                "win_rate_ci95": [max(0.0, w / 6 - 0.3), min(1.0, w / 6 + 0.3)],
                "mean_doubloons": 50.0} for j, (bot, w) in
               enumerate((("greedy", 4.0), ("random", 1.0), ("examples/x.py:MyBot", 1.0)))]
    return {"summary": {"bots": ["greedy", "random", "examples/x.py:MyBot"], "players": 3,
                        "games": 6, "seed": 0, "per_bot": per_bot}, "games": rows}


def write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def check_picture(path: Path, fmt: str) -> None:
    data = path.read_bytes()
    assert len(data) > 2000, path
    if fmt == "png":
        assert data.startswith(PNG_MAGIC)
    else:
        assert b"<svg" in data[:2000] and data.rstrip().endswith(b"</svg>")


def test_the_doubloons_of_a_record_by_round(record: GameRecord) -> None:
    series = record_series(record)
    assert record.result is not None
    assert series.rounds == [0, 1, 2, 3, 4]
    assert [d[0] for d in series.doubloons] == [0, 0, 0]
    assert [d[-1] for d in series.doubloons] == list(record.result.doubloons)
    assert series.names == ["Ana", "Bo", "Cy"]
    assert series.winners == record.result.winners


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_a_record_report(tmp_path: Path, record: GameRecord, fmt: str,
                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game-000007.json"
    path.write_text(record.to_json(), encoding="utf-8")
    out = tmp_path / "pictures"
    assert main(["report", str(path), "--out", str(out), "--format", fmt]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(out / f"game-000007-doubloons-by-round.{fmt}")]
    check_picture(Path(printed[0]), fmt)


@pytest.mark.parametrize("fmt", ["png", "svg"])
def test_a_tournament_report(tmp_path: Path, fmt: str,
                             capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path / "results.json", tiny_tournament())
    assert main(["report", str(path), "--out", str(tmp_path), "--format", fmt]) == 0
    printed = capsys.readouterr().out.split()
    assert printed == [str(tmp_path / f"results-win-rates.{fmt}"),
                       str(tmp_path / f"results-doubloons.{fmt}")]
    for p in printed:
        check_picture(Path(p), fmt)


def test_tournament_stats_read_the_rows_by_entry() -> None:
    stats = tournament_stats(tiny_tournament())
    assert [b.label for b in stats.bots] == ["0 greedy", "1 random", "2 MyBot"]
    # Game i seats entry (s - i) % 3 at seat s: entry 0 sits at seat i % 3.
    assert stats.bots[0].doubloons == [80, 41, 24, 77, 44, 30]
    assert stats.bots[0].ci95 == pytest.approx((4 / 6 - 0.3, 4 / 6 + 0.3))
    assert stats.players == 3 and stats.games == 6


def test_the_real_tournament_and_sim_outputs(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    tournament = pytest.importorskip("mundus_net.tools.tournament")
    settings = tournament.Settings(bots=("greedy", "random", "random"), players=3, seed=3)
    summary, rows = tournament.run_tournament(settings, games=3)
    tournament.write_json(tmp_path / "t.json", summary, rows)
    loaded = load_results(tmp_path / "t.json")
    assert isinstance(loaded, Tournament)
    assert [len(b.doubloons) for b in loaded.bots] == [3, 3, 3]
    # A `mundus sim --json` summary has no per-game rows: the win rates only, and a note.
    sim = write(tmp_path / "sim.json", run_sim(3, ["greedy", "random", "random"], 2))
    assert main(["report", str(tmp_path / "t.json"), str(sim), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr()
    assert out.out.split() == [str(tmp_path / "t-win-rates.png"),
                               str(tmp_path / "t-doubloons.png"),
                               str(tmp_path / "sim-win-rates.png")]
    assert "no per-game rows" in out.err


@pytest.mark.parametrize(("data", "message"), [
    ("{oops", "not a JSON document"),
    ({"hello": 1}, "neither a game record"),
    ({"format": "mundus-record/1"}, "it is a damaged game record"),
    ({"summary": {"players": 3}}, "a field is missing or malformed"),
])
def test_bad_inputs_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                           data: object, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    assert main(["report", str(path), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"mundus report: {path}: ") and message in err
    assert not list(tmp_path.glob("*.png"))


def test_without_matplotlib_it_says_how_to_install_it(
        tmp_path: Path, record: GameRecord, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends",
                 "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)
    path = tmp_path / "game.json"
    path.write_text(record.to_json(), encoding="utf-8")
    assert isinstance(load_results(path), GameRecord)  # reading needs no matplotlib
    assert main(["report", str(path), "--out", str(tmp_path)]) == 1
    assert "pip install 'mundus-net[plots]'" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.png"))


def test_the_title_says_how_the_game_ended_in_words(record: GameRecord) -> None:
    series = record_series(record)
    assert series.reason == "round_limit"
    assert end_words(series) == "ended at the round limit after 4 rounds"
    for reason, words in (("perfect", "ended by a perfect combination after 4 rounds"),
                          ("doubloons", "ended when a player reached 75 doubloons after 4 "
                                        "rounds"),
                          ("queue", "ended when the queue ran out after 4 rounds")):
        assert end_words(replace(series, reason=reason)) == words
    unfinished = replace(series, reason=None, winners=(),
                         unfinished="it stops in round 5, after decision 80")
    assert end_words(unfinished) == "not finished: it stops in round 5, after decision 80"


@pytest.mark.parametrize("top", [0, 3, 15, 34, 49, 73, 80, 87, 100, 140, 999])
def test_nice_axes_end_on_a_round_value_a_little_above_the_data(top: int) -> None:
    upper, step = nice_axis(top)
    assert upper > top and upper <= 1.6 * top + 5  # a margin, not a band of empty space
    assert 4 <= upper / step <= 9 and upper / step == int(upper / step)
    mantissa = step / 10 ** math.floor(math.log10(step))
    assert mantissa in (1, 2, 2.5, 5) and step == int(step)


def drawn_axes(monkeypatch: pytest.MonkeyPatch, draw: Callable[[], object]) -> Any:
    """The axes of the figure ``draw`` saves (nothing is written)."""
    saved: list[Any] = []
    monkeypatch.setattr(report_module, "_save", lambda fig, path, fmt: saved.append(fig))
    draw()
    return saved[0].axes[0]


def test_the_record_picture_fits_its_axis_to_the_doubloons(
        record: GameRecord, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    series = record_series(record)
    top = max(max(d) for d in series.doubloons)
    assert top < 60  # a round-limit game far from 75 doubloons
    ax = drawn_axes(monkeypatch, lambda: draw_record(series, tmp_path / "x.png"))
    low, high = ax.get_ylim()
    assert top < high <= nice_axis(top)[0] and low <= 0
    ticks = list(ax.get_yticks())
    assert ticks[0] == 0 and ticks[-1] == high
    assert all(line.get_linestyle() != "--" for line in ax.get_lines())  # no 75 line
    # A game that reaches 75 doubloons shows the line, and the axis goes past it.
    rich = replace(series, doubloons=[[*d[:-1], 87 if s == 0 else d[-1]]
                                      for s, d in enumerate(series.doubloons)])
    ax = drawn_axes(monkeypatch, lambda: draw_record(rich, tmp_path / "y.png"))
    assert ax.get_ylim()[1] >= 90
    assert any(line.get_linestyle() == "--" for line in ax.get_lines())


def test_the_win_rate_axis_fits_the_intervals(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path) -> None:
    low = tournament_stats(tiny_tournament())
    low = replace(low, bots=[replace(b, win_rate=0.1, ci95=(0.0, 0.2)) for b in low.bots])
    ax = drawn_axes(monkeypatch, lambda: draw_win_rates(low, tmp_path / "w.png"))
    assert 34 <= ax.get_ylim()[1] <= 50  # the even share (33%) and a margin, not 100%
    high = replace(low, bots=[replace(b, win_rate=0.9, ci95=(0.8, 0.99)) for b in low.bots])
    ax = drawn_axes(monkeypatch, lambda: draw_win_rates(high, tmp_path / "w.png"))
    assert ax.get_ylim()[1] > 100 and max(ax.get_yticks()) == 100
