"""g2w: turn in-the-wild gameplay video into world-model training data.

The core library. Steps here are plain Python; only `g2w.runtime` imports Ray.
"""

__version__ = "0.1.0"
