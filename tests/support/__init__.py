"""The tests' floor: the helpers test modules import (fixtures stay in tests/conftest.py).

- :mod:`support.positions`: build a game and arrange the position a rule test needs.
- :mod:`support.clock`: the one fake clock.
- :mod:`support.table`: the host's table driven through the protocol's codec, no sockets.
- :mod:`support.net`: the in-memory table-and-client pair (a Table and client cores).
- :mod:`support.waits`: waits with deadlines, and free loopback ports.
"""
