"""host: one table on the network (docs/protocol.md).

``host.table.Table`` is the socket-free table logic (seats, commit-reveal, deadlines, updates);
``host.server.Host`` serves it over ZeroMQ; ``host.cli`` is ``mundus host``.
"""
