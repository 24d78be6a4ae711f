"""host: one table on the network (docs/protocol.md).

``mundus_net.host.table.Table`` is the socket-free table logic (seats, commit-reveal, deadlines),
and its ``output`` (``mundus_net.host.updates.TableOutput``) what it tells (states, updates,
private messages); ``mundus_net.host.server.Host`` serves it over ZeroMQ;
``mundus_net.host.cli`` is ``mundus host``.

Each module lists its public names in ``__all__``; this package imports none of them itself, so
a command loads only what it runs.
"""
