"""Object-store reads in blocks: the bytes are the file's whatever the read pattern, the
requests are a few per block instead of one per small read, and PyAV decodes through it."""

import io

import numpy as np
import pytest

from g2w.io import storage
from g2w.io.block_reader import BlockReader
from g2w.video import iter_frames


class CountingFile(io.BytesIO):
    """A seekable file that counts the reads that reach it (each would be one GET)."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.reads = 0

    def read(self, n=-1):
        self.reads += 1
        return super().read(n)


def test_random_small_reads_return_the_files_bytes_with_few_underlying_reads():
    data = np.random.default_rng(0).integers(0, 256, 1 << 20, np.uint8).tobytes()
    raw = CountingFile(data)
    f = BlockReader(raw, len(data), block_size=64 << 10, blocks=2)
    rng = np.random.default_rng(1)
    for _ in range(500):
        offset, length = int(rng.integers(0, len(data))), int(rng.integers(1, 40_000))
        f.seek(offset)
        assert f.read(length) == data[offset : offset + length]
    f.seek(0)
    sequential = b"".join(iter(lambda: f.read(32 << 10), b""))
    assert sequential == data
    assert raw.reads <= 2 * 500 + 16  # a random read spans at most two blocks; sequential ones cost one per block


def test_reads_match_the_bytes_exactly():
    data = bytes(range(256)) * 1000
    f = BlockReader(CountingFile(data), len(data), block_size=1000, blocks=2)
    for offset, length in ((0, 10), (995, 10), (999, 2001), (len(data) - 3, 10), (len(data) + 5, 4), (10, 5000)):
        f.seek(offset)
        assert f.read(length) == data[offset : offset + length], (offset, length)
    f.seek(-4, io.SEEK_END)
    assert f.read() == data[-4:] and f.tell() == len(data)


def test_sequential_small_reads_cost_one_read_per_block():
    data = b"x" * (10 * 1000)
    raw = CountingFile(data)
    f = BlockReader(raw, len(data), block_size=1000, blocks=2)
    while f.read(32):
        pass
    assert raw.reads == 10


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError):
        BlockReader(CountingFile(b""), 0, block_size=0)


def test_a_clip_on_s3_decodes_to_the_local_frames(make_video, s3_bucket):
    path = make_video(frames=40, width=320, height=192)
    uri = f"{s3_bucket}/in/clip.mp4"
    with open(path, "rb") as f:
        storage.write_bytes(uri, f.read())
    local = [d.rgb for d in iter_frames(path)]
    remote = [d.rgb for d in iter_frames(uri)]
    assert len(remote) == 40 and all(np.array_equal(a, b) for a, b in zip(local, remote))
