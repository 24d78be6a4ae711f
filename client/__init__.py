"""The client library: a connection to a table (docs/protocol.md) as a socket-free protocol
core (:mod:`mundus_net.client.core`), the notices it tells
(:mod:`mundus_net.client.notices`) and a thin ZeroMQ transport
(:mod:`mundus_net.client.connection`), the state files it keeps, LAN discovery and
``mundus bot``; the terminal client is :mod:`mundus_net.client.tui`. It never imports
:mod:`mundus_net.host` (docs/architecture.md).

Each module lists its public names in ``__all__``; this package imports none of them itself, so
a command loads only what it runs.
"""
