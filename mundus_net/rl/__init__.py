"""Environments for learning agents (``pip install 'mundus-net[rl]'``, docs/rl.md).

- :mod:`mundus_net.rl.aec`: a PettingZoo AEC environment of the whole game, every seat an
  agent (``mundus_net.rl.aec.env(players=4)``).
- :mod:`mundus_net.rl.single`: a Gymnasium environment for one learning seat against
  built-in bots (``gymnasium.make("mundus_net/MundusNovus-v0", players=4)`` once this package
  is imported).
- :mod:`mundus_net.rl.actions` and :mod:`mundus_net.rl.observation`: the fixed action space
  and the observation vector both use.

This layer uses the engine and the bots, nothing of the network or the terminal.
"""

from __future__ import annotations

ENV_ID = "mundus_net/MundusNovus-v0"

try:
    import gymnasium as _gymnasium
except ImportError:  # pragma: no cover - the rl extra is not installed
    pass
else:
    if ENV_ID not in _gymnasium.registry:
        _gymnasium.register(id=ENV_ID, entry_point="mundus_net.rl.single:MundusEnv")
