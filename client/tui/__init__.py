"""The terminal client (prompt_toolkit): the table screen, its sentences and help, and the
``mundus join``/``watch``/``replay`` commands. Built on :mod:`mundus_net.client`; nothing
else imports it (docs/architecture.md).

Each module lists its public names in ``__all__``; this package imports none of them itself, so
a command loads only what it runs.
"""
