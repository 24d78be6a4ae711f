"""Driving a :class:`~client.connection.Connection` from a thread or from asyncio.

ZeroMQ sockets belong to one thread, so the connection lives in a thread of its own that
polls forever; other threads (or the asyncio loop of a prompt_toolkit UI) hand it work with
:meth:`ConnectionThread.submit`, which wakes the poll at once, and receive its notices
through a callback, a queue, or an async iterator.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import queue
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from typing import TypeVar

from mundus_net.client.connection import Closed, Connection, Notice, Welcome
from mundus_net.engine.decisions import Decision
from mundus_net.engine.view import StateView

T = TypeVar("T")
POLL_SLICE_S = 0.5  # how long one poll may block (submit wakes it early anyway)


class ConnectionThread:
    """Runs ``conn`` in a daemon thread. Notices go to ``on_notice`` (called in that thread)
    and to :attr:`notices` (a thread-safe queue) unless a callback is given."""

    def __init__(self, conn: Connection,
                 on_notice: Callable[[Notice], None] | None = None) -> None:
        self.conn = conn
        self.on_notice = on_notice
        self.notices: queue.Queue[Notice] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._welcome: concurrent.futures.Future[Welcome] = concurrent.futures.Future()

    def start(self, timeout: float = 10.0) -> Welcome:
        """Connect (in the connection's thread) and return the welcome; raises what
        :meth:`Connection.connect` raises."""
        self._thread = threading.Thread(target=self._run, args=(timeout,), daemon=True,
                                        name=f"mundus-client-{self.conn.name}")
        self._thread.start()
        return self._welcome.result(timeout + 5)

    def _run(self, timeout: float) -> None:
        try:
            welcome = self.conn.connect(timeout)
        except BaseException as exc:
            self._welcome.set_exception(exc)
            return
        self._welcome.set_result(welcome)
        while not self._stop.is_set() and not self.conn.closed:
            for notice in self.conn.poll(POLL_SLICE_S):
                self._deliver(notice)
        if not self.conn.closed:
            self.conn.close()
        for notice in self.conn.poll(0):
            self._deliver(notice)

    def _deliver(self, notice: Notice) -> None:
        if self.on_notice is not None:
            self.on_notice(notice)
        else:
            self.notices.put(notice)

    def submit(self, fn: Callable[[Connection], T]) -> concurrent.futures.Future[T]:
        """Run ``fn(conn)`` in the connection's thread; its result (or exception) arrives
        in the returned future."""
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def call() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn(self.conn))
            except BaseException as exc:
                future.set_exception(exc)

        self.conn.call_soon(call)
        return future

    def decide(self, decision: Decision) -> concurrent.futures.Future[int]:
        return self.submit(lambda c: c.decide(decision))

    def offer(self, cards: Sequence[int]) -> concurrent.futures.Future[int]:
        return self.submit(lambda c: c.offer(cards))

    def chat(self, text: str) -> concurrent.futures.Future[int]:
        return self.submit(lambda c: c.chat(text))

    def view(self) -> concurrent.futures.Future[StateView]:
        """A consistent view, taken in the connection's thread."""
        return self.submit(lambda c: c.view())

    def stop(self, timeout: float = 2.0) -> None:
        """Say bye, close and wait for the thread."""
        self._stop.set()
        if self._thread is not None and self._thread.is_alive():
            self.conn.call_soon(lambda: None)  # wake the poll
            self._thread.join(timeout)


class AsyncConnection:
    """The asyncio face of a connection (for a prompt_toolkit UI): ``await connect()``,
    ``async for notice in conn.notices()``, ``await decide(...)``."""

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self._queue: asyncio.Queue[Notice] | None = None
        self._runner: ConnectionThread | None = None

    async def connect(self, timeout: float = 10.0) -> Welcome:
        loop = asyncio.get_running_loop()
        q: asyncio.Queue[Notice] = asyncio.Queue()
        self._queue = q

        def deliver(notice: Notice) -> None:
            loop.call_soon_threadsafe(q.put_nowait, notice)

        self._runner = ConnectionThread(self.conn, on_notice=deliver)
        return await loop.run_in_executor(None, self._runner.start, timeout)

    async def notices(self) -> AsyncIterator[Notice]:
        """Every notice, until the connection is closed."""
        assert self._queue is not None, "connect first"
        while True:
            notice = await self._queue.get()
            yield notice
            if isinstance(notice, Closed):
                return

    def _thread(self) -> ConnectionThread:
        assert self._runner is not None, "connect first"
        return self._runner

    async def decide(self, decision: Decision) -> int:
        return await asyncio.wrap_future(self._thread().decide(decision))

    async def offer(self, cards: Sequence[int]) -> int:
        return await asyncio.wrap_future(self._thread().offer(cards))

    async def chat(self, text: str) -> int:
        return await asyncio.wrap_future(self._thread().chat(text))

    async def view(self) -> StateView:
        return await asyncio.wrap_future(self._thread().view())

    async def close(self) -> None:
        if self._runner is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._runner.stop)
