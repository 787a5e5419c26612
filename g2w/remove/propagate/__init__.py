"""Flow-guided propagation: fill the UI hole with world pixels seen in other frames.

Screen-space UI stays put while the camera moves, so the world behind a widget is usually
visible a few frames earlier or later. Per chunk of frames:

1. optical flow between neighbouring frames (OpenCV DIS) on a crop around the union of the
   holes, scaled to at most 160 px on its long side; inside each hole the flow is unknown (the
   UI does not move), so it is completed from the flow around it (an affine motion fitted to a
   ring around the hole);
2. a forward pass carries known pixels from frame t-1 into frame t's hole along the flow, and a
   backward pass does the same from t+1; each filled pixel remembers how many steps it travelled;
3. where both passes reach a pixel they are blended with weights 1/steps (the nearer frame in
   time counts more); pixels neither pass reaches within `RimCheck.max_steps` frames (never
   visible nearby) are filled spatially with Telea;
4. each hole is checked on a ring of known pixels around it, traced the same way: where the
   propagation mispredicts that ring (the flow behind the widget was guessed wrong), the whole
   hole gets Telea's fill instead (`RimCheck`).

Only hole pixels change: every pixel outside the hole is the decoded source frame, exactly (the
output video is then H.264-encoded like every other method's). Chunks are independent, so
memory is bounded by `chunk_frames` however long the video.

Modules, one step each: `flow` (flow and its completion inside holes), `trace` (passes along
the flow), `fallback` (Telea and the rim check), `schedule` (the fill's two threads), `fill`
(one chunk), `run` (a whole case: shared decode, chunks, encode).
"""

from g2w.remove.propagate.fallback import NO_CHECK, RimCheck
from g2w.remove.propagate.fill import fill_chunk
from g2w.remove.propagate.run import propagate, unblend_propagate

__all__ = ["NO_CHECK", "RimCheck", "fill_chunk", "propagate", "unblend_propagate"]
