"""Driving a :class:`~client.connection.Connection` from a thread or from asyncio.

ZeroMQ sockets belong to one thread, so the connection lives in a thread of its own that
polls forever; other threads (or the asyncio loop of a prompt_toolkit UI) hand it work with
:meth:`ConnectionThread.submit`, which wakes the poll at once, and receive its notices
through a callback, a queue, or an async iterator.

An unexpected exception in that thread (a bug, or a callback that fails) does not vanish with
the thread: its traceback goes to the crash log (:func:`record_crash`, ``client-crash.log`` in
the state folder), the connection is closed, and ``on_error`` (or a :class:`Closed` notice)
tells the user of the thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import datetime
import os
import queue
import sys
import threading
import traceback
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TypeVar

from mundus_net.client.connection import Connection, ConnectTimeout
from mundus_net.client.core import ClientError
from mundus_net.client.notices import Closed, Notice, Welcome
from mundus_net.engine.view import StateView
from mundus_net.protocol.statedir import state_dir

__all__ = [
    "CRASHED", "CRASH_LOG", "POLL_SLICE_S", "AsyncConnection", "ConnectionThread",
    "crash_log_path", "record_crash"
]

T = TypeVar("T")
POLL_SLICE_S = 0.5  # how long one poll may block (submit wakes it early anyway)
CRASH_LOG = "client-crash.log"
CRASHED = "the connection stopped on an unexpected error"  # the reason of its Closed notice


def crash_log_path() -> Path:
    """Where :func:`record_crash` writes: ``client-crash.log`` in the state folder."""
    return state_dir() / CRASH_LOG


def record_crash(exc: BaseException, where: str, path: Path | None = None) -> Path | None:
    """Append ``exc``'s traceback to the crash log (``path``, by default
    :func:`crash_log_path`), under a line with the time and ``where`` it happened; returns
    the file's path, or None when it cannot be written (then the traceback goes to nowhere:
    never to a screen a person reads)."""
    path = path or crash_log_path()
    stamp = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
    text = (f"--- {stamp} mundus client, {where} (process {os.getpid()}, Python "
            f"{sys.version.split()[0]})\n"
            + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)) + "\n")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as out:
            out.write(text)
    except OSError:
        return None
    return path


class ConnectionThread:
    """Runs ``conn`` in a daemon thread. Notices go to ``on_notice`` (called in that thread)
    and to :attr:`notices` (a thread-safe queue) unless a callback is given.

    An unexpected exception in the thread (in the connection, or in ``on_notice``) is kept
    in :attr:`error`, written to the crash log (:attr:`crash_log`: its path, None if it could
    not be written), and the connection is closed; then ``on_error(exc, crash_log)`` is
    called in that thread if given, else a :class:`Closed` notice (reason :data:`CRASHED`)
    is delivered as any other. What is submitted afterwards fails with :class:`ClientError`."""

    def __init__(self, conn: Connection,
                 on_notice: Callable[[Notice], None] | None = None,
                 on_error: Callable[[BaseException, Path | None], None] | None = None) -> None:
        self.conn = conn
        self.on_notice = on_notice
        self.on_error = on_error
        self.error: BaseException | None = None
        self.crash_log: Path | None = None
        self.notices: queue.Queue[Notice] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._done = False  # the thread has left its loop: submitted work no longer runs
        self._stop = threading.Event()
        self._welcome: concurrent.futures.Future[Welcome] = concurrent.futures.Future()

    @property
    def thread(self) -> threading.Thread | None:
        """The connection's thread (None before :meth:`start`)."""
        return self._thread

    def start(self, timeout: float = 10.0) -> Welcome:
        """Connect (in the connection's thread) and return the welcome; raises what
        :meth:`Connection.connect` raises."""
        self._thread = threading.Thread(target=self._run, args=(timeout,), daemon=True,
                                        name=f"mundus-client-{self.conn.core.settings.name}")
        self._thread.start()
        try:
            return self._welcome.result(timeout + 5)
        except concurrent.futures.TimeoutError:
            raise ConnectTimeout(f"no answer from {self.conn.address} in {timeout:g} s") \
                from None

    def _run(self, timeout: float) -> None:
        try:
            welcome = self.conn.connect(timeout)
        except BaseException as exc:
            with self._lock:
                self._done = True
            self._welcome.set_exception(exc)
            return
        self._welcome.set_result(welcome)
        try:
            while not self._stop.is_set() and not self.conn.core.closed:
                for notice in self.conn.poll(POLL_SLICE_S):
                    self._deliver(notice)
            if not self.conn.core.closed:
                self.conn.close()
            for notice in self.conn.poll(0):
                self._deliver(notice)
        except Exception as exc:
            self._crashed(exc)
        finally:
            with self._lock:
                self._done = True
            with contextlib.suppress(Exception):  # what was handed over runs (and fails)
                self.conn._run_calls()

    def _crashed(self, exc: Exception) -> None:
        self.error = exc
        self.crash_log = record_crash(exc, "the connection thread")
        with contextlib.suppress(Exception):  # whatever state it is in: no sockets left
            self.conn.close(bye=False)
        # Told once; a failure to tell must not throw a traceback onto the terminal.
        with contextlib.suppress(Exception):
            if self.on_error is not None:
                self.on_error(exc, self.crash_log)
            else:
                self._deliver(Closed(CRASHED))

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
            if self.error is not None:
                future.set_exception(ClientError("the connection is closed"))
                return
            try:
                future.set_result(fn(self.conn))
            except BaseException as exc:
                future.set_exception(exc)

        with self._lock:
            if not self._done:
                self.conn.call_soon(call)
                return future
        if future.set_running_or_notify_cancel():  # the thread has ended: nothing runs it
            future.set_exception(ClientError("the connection is closed"))
        return future

    def chat(self, text: str) -> concurrent.futures.Future[int]:
        return self.submit(lambda c: c.chat(text))

    def accept_rewind(self) -> concurrent.futures.Future[int | None]:
        """Go on after the host went back (Connection.accept_rewind), said at the table."""
        return self.submit(lambda c: c.accept_rewind())

    def view(self) -> concurrent.futures.Future[StateView]:
        """A consistent view, taken in the connection's thread."""
        return self.submit(lambda c: c.core.view())

    def stop(self, timeout: float = 2.0) -> None:
        """Say bye, close and wait for the thread."""
        self._stop.set()
        if self._thread is not None and self._thread.is_alive():
            self.conn.call_soon(lambda: None)  # wake the poll
            self._thread.join(timeout)


class AsyncConnection:
    """The asyncio face of a connection (for a prompt_toolkit UI): ``await connect()``,
    ``async for notice in conn.notices()``, ``await submit(lambda c: c.decide(...))``."""

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

    async def submit(self, fn: Callable[[Connection], T]) -> T:
        """Run ``fn(conn)`` in the connection's thread (:meth:`ConnectionThread.submit`);
        a decision goes as ``await conn.submit(lambda c: c.decide(decision))``."""
        return await asyncio.wrap_future(self._thread().submit(fn))

    async def chat(self, text: str) -> int:
        return await asyncio.wrap_future(self._thread().chat(text))

    async def view(self) -> StateView:
        return await asyncio.wrap_future(self._thread().view())

    async def close(self) -> None:
        if self._runner is not None:
            await asyncio.get_running_loop().run_in_executor(None, self._runner.stop)
