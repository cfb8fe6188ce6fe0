"""Long native operations: progress reports, and KeyboardInterrupt as cancellation.

A long operation (writing data, building or optimizing an index, training, merging) runs
with the GIL released. Called from the main thread it runs on a helper thread while the main
thread waits, with a SIGINT handler of its own installed: Ctrl-C then asks the engine to
cancel, and the waiting thread raises KeyboardInterrupt once the engine has stopped. The engine honours the request until the operation begins its commit,
so an interrupted operation either committed nothing (the usual case) or completed; either
way KeyboardInterrupt is raised, with a note saying which.
"""

from __future__ import annotations

import signal
import sys
import threading
from typing import Any, Callable, Optional, TypeVar, Union

from . import _native
from .errors import CancelledError

T = TypeVar("T")

#: Called as ``progress(phase, done, total, unit)``: phase is "writing", "training",
#: "building", "merging", ...; total is 0 when unknown.
ProgressCallback = Callable[[str, int, int, str], None]
Progress = Union[None, bool, ProgressCallback]


class _TqdmProgress:
    """One tqdm bar per phase."""

    def __init__(self, tqdm: Any) -> None:
        self._tqdm = tqdm
        self._bar: Any = None
        self._phase = ""

    def __call__(self, phase: str, done: int, total: int, unit: str) -> None:
        if self._bar is None or phase != self._phase:
            self.close()
            self._phase = phase
            self._bar = self._tqdm(total=total or None, desc=phase, unit=f" {unit}", leave=False)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _callback(progress: Progress) -> Optional[Callable[..., None]]:
    if progress is False:
        return None
    if callable(progress):
        return progress
    # None: a progress bar when a person is watching, if tqdm is installed.
    if progress is None and not (hasattr(sys.stderr, "isatty") and sys.stderr.isatty()):
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return _TqdmProgress(tqdm)


def run(work: Callable[[Any], T], progress: Progress = None) -> T:
    """Runs ``work(control)`` with progress reports and Ctrl-C as cancellation."""
    callback = _callback(progress)
    control = _native.Control(callback)
    try:
        if threading.current_thread() is not threading.main_thread():
            return _finish(control, lambda: work(control))
        return _run_interruptible(work, control)
    finally:
        if isinstance(callback, _TqdmProgress):
            callback.close()


def _finish(control: Any, call: Callable[[], T]) -> T:
    try:
        return call()
    except CancelledError:
        callback_error = control.take_error()
        if callback_error is not None:  # the progress callback raised: that is the error
            raise callback_error from None
        raise


def _run_interruptible(work: Callable[[Any], T], control: Any) -> T:
    outcome: dict[str, Any] = {}
    finished = threading.Event()

    def target() -> None:
        try:
            outcome["result"] = work(control)
        except BaseException as error:  # noqa: B036 - handed to the waiting thread
            outcome["error"] = error
        finally:
            finished.set()

    # Ctrl-C is taken by a handler of our own while the operation runs, so that it cancels
    # wherever the waiting thread happens to be (a KeyboardInterrupt raised between two
    # statements of the wait loop would escape it without cancelling). A handler the program
    # installed itself is left alone; the except clause below then cancels.
    interrupts: list[KeyboardInterrupt] = []

    def on_interrupt(signum: int, frame: Any) -> None:
        control.cancel()
        interrupts.append(KeyboardInterrupt())

    previous = signal.getsignal(signal.SIGINT)
    own_handler = previous is signal.default_int_handler
    if own_handler:
        signal.signal(signal.SIGINT, on_interrupt)
    thread = threading.Thread(target=target, name="tessera-operation", daemon=True)
    try:
        thread.start()
        while not finished.wait(0.05):
            pass
    except BaseException:
        # Anything else raised in this thread meanwhile (a signal handler's SystemExit, a
        # KeyboardInterrupt of a custom handler): cancel, wait for the engine to stop, and let
        # it go on. Never leave the operation running behind the caller's back.
        control.cancel()
        while not finished.is_set():
            try:
                finished.wait(0.05)
            except BaseException:  # noqa: B036 - still waiting for the engine
                control.cancel()
        control.take_error()
        raise
    finally:
        if own_handler:
            signal.signal(signal.SIGINT, previous)
    thread.join()
    error = outcome.get("error")
    callback_error = control.take_error() if isinstance(error, CancelledError) else None
    if interrupts:
        interrupted = interrupts[0]
        if isinstance(error, CancelledError):
            _note(interrupted, f"tessera: cancelled; nothing was committed ({error})")
            raise interrupted from error
        if error is None:
            _note(interrupted, "tessera: the operation had begun its commit and completed")
            raise interrupted
        raise interrupted from error
    if error is not None:
        if callback_error is not None:
            raise callback_error from None
        raise error
    return outcome["result"]


def _note(error: BaseException, text: str) -> None:
    add_note = getattr(error, "add_note", None)
    if add_note is not None:
        add_note(text)
