"""The benchmarks run and report their figures (no timing is asserted here)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from mundus_net.bots.search import _Net
from mundus_net.client.notices import Accepted

ROOT = Path(__file__).resolve().parent.parent


def _benchmark(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"{name}_benchmark",
                                                  ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_last_line_is_json_with_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _benchmark("engine")
    assert bench.main(["--games", "2", "--seconds", "5", "--no-catanatron"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["random_games"] == 2 and figures["greedy_games"] == 2
    assert figures["random_decisions_per_game"] > 0
    assert "target_ratio_met" in figures and "catanatron_games" not in figures


def test_reference_games_are_interleaved_with_ours() -> None:
    bench = _benchmark("engine")
    played: list[int] = []

    def reference(seed: int) -> tuple[int, int]:
        played.append(seed)
        sum(range(100_000))  # some CPU time, as a real game takes
        return 100, 40

    ours, other = bench.run("random", bench.RandomBot, 3, None, 5, reference)
    assert ours.games == 3
    assert other is not None and other.games == len(played) >= 1
    assert other.steps == 100 * other.games and other.decisions == 40 * other.games
    assert ours.steps > ours.decisions > 0  # the engine's forced steps count as steps
    assert played == list(range(5, 5 + len(played)))  # seeded like ours


# benchmarks/fingerprint.py over its first 20 games (300 games: README "Behaviour fingerprint").
# It changes only when the engine's behaviour or the random bot's draws change on purpose.
FINGERPRINT_20 = "ee78b5390bb0c90f31a146d4717309b267aec23209917100717442946560fe11"


def test_the_engine_and_the_random_bot_behave_as_the_fingerprint_says() -> None:
    digest, decisions, events = _benchmark("fingerprint").fingerprint(20)
    assert (digest, decisions, events) == (FINGERPRINT_20, 8147, 22619)


def test_host_table_benchmark_plays_whole_games(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _benchmark("host_table")
    assert bench.main(["--games", "1"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["games"] == 1
    assert figures["answers"] >= figures["decisions"] > 0  # offers: a commit and a reveal


def test_the_game_log_benchmark_prints_each_variant_and_the_ratios(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert _benchmark("gamelog").main(["--games", "1"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(figures["us_per_decision"]) == {"durable log", "fast log", "no log",
                                               "durable floor"}
    assert figures["durable_vs_floor"] > 0 and figures["fast_vs_no_log"] > 0


@pytest.mark.network
def test_network_benchmark_reports_the_floors_both_layouts_and_both_hosts() -> None:
    # Run as a user runs it: its child processes import it by its module name.
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "network.py"), "--games",
                          "1", "--repeat", "1", "--round-trips", "20"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    figures = json.loads(run.stdout.strip().splitlines()[-1])
    assert figures["same_results"] and figures["one_process"]["same_results"]
    assert figures["decisions_per_game"] > 0
    # the floor is measured and reported (its size is the benchmark's to print, not ours)
    assert all(key in figures for key in ("floor_game_ms", "in_process_game_ms", "floor_ratio"))
    assert {"game_target_met", "rtt_target_met", "room_us_per_decision"} <= set(figures)
    # the host as shipped (durable log) beside the host without a log, against both floors
    assert figures["host"].startswith("as shipped") and figures["processes_no_log"]["same_results"]
    assert {"processes_no_log_vs_floor", "one_process_no_log_vs_floor",
            "processes_shipped_vs_durable_floor", "one_process_shipped_vs_durable_floor"} <= set(
        figures["goals"])
    # issue 34's fan-out floors: every bot process receives every update, durable and not
    assert {"processes_no_log_vs_fanout_floor", "one_process_no_log_vs_fanout_floor",
            "processes_shipped_vs_durable_fanout_floor",
            "one_process_shipped_vs_durable_fanout_floor", "processes_host_busy_us",
            "processes_host_busy_cpu_us"} <= set(figures["goals"])
    assert figures["one_process"]["fanout_subscribers"] == 1
    assert all(row["ratio"] > 0 for row in figures["goals"].values())


@pytest.mark.network
def test_the_attack_harness_prints_its_figures_for_each_scenario(
        capsys: pytest.CaptureFixture[str]) -> None:
    """benchmarks/attack.py --quick on garbage frames and issue 27's scenarios (a CPU-starved
    host, encrypted connection churn, subscriber-connection churn, a full disk where the
    machine allows it, a rolled-back log): the figures are there (no target is asserted:
    memory, latency and even the result depend on the machine's load), and the rollback is
    named by every player's client."""
    bench = _benchmark("attack")
    played = ["garbage-frames", "cpu-starved", "curve-churn", "subscriber-churn"]
    scenarios = [*played, "disk-full", "rollback"]
    assert bench.main(["--quick", *(f"--scenario={name}" for name in scenarios)]) == 0
    out = capsys.readouterr().out
    figures = json.loads(out.strip().splitlines()[-1])
    rows = {row["scenario"]: row for row in figures["scenarios"]}
    assert set(rows) == {"baseline", *scenarios}
    if "not_played" not in rows["disk-full"]:  # it needs root (a tmpfs of its own)
        played.append("disk-full")
    for name in ["baseline", *played]:
        row = rows[name]
        assert row["crashed"] is None, row
        assert row["decisions"] > 0 and row["peak_mb"] > 0 and row["p95_ms"] is not None
        # where the CPU went: each kind of process, with its run-queue wait
        assert {"attacker", "host_python", "host_zmq", "honest"} <= set(row["tasks_s"]), row
        assert set(row["tasks_s"]["honest"]) == {"cpu", "runq", "wait_ms"}
    assert all(rows[name]["sent"] > 0 for name in played)
    assert rows["rollback"]["rewind_named_by"] == rows["rollback"]["players"], rows["rollback"]
    assert "Memory bound:" in out and all(name in out for name in scenarios)


class _Core:
    """What the attack harness's player reads of a ClientCore while it waits for an ``ok``."""

    def __init__(self, request: int) -> None:
        self.requests = {request}
        self.result: object = None
        self.closed = False
        self.rewind: object = None
        self.ready: object = None

    def waiting_for(self, request: int) -> bool:
        return request in self.requests


def test_the_attack_player_stops_waiting_for_an_ok_its_rewound_host_forgot() -> None:
    """The rollback's hang: a decision sent just before the host was killed is forgotten at
    the reconnect (the hello starts over) and the rolled-back host never answers it, nor is
    anything decided after the rewind; the player goes back to its loop (where it names the
    rewind) after one poll instead of polling until the end of the game."""
    bench = _benchmark("attack")
    core = _Core(7)
    polls: list[float] = []

    def reconnect_to_a_rewound_host(timeout: float) -> list[object]:
        polls.append(timeout)
        core.requests.clear()  # ClientCore._reopen
        core.rewind = "the host went back"
        return []

    conn = SimpleNamespace(core=core)
    assert not bench._await_answer(conn, 7, 3, reconnect_to_a_rewound_host,
                                   time.monotonic() + 600)
    assert len(polls) == 1


def test_the_attack_player_counts_the_ok_to_its_decision() -> None:
    """The ``ok`` to the decision, on the second poll: a latency to count."""
    bench = _benchmark("attack")
    core = _Core(7)
    polls: list[float] = []

    def answer(timeout: float) -> list[object]:
        polls.append(timeout)
        if len(polls) == 1:
            return []
        core.requests.discard(7)  # the reply pops its request, and is told
        return [Accepted("decide", 7)]

    assert bench._await_answer(SimpleNamespace(core=core), 7, 3, answer,
                               time.monotonic() + 600)
    assert len(polls) == 2


def test_the_attack_harness_says_where_its_slowest_decisions_waited() -> None:
    """--decision-waits: the slowest tenth of 20 decisions (the 2 at or above p90), their mean
    latency and the mean run-queue waits of the player and of the host's threads, in ms."""
    bench = _benchmark("attack")
    outcome = bench.Outcome("pingers")
    assert outcome.slow_waits() is None
    outcome.waits = [(n / 1000, 0.0, 0.0, 0.0) for n in range(18)] + \
        [(0.100, 0.010, 0.060, 0.020), (0.140, 0.020, 0.100, 0.040)]
    assert outcome.slow_waits() == pytest.approx((2, 120.0, 15.0, 80.0, 30.0))


@pytest.mark.network
def test_the_limits_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    """benchmarks/limits.py --quick: the figures are there (none is asserted but what the
    limits make certain: the key port's flooder gets no more than its share)."""
    bench = _benchmark("limits")
    assert bench.main(["--quick"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["subscribers"]["subscription_frames"] == 20 * 18
    assert figures["keys_100_per_s"]["flood_answered"] <= 5 + 2 * 2 + 1
    assert figures["invites_one_address"]["compared"] <= 8
    assert figures["invites_many_addresses"]["right_code_from_a_newcomer"] in (
        "welcome", "rate_limited")
    assert figures["stranger_reads"]["pings_read"] > 0


def test_the_environment_benchmark_compares_steps_with_the_bare_engine(
        capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pettingzoo")
    bench = _benchmark("rl_env")
    assert bench.main(["--games", "1", "--players", "2", "--repeat", "1"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert figures["bare_steps_per_s"] > 0 and figures["aec_steps_per_s"] > 0
    assert "cost_ratio" in figures and "target_met" in figures


@pytest.mark.network  # worker processes
def test_the_strength_benchmark_reports_win_rate_and_cpu_per_decision(
        capsys: pytest.CaptureFixture[str]) -> None:
    bench = _benchmark("strength")
    assert bench.main(["--bots", "greedy,random", "--games", "2", "--jobs", "1"]) == 0
    figures = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    greedy, random_bot = figures["bots"]
    assert greedy["games"] == 2 and 0 <= greedy["win_rate"] <= 1
    assert greedy["decision_ms_p95"] >= 0 and greedy["decisions_per_game"] > 0
    (comparison,) = figures["paired"]
    assert comparison["bot"] == "random" and comparison["against"] == "greedy"
    assert comparison["difference"] == random_bot["win_rate"] - greedy["win_rate"]


@pytest.mark.network  # worker processes
def test_the_evaluation_fit_prints_weights_and_held_out_log_loss(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A few games give the 30 weights of the search bot's evaluation and the held-out
    log-loss of both evaluations; the round ends saved with --data are read back, and
    --hidden fits the net evaluation on them and writes its weights file."""
    pytest.importorskip("numpy")
    bench = _benchmark("fit_evaluation")
    data = tmp_path / "ends.npz"
    assert bench.main(["--games", "8", "--jobs", "1", "--data", str(data)]) == 0
    first = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert len(first["weights"]) == 30 and first["states"] > 8
    assert set(first["held_out_log_loss"]) == {"hand_made", "fitted", "uniform"}
    assert bench.main(["--data", str(data)]) == 0  # read back: the same fit
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == first
    out = tmp_path / "net.json"
    argv = ["--data", str(data), "--hidden", "2", "--epochs", "2", "--net-out", str(out)]
    assert bench.main(argv) == 0  # the net evaluation too: a weights file search.py reads
    net = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert net["weights"] == first["weights"] and net["held_out_log_loss"]["net"] > 0
    assert len(_Net(json.loads(out.read_text())).units) == 2


def test_the_search_regret_benchmark_reports_regret_and_is_deterministic(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Greedy's and each search's regret against the reference (never negative) and how
    often it chose the reference's best; the same seed prints the same figures."""
    bench = _benchmark("search_regret")
    argv = ["--bots", "search:iterations=1", "--games", "1", "--positions", "2",
            "--reference", "2", "--repeats", "1", "--seed", "3"]
    assert bench.main(argv) == 0
    first = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert first["positions"] == 2 and first["greedy_regret"] >= 0
    row = first["bots"]["search:iterations=1"]
    assert row["regret"] >= 0 and 0 <= row["agrees"] <= 1
    assert bench.main(argv) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == first


def test_the_wide_oracle_values_every_legal_offer(capsys: pytest.CaptureFixture[str]) -> None:
    """--wide: the oracle values every legal decision (R5.2: every offer), so a search that
    compares every offer is measured against it too, and the JSON says how often the
    oracle's best is not one of the default candidates."""
    bench = _benchmark("oracle_regret")
    argv = ["--bots", "search:iterations=1:offers=all", "--phase", "offer", "--games", "1",
            "--every", "4", "--shuffles", "1", "--repeats", "1", "--seed", "3", "--wide"]
    assert bench.main(argv) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert report["phase"] == "offer" and report["positions"] >= 1
    assert report["bots"][0]["regret"] >= 0 and report["greedy"] >= 0
    assert 0 <= report["wide"]["outside"] <= report["positions"]


def test_the_oracle_regret_benchmark_reports_regret_and_is_deterministic(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Greedy's and each search's regret against the oracle that sees the hidden cards
    (never negative: the oracle's best is the best of the same candidates); the same seed
    prints the same figures."""
    bench = _benchmark("oracle_regret")
    argv = ["--bots", "search:iterations=1,search:iterations=1:infer=true", "--games", "1",
            "--every", "6", "--shuffles", "1", "--repeats", "1", "--seed", "3"]
    assert bench.main(argv) == 0
    first = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert first["phase"] == "take" and first["positions"] >= 1 and first["greedy"] >= 0
    assert all(row["regret"] >= 0 for row in first["bots"])
    assert bench.main(argv) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == first
