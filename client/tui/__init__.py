"""The terminal client (prompt_toolkit): the table screen, its sentences and help, and the
``mundus join``/``watch``/``replay`` commands. Built on :mod:`mundus_net.client`; nothing
else imports it (docs/architecture.md)."""
