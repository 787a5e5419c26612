"""The cube2 clock shim pins what made two runs of one match differ: time() and player addresses.

Built with the system C compiler and preloaded into a Python child (no cube2 packages needed);
skipped where there is no compiler.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from g2w.capture import cube2

PIN = cube2.PLAYER_BYTES
# A child that perturbs its heap by a different amount each time, then reports time() and the
# low 12 bits (what the engine's animation phase reads) of pinned and ordinary allocations.
CHILD = f"""
import ctypes, sys
libc = ctypes.CDLL(None)
libc.malloc.restype = ctypes.c_void_p
libc.free.argtypes = [ctypes.c_void_p]
libc.time.restype = ctypes.c_long
junk = [libc.malloc(16 + 48 * i) for i in range(int(sys.argv[1]))]
a, b = libc.malloc({PIN}), libc.malloc({PIN})
libc.free(a)
c = libc.malloc({PIN})
other = libc.malloc({PIN} + 16)
print(libc.time(None), a % 4096, b % 4096, c % 4096, c == a, other % 4096)
"""


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (scripts/capture-deps.sh cube2 installs one)")
    out = str(tmp_path_factory.mktemp("shim") / "fixedclock.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-o", out, cube2.SHIM_SOURCE, "-ldl", "-pthread"], check=True)
    return out


def _child(shim: str, perturb: int) -> list[int]:
    env = {**os.environ, "LD_PRELOAD": shim, "G2W_PIN_SIZE": str(PIN)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(perturb)], env=env, capture_output=True, text=True, check=True
    ).stdout
    return [int(v == "True") if v in ("True", "False") else int(v) for v in out.split()]


def test_time_and_player_addresses_do_not_depend_on_the_run(shim):
    first, second = _child(shim, 3), _child(shim, 211)
    now, a, b, c, reused, _ = first
    assert now == 1609459200  # the fixed date: no frame presented yet
    assert first[:5] == second[:5]  # same seed, same low address bits, however the heap lay
    assert a != b and reused == 1  # distinct players; a freed slot is given out again


def test_other_sizes_stay_on_the_heap(shim):
    assert len({_child(shim, n)[5] for n in (3, 4, 5, 211)}) > 1  # the heap's own layout shows through
