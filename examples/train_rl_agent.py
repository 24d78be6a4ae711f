"""Train a small learning agent in the Gymnasium environment and play it against the random bot.

    pip install 'mundus-net[rl]'
    python examples/train_rl_agent.py                 # about 3 minutes on 2 cores
    python examples/train_rl_agent.py --minutes 1 --eval-games 100

The agent is a linear softmax policy over the legal actions (REINFORCE with a running-mean
baseline, numpy only): an action's score is ``phi(action) . (W @ observation) + b .
phi(action)``, where ``phi`` describes an action index by its kind, the cards it names and
its seat offset or target (the same few numbers for every game, so what is learnt about
"offer two low cards" carries over). It learns from the doubloon reward (every doubloon won,
and the win at the end: ``MundusEnv(reward="doubloons")``) in 2-player games against the
random bot, then its win rate against that bot is measured before and after, with 95%
intervals. With ``--games N`` (a number of training games instead of minutes) the seed fixes
everything: the same command prints the same figures.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from mundus_net.engine.decisions import DECISION_TYPES
from mundus_net.rl.actions import ActionSpace, cards_of
from mundus_net.rl.single import MundusEnv
from mundus_net.tools.results import wilson

KINDS = [cls.__name__ for cls in DECISION_TYPES]


def action_features(space: ActionSpace) -> np.ndarray:
    """phi for every action index: its kind (one-hot), the count of each card it names / 4,
    how many cards, its seat offset (Take, ChooseFirst, ChooseTradeMaster) and its value or
    target (MakeSet), scaled to about 0-1."""
    rows = []
    for decision in space.decisions:
        kind = [0.0] * len(KINDS)
        kind[KINDS.index(type(decision).__name__)] = 1.0
        cards = [0.0] * 10
        for card in cards_of(decision):
            cards[card - 1] += 0.25
        seat = getattr(decision, "seat", 0)
        value = getattr(decision, "value", 0) or getattr(decision, "card", 0) or 0
        target = getattr(decision, "target", 0)
        rows.append(kind + cards + [len(cards_of(decision)) / 5, seat / 5, value / 10,
                                    (target + 1) / 6, 1.0])
    return np.array(rows, dtype=np.float32)


class LinearPolicy:
    def __init__(self, features: np.ndarray, observation_size: int, seed: int) -> None:
        self.phi = features
        rng = np.random.default_rng(seed)
        self.w = rng.normal(0.0, 0.01, (features.shape[1], observation_size)).astype(np.float32)
        self.b = np.zeros(features.shape[1], dtype=np.float32)
        self.rng = rng

    def probabilities(self, observation: np.ndarray, legal: list[int]) -> np.ndarray:
        phi = self.phi[legal]
        scores = phi @ (self.w @ observation + self.b)
        scores -= scores.max()
        p: np.ndarray = np.exp(scores)
        p /= p.sum()
        return p

    def act(self, observation: np.ndarray, legal: list[int], greedy: bool = False
            ) -> tuple[int, np.ndarray]:
        p = self.probabilities(observation, legal)
        k = int(p.argmax()) if greedy else int(self.rng.choice(len(legal), p=p))
        return k, p


def play(env: MundusEnv, policy: LinearPolicy, seed: int, learn: bool = False
         ) -> tuple[bool, list[tuple[np.ndarray, list[int], int, np.ndarray, float]]]:
    """One game; (the agent won, its steps: observation, legal, choice, probabilities,
    reward)."""
    observation, info = env.reset(seed=seed)
    steps = []
    over = False
    while not over:
        legal = info["legal_actions"]
        obs = observation["observation"]
        k, p = policy.act(obs, legal, greedy=not learn)
        observation, reward, over, _, info = env.step(legal[k])
        steps.append((obs, legal, k, p, float(reward)))
    return env.seat in info["winners"], steps


def win_rate(env: MundusEnv, policy: LinearPolicy, games: int, seed: int) -> tuple[float, float,
                                                                                  float]:
    wins = sum(play(env, policy, seed + g)[0] for g in range(games))
    low, high = wilson(wins, games)
    return wins / games, low, high


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="training time")
    parser.add_argument("--games", type=int, default=None,
                        help="train exactly this many games instead (reproducible)")
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--learning-rate", type=float, default=0.02)
    args = parser.parse_args()

    env = MundusEnv(2, ("random",), reward="doubloons")
    policy = LinearPolicy(action_features(env.table.actions), env.table.observer.size,
                          args.seed)
    held_out = 1_000_000  # evaluation games: seeds never trained on
    before = win_rate(env, policy, args.eval_games, held_out)
    print(f"before training: wins {before[0]:.1%} (95% CI {before[1]:.1%}-{before[2]:.1%}) "
          f"of {args.eval_games} games against the random bot", flush=True)

    baseline, games, start, last = 0.0, 0, time.monotonic(), time.monotonic()
    while (games < args.games if args.games is not None
           else time.monotonic() - start < args.minutes * 60):
        _, steps = play(env, policy, args.seed * 10_000_000 + games, learn=True)
        games += 1
        returns = np.cumsum([r for *_, r in steps][::-1])[::-1]  # reward to go
        grad_w = np.zeros_like(policy.w)
        grad_b = np.zeros_like(policy.b)
        for (obs, legal, k, p, _), g in zip(steps, returns, strict=True):
            phi = policy.phi[legal]
            direction = phi[k] - p @ phi  # d log pi(k) / d (W @ obs + b)
            advantage = g - baseline
            grad_w += advantage * np.outer(direction, obs)
            grad_b += advantage * direction
        baseline = 0.95 * baseline + 0.05 * float(returns[0])
        policy.w += args.learning_rate * grad_w / max(1, len(steps))
        policy.b += args.learning_rate * grad_b / max(1, len(steps))
        if time.monotonic() - last >= 30:
            last = time.monotonic()
            print(f"  trained {games} games in {last - start:.0f} s "
                  f"(return baseline {baseline:+.2f})", flush=True)

    after = win_rate(env, policy, args.eval_games, held_out)
    print(f"after {games} training games ({time.monotonic() - start:.0f} s): wins {after[0]:.1%} "
          f"(95% CI {after[1]:.1%}-{after[2]:.1%}) of {args.eval_games} games against the "
          "random bot", flush=True)


if __name__ == "__main__":
    main()
