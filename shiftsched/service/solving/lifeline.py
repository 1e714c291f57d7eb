"""Processes that live and die with the process that started them.

Why: the web worker and its solver processes must never outlive the service they belong
to. BentoML's supervisor starts the web worker in a session of its own, so a SIGKILL of
the supervisor's process group (an out-of-memory killer, a careless stop) misses it; an
orphaned worker would stay bound to the port, answering and charging. A solver process
whose owner died would solve on for nobody.

- The web worker asks the kernel to send it SIGTERM when its supervisor dies
  (``prctl(PR_SET_PDEATHSIG)``, Linux), then checks its parent is still the one it
  started with, since the supervisor may have died before the request was made. SIGTERM,
  not SIGKILL: the worker then stops as on any stop (``shiftsched.service.solving.stopping``),
  refusing new work and letting running solves end within the grace.
- A solver process keeps one thread that takes every SIGTERM sent to it
  (``sigtimedwait``, with SIGTERM blocked in every thread) and looks at its parent
  between signals. A SIGTERM from its owner (the pool stopping the process: a missed
  deadline, a cut-off solve, the pool's close) ends it at once, even in the middle of
  native solver code; one from anyone else is a stop of the whole service (BentoML's
  supervisor passes SIGTERM to every child of the web worker, a service manager may
  signal every process of the service), which the owner handles: it lets the solve end
  within the grace and then stops the process itself. A process whose owner is gone
  exits within :data:`OWNER_CHECK_SECONDS`. Why not ``PR_SET_PDEATHSIG`` here: the
  kernel ties it to the *thread* that started the process, and the pool starts processes
  from threads that may end long before the pool does.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os
import signal
import sys
import threading
from typing import Final

OWNER_CHECK_SECONDS: Final = 0.5
"""How often a solver process looks whether its owner is still alive."""
EXIT_STOPPED: Final = 128 + signal.SIGTERM
"""The exit status of a solver process its owner stopped: as if SIGTERM had killed it."""
_PR_SET_PDEATHSIG: Final = 1

PARENT_AT_START: Final = os.getppid()
"""The parent when this module was first imported, early in the process's life."""

log = logging.getLogger(__name__)


def die_with_parent(signum: int = signal.SIGTERM, parent: int = PARENT_AT_START) -> bool:
    """Have the kernel send ``signum`` to this process when its parent dies (Linux only;
    False elsewhere). Should the parent already be gone, the signal is sent now."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
        error = ctypes.get_errno()
        log.warning("cannot tie this process to its parent: %s", os.strerror(error))
        return False
    if os.getppid() != parent:  # the parent died before the request took effect
        os.kill(os.getpid(), signum)
    return True


def bind_to_owner(owner: int) -> None:
    """In a solver process, from its main thread before any other thread starts: take
    SIGTERM in a thread of its own (module docstring) and exit when ``owner`` is gone."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
    thread = threading.Thread(target=_watch_owner, args=(owner,), name="lifeline", daemon=True)
    thread.start()


def _watch_owner(owner: int) -> None:
    while True:
        received = signal.sigtimedwait({signal.SIGTERM}, OWNER_CHECK_SECONDS)
        if os.getppid() != owner:
            os._exit(EXIT_STOPPED)  # the owner died: nobody will read the answer
        if received is None:
            continue
        if received.si_pid == owner:
            os._exit(EXIT_STOPPED)  # the owner stops this process
        log.info("SIGTERM from process %d left to the solver pool's owner", received.si_pid)
