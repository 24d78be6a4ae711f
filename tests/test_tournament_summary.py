"""The printed summary of ``mundus tournament`` in 80 columns, the CPU time a decision in the
summary and the JSON, and the faults file made only when a bot faulted (docs/tournament.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mundus_net.cli import main
from mundus_net.tools.games import Settings
from mundus_net.tools.tournament import entry_label, format_table, run_tournament

FAULTY = Path(__file__).resolve().with_name("test_bot_sdk.py")  # bots that fail now and then
LONG_CLASS = "AnExtremelyLongBotClassNameIndeed"


def _long_bot(tmp_path: Path) -> str:
    """A bot in a file whose path is longer than a terminal line."""
    folder = tmp_path / ("a_folder_with_a_rather_long_name_" * 3)
    folder.mkdir()
    path = folder / "bot.py"
    path.write_text(f"from mundus_net.bots.random_bot import RandomBot\n\n\n"
                    f"class {LONG_CLASS}(RandomBot):\n    pass\n", encoding="utf-8")
    spec = f"{path}:{LONG_CLASS}"
    assert len(spec) > 80
    return spec


def test_every_summary_line_fits_80_columns_with_long_names_and_many_entries(
        tmp_path: Path) -> None:
    bots = ("greedy", "random", f"{FAULTY}:RaisingBot", _long_bot(tmp_path),
            "search:iterations=1:candidates=2", "greedy")
    settings = Settings(bots, 3, seed=1, round_limit=2, promo=True)
    summary, _ = run_tournament(settings, 4)
    text = format_table(summary, 12.5)
    print(text)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "bots in full:" in text
    for spec in bots[2:5]:  # each long spec given whole, wrapped at 80 columns if it must be
        assert spec in "".join(line.strip() for line in lines[lines.index("bots in full:"):])
    assert any(line.startswith("3  AnExtremelyLong…") for line in lines)
    assert any(line.startswith("4  search:iteratio…") for line in lines)
    assert "#2 error" in text  # the faults of each entry that had some
    heads = [line.split() for line in lines if line.startswith(" " * 10) and
             line.split() and all(word.isdigit() for word in line.split())]
    assert [int(n) for head in heads for n in head] == list(range(6))  # two column blocks


def test_a_short_name_stays_whole_and_a_class_is_named_by_itself() -> None:
    assert entry_label("greedy") == "greedy"
    assert entry_label("examples/cautious_bot.py:CautiousBot") == "CautiousBot"
    assert entry_label("mybots.strong:Strong:depth=3") == "Strong:depth=3"
    assert entry_label("search:iterations=8:temperature=2.5") == "search:iteratio…"


def test_the_cpu_time_a_decision_is_in_the_summary_and_the_json(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "t.json"
    assert main(["tournament", "--bots", "greedy,random,random", "--games", "3", "--seed", "2",
                 "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    data = json.loads(out.read_text(encoding="utf-8"))
    for bot in data["summary"]["per_bot"]:
        assert set(bot["cpu_ms"]) == {"mean", "p95"}
        # Figures, not a speed: whatever the machine, a CPU time is a number, never negative.
        assert all(isinstance(v, float) and v >= 0 for v in bot["cpu_ms"].values())
    for row in data["games"]:
        assert [len(times) for times in row["cpu_ms"]] == row["decisions"]
    lines = printed.splitlines()
    header = next(i for i, line in enumerate(lines) if "cpu ms" in line)
    assert lines[header].split()[-4:] == ["cpu", "ms", "p95", "faults"]
    for bot, line in zip(data["summary"]["per_bot"], lines[header + 1:], strict=False):
        mean, p95 = map(float, line.split()[-3:-1])
        assert mean == pytest.approx(bot["cpu_ms"]["mean"], rel=0.01, abs=0.0005)
        assert p95 == pytest.approx(bot["cpu_ms"]["p95"], rel=0.01, abs=0.0005)
    assert "cpu ms, p95: CPU time of a decision" in printed


def test_no_faults_file_when_nothing_faulted(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "t.faults.jsonl"
    stale.write_text('{"game": 0, "kind": "error"}\n', encoding="utf-8")  # an earlier run's
    explicit = tmp_path / "mine" / "f.jsonl"
    for extra in (["--json", str(tmp_path / "t.json")], ["--records", str(tmp_path / "r")],
                  ["--faults", str(explicit)]):
        assert main(["tournament", "--bots", "greedy,random", "--games", "2", *extra]) == 0
    capsys.readouterr()
    assert not stale.exists() and not (tmp_path / "r" / "faults.jsonl").exists()
    assert not explicit.exists() and not explicit.parent.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r", "t.json"]


@pytest.mark.network  # the bot file is played in a worker process
def test_a_faults_file_is_still_written_when_a_bot_faulted(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    faults = tmp_path / "not" / "yet" / "f.jsonl"
    assert main(["tournament", "--bots", f"{FAULTY}:RaisingBot,random", "--games", "2",
                 "--round-limit", "3", "--faults", str(faults)]) == 0
    err = capsys.readouterr().err
    lines = [json.loads(line) for line in faults.read_text(encoding="utf-8").splitlines()]
    assert lines and all(line["kind"] == "error" for line in lines)
    assert f"{len(lines)} fault(s), each with its traceback, in {faults}" in err
