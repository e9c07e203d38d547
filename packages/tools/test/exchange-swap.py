"""Swaps two paths atomically with renameat2(RENAME_EXCHANGE), over and over, until killed.

Usage: python3 exchange-swap.py A B [SECONDS]

Used by the workspace race tests: A is a real folder inside the workspace root and B a symlink to
a folder outside it, so a path through A is inside one instant and outside the next. Prints
"ready" after the first exchange, so the test starts calling tools only once swapping runs. Exits
on its own after SECONDS (default 120) or when its parent dies, so a crashed test leaves no
spinning orphan behind.
"""

import ctypes
import os
import platform
import sys
import time

AT_FDCWD = -100
RENAME_EXCHANGE = 2
# renameat2 syscall numbers, for a glibc older than 2.28 that lacks the wrapper.
SYSCALL_RENAMEAT2 = {"x86_64": 316, "aarch64": 276}

libc = ctypes.CDLL(None, use_errno=True)
a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
deadline = time.monotonic() + (float(sys.argv[3]) if len(sys.argv) > 3 else 120.0)
parent = os.getppid()


def exchange():
    if hasattr(libc, "renameat2"):
        result = libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
    else:
        number = SYSCALL_RENAMEAT2[platform.machine()]
        result = libc.syscall(number, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


exchange()
print("ready", flush=True)
swaps = 1
while True:
    exchange()
    swaps += 1
    # Checking the clock and parent every swap would slow the swapping down; every 1,000 is enough.
    if swaps % 1000 == 0 and (time.monotonic() > deadline or os.getppid() != parent):
        break
