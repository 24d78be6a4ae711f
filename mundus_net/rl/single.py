"""A Gymnasium environment: one learning seat against built-in bots (docs/rl.md).

``MundusEnv(players=4, opponents=("greedy", "greedy", "greedy"))``: each ``reset`` deals a
new game from the environment's seeded generator, seats the agent (at a random seat, or at
``seat``), and lets the bots play until the agent is asked; each ``step`` plays the agent's
action and then the bots' decisions until the agent is asked again or the game is over. The
observation is ``{"observation": vector, "action_mask": int8 mask}``; the mask is also in
``info["action_mask"]`` (and as a list of indexes in ``info["legal_actions"]``) and from
:meth:`MundusEnv.action_masks` (the name sb3-contrib's MaskablePPO looks for). An action
the mask forbids is not an error: the engine's default decision is played instead (as for a
failing bot), ``info["illegal_action"]`` says why, and the reward loses ``illegal_penalty``
(0.1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np

from mundus_net.bots.base import Bot, load_bot
from mundus_net.engine.deck import Deck
from mundus_net.engine.seeds import derive_seed
from mundus_net.rl.table import Table

__all__ = ["MundusEnv", "Observation"]

Observation = dict[str, np.ndarray]


class MundusEnv(gym.Env[Observation, np.int64]):
    metadata = {"render_modes": ["ansi", "human"], "render_fps": 4}  # noqa: RUF012 - gymnasium's

    def __init__(self, players: int = 4, opponents: Sequence[str] | None = None, *,
                 seat: int | None = None, promo: bool = False, round_limit: int | None = None,
                 deck: Deck | None = None, reward: str = "win", illegal_penalty: float = 0.1,
                 render_mode: str | None = None) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be ansi, human or None, not {render_mode!r}")
        self.table = Table(players, promo=promo, round_limit=round_limit, deck=deck,
                           reward=reward)
        specs = tuple(opponents) if opponents is not None else ("random",) * (players - 1)
        if len(specs) != players - 1:
            raise ValueError(f"{players} players need {players - 1} opponents, not "
                             f"{len(specs)}")
        for spec in specs:
            load_bot(spec, 0)  # a bad spec fails here, not at the first reset
        if seat is not None and not 0 <= seat < players:
            raise ValueError(f"seat must be 0..{players - 1}, not {seat}")
        self.opponents = specs
        self.illegal_penalty = illegal_penalty
        self.fixed_seat = seat
        self.seat = 0 if seat is None else seat
        self.render_mode = render_mode
        made = self.table.spaces()
        self.observation_space = made["observation"]
        self.action_space = made["action"]
        self._bots: list[Bot | None] = [None] * players

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**63))
        players = self.table.players
        self.seat = (self.fixed_seat if self.fixed_seat is not None
                     else int(self.np_random.integers(players)))
        self.table.new_game(game_seed)
        others = [s for s in range(players) if s != self.seat]
        self._bots = [None] * players
        for spec, s in zip(self.opponents, others, strict=True):
            self._bots[s] = load_bot(spec, derive_seed(game_seed, "rl-bot", s))
        self.table.rewards()  # nothing yet: starts the doubloon count
        reward = self._bots_play()
        self._pending_reward = reward
        return self._observation(), self._info()

    def _bots_play(self) -> float:
        """The bots decide until the agent is asked or the game is over; the agent's reward
        meanwhile."""
        total = 0.0
        table = self.table
        while True:
            seat = table.to_move()
            if seat is None or seat == self.seat:
                break
            bot = self._bots[seat]
            assert bot is not None
            table.game.apply(seat, bot.decide(table.views[seat], table.game.legal(seat)))
            total += table.rewards()[self.seat]
        return total

    def step(self, action: np.int64 | int
             ) -> tuple[Observation, SupportsFloat, bool, bool, dict[str, Any]]:
        if self.table.over:
            raise RuntimeError("the game is over: call reset()")
        refused = self.table.play_or_default(self.seat, int(action))
        reward = self.table.rewards()[self.seat] + self._pending_reward
        self._pending_reward = 0.0
        if refused is not None:
            reward -= self.illegal_penalty
        reward += self._bots_play()
        if self.render_mode == "human":
            self.render()
        info = self._info()
        if refused is not None:
            info["illegal_action"] = refused
        return self._observation(), reward, self.table.over, False, info

    def _observation(self) -> Observation:
        return {"observation": self.table.observe(self.seat),
                "action_mask": self.table.mask(None if self.table.over else self.seat)}

    def _info(self) -> dict[str, Any]:
        over = self.table.over
        info: dict[str, Any] = {
            "seat": self.seat, "action_mask": self.table.mask(None if over else self.seat),
            "legal_actions": [] if over else self.table.legal_indexes(self.seat)[:]}
        result = self.table.game.result
        if result is not None:
            info["winners"] = list(result.winners)
            info["doubloons"] = list(result.doubloons)
        return info

    def action_masks(self) -> np.ndarray:
        return self.table.mask(None if self.table.over else self.seat).astype(bool)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self.table.render_text(self.seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text
