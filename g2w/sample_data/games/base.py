"""The interface every procedural game scene implements."""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np


class Scene(ABC):
    """One continuous place in a game, rendered as a pure function of time.

    `cam_t` drives the camera (how far it has travelled); `anim_t` drives things that move on
    their own (characters, clouds). Keeping them apart lets a timeline stall the camera while
    the world stays alive, freeze both, or replay an earlier moment exactly.
    """

    def __init__(self, rng: np.random.Generator, width: int, height: int):
        self.rng = rng
        self.width, self.height = width, height

    @abstractmethod
    def render(self, cam_t: float, anim_t: float) -> np.ndarray:
        """The RGB uint8 frame, shape (height, width, 3), at these times."""
