"""Seekable reads of an object-store file in large aligned blocks.

A demuxer asks for small pieces (PyAV reads through a 32 KiB buffer) and seeks back and forth
between the index and the packets. Passed straight to an object store, every small read becomes
one ranged GET with its own round trip, so a clip costs hundreds of requests and the latency of
each. Reading whole blocks and keeping the last few turns that into a handful of GETs per clip,
while memory stays bounded by `blocks` x `block_size` whatever the file's length.
"""

from __future__ import annotations

import io
from collections import OrderedDict
from typing import BinaryIO

BLOCK_SIZE = 4 << 20  # bytes per GET: a few round trips per 5 s 720p clip
BLOCKS = 4  # blocks kept: the index at one end of a file and the packets being read at another


class BlockReader(io.RawIOBase):
    """A read-only, seekable view of `raw` (a seekable file of `size` bytes) that reads it in
    aligned blocks of `block_size` bytes, keeping the `blocks` most recently used. A read at
    least one block long goes to `raw` directly, so copying a file whole costs no extra memory."""

    def __init__(self, raw: BinaryIO, size: int, block_size: int = BLOCK_SIZE, blocks: int = BLOCKS):
        super().__init__()
        if block_size <= 0 or blocks <= 0:
            raise ValueError("block_size and blocks must be positive")
        self._raw, self._size, self._block, self._keep = raw, size, block_size, blocks
        self._pos = 0
        self._cache: OrderedDict[int, bytes] = OrderedDict()

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def _block_at(self, index: int) -> bytes:
        if index in self._cache:
            self._cache.move_to_end(index)
            return self._cache[index]
        self._raw.seek(index * self._block)
        data = self._raw.read(self._block)
        self._cache[index] = data
        while len(self._cache) > self._keep:
            self._cache.popitem(last=False)
        return data

    def readinto(self, buffer) -> int:
        view = memoryview(buffer).cast("B")
        want = min(len(view), self._size - self._pos)
        if want <= 0:
            return 0
        if want >= self._block:
            self._raw.seek(self._pos)
            data = self._raw.read(want)
            view[: len(data)] = data
            self._pos += len(data)
            return len(data)
        done = 0
        while done < want:
            index, offset = divmod(self._pos, self._block)
            chunk = self._block_at(index)[offset : offset + want - done]
            if not chunk:
                break
            view[done : done + len(chunk)] = chunk
            done += len(chunk)
            self._pos += len(chunk)
        return done

    def close(self) -> None:
        if not self.closed:
            self._cache.clear()
            self._raw.close()
        super().close()
