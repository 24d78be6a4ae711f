"""A PettingZoo AEC environment of the whole game: every seat an agent (docs/rl.md).

Agents ``seat_0`` ... take turns as the engine asks them. The simultaneous steps (offers,
pirate discards, storage) are played the way PettingZoo documents simultaneous moves in an
AEC game: the agents act one after the other, and none sees another's choice before all are
in (the engine keeps them face down, and an observation is made only from what its seat may
see). Every observation is ``{"observation": vector, "action_mask": int8 mask}``; an agent
that is not to act gets an all-zero mask; the acting agent's ``info["legal_actions"]`` lists
the mask's indexes. An action the mask forbids plays the engine's
default decision instead, says why in ``infos[agent]["illegal_action"]`` and costs
``illegal_penalty`` (0.1) of reward.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from mundus_net.engine.deck import Deck
from mundus_net.rl.table import Table

__all__ = ["MundusAEC", "env"]


class MundusAEC(AECEnv):  # type: ignore[misc]  # pettingzoo is untyped
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "human"],
                                          "name": "mundus_novus_v0",
                                          "is_parallelizable": False}

    def __init__(self, players: int = 4, *, promo: bool = False, round_limit: int | None = None,
                 deck: Deck | None = None, reward: str = "win", illegal_penalty: float = 0.1,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.illegal_penalty = illegal_penalty
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be ansi, human or None, not {render_mode!r}")
        self.table = Table(players, promo=promo, round_limit=round_limit, deck=deck,
                           reward=reward)
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{s}" for s in range(players)]
        self._seat_of = {agent: s for s, agent in enumerate(self.possible_agents)}
        made = self.table.spaces()
        self.observation_spaces: dict[str, spaces.Space[Any]] = {
            a: made["observation"] for a in self.possible_agents}
        self.action_spaces: dict[str, spaces.Space[Any]] = {
            a: made["action"] for a in self.possible_agents}
        self._seed_rng = np.random.default_rng()
        self.agents: list[str] = []
        self.agent_selection: str = self.possible_agents[0]

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
            for s, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + s)
        self.table.new_game(int(self._seed_rng.integers(2**63)))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._no_rewards = True  # every value of self.rewards is 0.0
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._select()

    def _select(self) -> None:
        seat = self.table.to_move()
        if seat is None:
            self.terminations = dict.fromkeys(self.agents, True)
            # The agents leave one by one, each after its last, dead step.
            if self.agent_selection not in self.agents:
                self.agent_selection = self.agents[0]
            return
        self.agent_selection = agent = self.possible_agents[seat]
        # The legal actions as indexes too: an agent need not search the mask for them.
        self.infos[agent] = {**self.infos[agent],
                             "legal_actions": self.table.legal_indexes(seat)[:]}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat_of[agent]
        acting = (agent == self.agent_selection and not self.table.over)
        return {"observation": self.table.observe(seat),
                "action_mask": self.table.mask(seat if acting else None)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat_of[agent]
        self._cumulative_rewards[agent] = 0.0
        refused = self.table.play_or_default(seat, int(action))
        self.infos[agent] = {} if refused is None else {"illegal_action": refused}
        rewards = self.table.rewards()
        if refused is None and self._no_rewards and not any(rewards):
            # (most steps of a "win" game: the rewards stay all zero, nothing to accumulate)
            self._select()
        else:
            for s, reward in enumerate(rewards):
                self.rewards[self.possible_agents[s]] = reward
            if refused is not None:
                self.rewards[agent] -= self.illegal_penalty
            self._no_rewards = not any(self.rewards.values())
            self._select()
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self.table.render_text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> MundusAEC:
    """PettingZoo's usual constructor name: ``mundus_net.rl.aec.env(players=4)``."""
    return MundusAEC(**kwargs)
