"""The mundus-net wire protocol: msgpack messages over ZeroMQ (docs/protocol.md).

It knows the engine's values (decisions, events, views) but nothing of sockets' owners: the
host and the client both build on it.
"""

from mundus_net.protocol.errors import ERROR_CODES, ProtocolError
from mundus_net.protocol.messages import PROTOCOL_VERSION, decode_client, decode_host, encode

__all__ = ["ERROR_CODES", "PROTOCOL_VERSION", "ProtocolError", "decode_client", "decode_host",
           "encode"]
