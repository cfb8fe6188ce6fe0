"""Long operations: progress reports, cancellation (a raising callback, Ctrl-C), the GIL."""

from __future__ import annotations

import signal
import threading
import time

import pytest

import tessera
from conftest import sample_table


@pytest.fixture
def big(tmp_path):
    # Large enough that training and building take a good part of a second.
    return tessera.create(tmp_path / "big", sample_table(rows=20000, dim=64), max_rows_per_file=5000)


def test_progress_reports_phases(big):
    reports = []
    big.create_index(
        "vector", "IVF_PQ", num_partitions=8, num_sub_vectors=8, progress=lambda *r: reports.append(r)
    )
    phases = [phase for phase, *_ in reports]
    assert "training" in phases and "building" in phases
    building = [(done, total, unit) for phase, done, total, unit in reports if phase == "building"]
    assert building[-1] == (20000, 20000, "rows")
    assert all(a[0] <= b[0] for a, b in zip(building, building[1:]))


def test_a_raising_callback_cancels_and_its_exception_surfaces(big):
    class Stop(Exception):
        pass

    def callback(phase, done, total, unit):
        if phase == "building":
            raise Stop("enough")

    with pytest.raises(Stop, match="enough"):
        big.create_index("vector", "IVF_FLAT", num_partitions=8, progress=callback)
    assert big.version == 1 and big.checkout().version == 1  # nothing committed
    assert big.list_indexes() == []


def test_keyboard_interrupt_cancels_before_the_commit(big):
    interrupted = []

    def interrupt_once(phase, done, total, unit):
        if not interrupted:
            interrupted.append(phase)
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)  # Ctrl-C

    with pytest.raises(KeyboardInterrupt) as raised:
        big.create_index("vector", "IVF_PQ", num_partitions=8, num_sub_vectors=8, progress=interrupt_once)
    assert interrupted
    assert isinstance(raised.value.__cause__, tessera.CancelledError)
    assert "nothing was committed" in str(raised.value.__cause__)
    assert big.checkout().version == 1


def test_keyboard_interrupt_cancels_a_write(tmp_path):
    def interrupt(phase, done, total, unit):
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)

    reader = sample_table(rows=50000, dim=8).to_reader(max_chunksize=1000)
    with pytest.raises(KeyboardInterrupt):
        tessera.create(tmp_path / "ds", reader, progress=interrupt)
    with pytest.raises(tessera.NotFoundError):
        tessera.open(tmp_path / "ds")


def test_the_gil_is_released_during_native_work(big):
    # A second Python thread keeps running while the main thread builds an index: the
    # longest pause it sees is a small part of the build's duration.
    stop = threading.Event()
    ticks = []

    def ticker():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    thread = threading.Thread(target=ticker)
    thread.start()
    try:
        start = time.monotonic()
        big.create_index("vector", "IVF_PQ", num_partitions=16, num_sub_vectors=16, progress=False)
        end = time.monotonic()
    finally:
        stop.set()
        thread.join()
    during = [t for t in ticks if start <= t <= end]
    assert len(during) > 10
    gaps = [b - a for a, b in zip([start, *during], [*during, end])]
    assert max(gaps) < max(0.2, (end - start) / 3), (max(gaps), end - start)


def test_operations_from_other_threads_run_directly(big):
    outcome = {}

    def work():
        big.create_index("id", "BTREE", progress=lambda *r: outcome.setdefault("progress", r))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert big.list_indexes()[0]["name"] == "id_idx" and "progress" in outcome


def test_default_progress_is_silent_without_a_terminal(big, capsys):
    big.create_index("id", "BTREE")
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_another_exception_while_waiting_cancels_before_it_propagates(big):
    # A signal handler of the program raising in the waiting thread: the operation is
    # cancelled and waited for, never left running behind the caller.
    class Stop(Exception):
        pass

    def raise_stop(signum, frame):
        raise Stop("from a signal handler")

    previous = signal.signal(signal.SIGUSR1, raise_stop)
    try:
        def poke(phase, done, total, unit):
            signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)

        with pytest.raises(Stop):
            big.create_index("vector", "IVF_PQ", num_partitions=8, num_sub_vectors=8, progress=poke)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert big.checkout().version == 1
    assert threading.active_count() == 1  # no operation thread left behind
