"""The client library: a connection to a table (docs/protocol.md), the state files it keeps,
LAN discovery and ``mundus bot``; the terminal client is :mod:`mundus_net.client.tui`. It
never imports :mod:`mundus_net.host` (docs/architecture.md)."""
