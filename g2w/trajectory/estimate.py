"""Per-frame camera rotation and translation direction from tracked features, on the CPU.

Classical and keyframe-based, in one streaming decode at a working width (`work_width`):
- corners (Shi-Tomasi) are found on a keyframe, away from the HUD (pixels of the detector's
  mask, dilated, never give a corner: a HUD stays put while the world moves, and its corners
  would pull every estimate towards "no motion");
- they are followed frame to frame by pyramidal Lucas-Kanade, forward and back, and a track
  whose round trip misses by more than `fb_px` is dropped;
- each frame's pose is estimated against the keyframe, not the previous frame, so errors do not
  compound per frame but per keyframe: a homography (RANSAC) gives the rotation
  R = K^-1 H K (its nearest rotation); where it leaves more than `parallax_px` unexplained, the
  essential matrix (RANSAC) and its cheirality check give the direction of translation;
- a new keyframe starts when fewer than `rekey_fraction` of its tracks survive or after
  `max_key_frames` frames; poses chain through keyframes.
Where the keyframe's tracks collapse in one step or stop supporting a pose, the frame is
related to the previous one directly from fresh corners (a fast turn stays one trajectory); a
frame that no pose relates to the previous one keeps the last pose with confidence 0, and if
both frames have corners (a respawn, a teleport, a cut) it is recorded as a break, which
validation counts as a jump.

Intrinsics: a pinhole camera at the centre with square pixels; the horizontal field of view is
given, or estimated (`g2w.trajectory.intrinsics`) from the first rotation-dominated stretch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from g2w.rotations import nearest_rotation
from g2w.video.decode import iter_video_frames


@dataclass(frozen=True)
class TrackerConfig:
    work_width: int = 640
    max_corners: int = 300
    corner_quality: float = 0.01
    corner_distance: int = 8
    min_tracks: int = 25  # fewer inliers than this: no pose for the frame
    fb_px: float = 1.0  # forward-backward round-trip error that drops a track
    ransac_px: float = 1.0
    parallax_px: float = 0.8  # median residual of the rotation homography above which translation is estimated
    rekey_fraction: float = 0.5
    max_key_frames: int = 30
    hud_dilate_px: int = 6
    lk_window: int = 15
    lk_levels: int = 3
    break_survival: float = 0.5  # fewer of the tracks surviving one step: relate the frame to the previous afresh
    recover_s: float = 1.0  # a break is withdrawn if a frame this soon after it relates to the view before it


@dataclass
class RawTrajectory:
    """What the estimator measured, per frame (n frames)."""

    times: np.ndarray  # (n,) seconds from the segment start
    rotations: np.ndarray  # (n, 3, 3) camera-to-world, world = the first frame's camera
    directions: np.ndarray  # (n, 3) unit translation direction of the step into the frame (world), 0 if unknown
    confidence: np.ndarray  # (n,) 0..1
    methods: list  # per frame: "start" | "homography" | "essential" | "none"
    tracks: np.ndarray  # (n,) inlier tracks behind the pose
    corners: np.ndarray  # (n,) corners a fresh detection finds (measured at keyframes; carried between)
    breaks: np.ndarray  # (n,) bool: no pose relates this frame to the previous though both have corners
    fx: float = 0.0
    work_size: tuple = (0, 0)
    info: dict = field(default_factory=dict)


def intrinsics(width: int, height: int, hfov_deg: float) -> np.ndarray:
    f = width / 2 / math.tan(math.radians(hfov_deg) / 2)
    return np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]], np.float64)


def work_size(width: int, height: int, work_width: int) -> tuple[int, int]:
    scale = min(1.0, work_width / width)
    return max(16, int(round(width * scale / 2)) * 2), max(16, int(round(height * scale / 2)) * 2)


def tracking_mask(hud: np.ndarray | None, size: tuple[int, int], dilate_px: int) -> np.ndarray | None:
    """255 where corners may be found: everything but the (dilated) HUD, at the working size."""
    if hud is None or not np.any(hud):
        return None
    small = cv2.resize(hud, size, interpolation=cv2.INTER_NEAREST)
    kernel = np.ones((2 * dilate_px + 1, 2 * dilate_px + 1), np.uint8)
    return cv2.bitwise_not(cv2.dilate((small > 0).astype(np.uint8) * 255, kernel))


def relative_pose(p0: np.ndarray, p1: np.ndarray, k: np.ndarray, cfg: TrackerConfig, supported: bool = False):
    """(R mapping frame-0 camera rays to frame-1's, unit t or None, inliers, method) or None.

    The rotation is always the homography's: the essential matrix's rotation, decomposed anew
    for every frame, wobbles by about a degree between frames at small baselines, which reads as
    jitter (measured on the walkthroughs, docs/long_horizon.md); the translation direction comes
    from the essential matrix where the rotation leaves parallax to explain. Where parallax defeats
    both fits the rotation is still taken, since a translating camera rarely fits a rotation
    homography; `supported` refuses that and asks for real inliers, for relating views that need
    not be related at all (after a break, where a repeated texture would otherwise match)."""
    if len(p0) < cfg.min_tracks:
        return None
    h, _ = cv2.findHomography(p0, p1, cv2.RANSAC, cfg.ransac_px)
    if h is None:
        return None
    kinv = np.linalg.inv(k)
    r_h = nearest_rotation(kinv @ h @ k)
    pred = (k @ r_h @ kinv @ np.hstack([p0, np.ones((len(p0), 1))]).T).T
    residual = np.linalg.norm(pred[:, :2] / pred[:, 2:3] - p1, axis=1)
    inliers = int(np.count_nonzero(residual < 2 * cfg.ransac_px))
    if np.median(residual) <= cfg.parallax_px:
        return (r_h, None, inliers, "homography") if inliers >= cfg.min_tracks else None
    unsupported = (
        None if supported and inliers < cfg.min_tracks else (r_h, None, max(inliers, cfg.min_tracks), "homography")
    )
    e, mask_e = cv2.findEssentialMat(p0, p1, k, cv2.RANSAC, 0.999, cfg.ransac_px)
    if e is None or e.shape != (3, 3):
        return unsupported
    count, _, t, _ = cv2.recoverPose(e, p0, p1, k, mask=mask_e)
    if count < cfg.min_tracks:
        return unsupported
    return r_h, t.ravel() / max(np.linalg.norm(t), 1e-12), int(count), "essential"


def _corners(gray: np.ndarray, mask: np.ndarray | None, cfg: TrackerConfig) -> np.ndarray:
    pts = cv2.goodFeaturesToTrack(gray, cfg.max_corners, cfg.corner_quality, cfg.corner_distance, mask=mask)
    return np.zeros((0, 2), np.float32) if pts is None else pts.reshape(-1, 2).astype(np.float32)


def _track(prev, cur, pts: np.ndarray, cfg: TrackerConfig, extra_levels: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(n,) bool good tracks and (n, 2) positions in cur."""
    if not len(pts):
        return np.zeros(0, bool), pts
    lk = dict(
        winSize=(cfg.lk_window, cfg.lk_window),
        maxLevel=cfg.lk_levels + extra_levels,
        criteria=(cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 20, 0.03),
    )
    fwd, st1, _ = cv2.calcOpticalFlowPyrLK(prev, cur, pts.reshape(-1, 1, 2), None, **lk)
    back, st2, _ = cv2.calcOpticalFlowPyrLK(cur, prev, fwd, None, **lk)
    fb = np.linalg.norm(back.reshape(-1, 2) - pts, axis=1)
    good = (st1.ravel() == 1) & (st2.ravel() == 1) & (fb < cfg.fb_px)
    return good, fwd.reshape(-1, 2)


def contrast_normalized(gray: np.ndarray, radius: int = 7) -> np.ndarray:
    """Each pixel's brightness relative to its neighbourhood (mean removed, divided by the local
    spread), as uint8. Games tint or flash the whole screen (damage, pickups, muzzle light), which
    breaks the brightness constancy that Lucas-Kanade assumes; local contrast survives it."""
    g = gray.astype(np.float32)
    k = (2 * radius + 1, 2 * radius + 1)
    mean = cv2.boxFilter(g, -1, k)
    spread = np.sqrt(np.maximum(cv2.boxFilter(g * g, -1, k) - mean * mean, 0.0)) + 4.0
    return np.clip(128 + 48 * (g - mean) / spread, 0, 255).astype(np.uint8)


def frames_gray(path: str, start_s: float, end_s: float | None, size: tuple[int, int]):
    """(time from start_s, contrast-normalized gray uint8 at `size`) of every frame of [start_s, end_s)."""
    for _, t, frame in iter_video_frames(path, start_s, end_s, threads=1):
        gray = frame.reformat(width=size[0], height=size[1], format="gray").to_ndarray()
        yield t - start_s, contrast_normalized(gray)


class TrajectoryEstimator:
    """Feed frames one at a time (`add`), then `result()`."""

    def __init__(self, k: np.ndarray, size: tuple[int, int], mask: np.ndarray | None, cfg: TrackerConfig):
        self.k, self.size, self.mask, self.cfg = k, size, mask, cfg
        self.times, self.rot, self.dirs, self.conf, self.methods = [], [], [], [], []
        self.tracks, self.corners, self.breaks = [], [], []
        self.key_pose = np.eye(3)
        self.key_pts = self.cur_pts = None
        self.alive = None
        self.prev = None
        self.key_index = 0
        self.key_corners = 0
        self.anchor: tuple | None = None  # (index of a break, the frame before it, its pose, its corners)

    def _rekey(self, gray: np.ndarray, pose: np.ndarray) -> None:
        self.key_pts = _corners(gray, self.mask, self.cfg)
        self.cur_pts = self.key_pts.copy()
        self.alive = np.ones(len(self.key_pts), bool)
        self.key_pose = pose
        self.key_index = len(self.times) - 1
        self.key_corners = len(self.key_pts)

    def add(self, t: float, gray: np.ndarray) -> None:
        cfg = self.cfg
        self.times.append(t)
        if self.prev is None:
            self._record(np.eye(3), np.zeros(3), 1.0, "start", 0, False)
            self._rekey(gray, np.eye(3))
            self.corners[-1] = self.key_corners
            self.tracks[-1] = self.key_corners
            self.prev = gray
            return
        before = int(self.alive.sum())
        good, moved = _track(self.prev, gray, self.cur_pts[self.alive], cfg)
        idx = np.flatnonzero(self.alive)
        self.alive[idx[~good]] = False
        self.cur_pts[idx[good]] = moved[good]
        alive = np.flatnonzero(self.alive)
        collapsed = before >= cfg.min_tracks and len(alive) < cfg.break_survival * before
        pose = None if collapsed else relative_pose(self.key_pts[alive], self.cur_pts[alive], self.k, cfg)
        if pose is not None:
            r, tdir, inliers, method = pose
            world = self.key_pose @ r.T
            direction = np.zeros(3) if tdir is None else self.key_pose @ (-r.T @ tdir)
            confidence = min(1.0, inliers / max(len(alive), 1)) * min(1.0, inliers / (2 * cfg.min_tracks))
            self._record(world, direction, confidence, method, inliers, False)
            self.corners[-1] = self.key_corners
            age = len(self.times) - 1 - self.key_index
            if len(alive) < cfg.rekey_fraction * self.key_corners or age >= cfg.max_key_frames:
                self._rekey(gray, world)
        else:
            self._step_from_previous(gray)
        if self.anchor is not None and len(self.times) - 1 > self.anchor[0]:
            self._try_recover(gray)
        self.prev = gray

    def _try_recover(self, gray: np.ndarray) -> None:
        """Something covered the view (an explosion filling the screen, a door sliding past) or
        the tracks failed for a moment: if this frame relates to the last view before the break,
        the camera never left, so the break is withdrawn and the pose re-anchored on that view.
        A real jump (a teleport, a respawn, a cut) never relates back and stands after `recover_s`."""
        index, before, pose_before, pts = self.anchor
        if self.times[-1] - self.times[index] > self.cfg.recover_s:
            self.anchor = None
            return
        good, moved = _track(before, gray, pts, self.cfg, extra_levels=2)
        pose = relative_pose(pts[good], moved[good], self.k, self.cfg, supported=True) if len(pts) else None
        if pose is None:
            return
        self.anchor = None
        for k in range(index, len(self.times)):
            self.breaks[k] = False
        world = pose_before @ pose[0].T
        self.rot[-1] = world
        self._rekey(gray, world)
        self.corners[-1] = self.key_corners

    def _step_from_previous(self, gray: np.ndarray) -> None:
        """The keyframe's tracks no longer support a pose (they collapsed in a fast turn, or
        wore out): relate this frame to the previous one directly, from fresh corners tracked
        over a deeper pyramid. Motion that one pose explains is chained as usual; two frames
        that both have corners yet no pose relates are a break (a teleport, a respawn, a cut)."""
        cfg, last = self.cfg, self.rot[-1]
        start = _corners(self.prev, self.mask, cfg)
        good, moved = _track(self.prev, gray, start, cfg, extra_levels=2)
        pose = relative_pose(start[good], moved[good], self.k, cfg) if len(start) else None
        if pose is None:
            self._record(last, np.zeros(3), 0.0, "none", int(good.sum()), False)
            self._rekey(gray, last)
            self.corners[-1] = self.key_corners
            self.breaks[-1] = len(start) >= cfg.min_tracks and self.key_corners >= cfg.min_tracks
            if self.breaks[-1] and self.anchor is None:
                self.anchor = (len(self.times) - 1, self.prev, last, start)
            return
        r, tdir, inliers, method = pose
        world = last @ r.T
        direction = np.zeros(3) if tdir is None else last @ (-r.T @ tdir)
        confidence = min(1.0, inliers / max(int(good.sum()), 1)) * min(1.0, inliers / (2 * cfg.min_tracks))
        self._record(world, direction, confidence, method, inliers, False)
        self._rekey(gray, world)
        self.corners[-1] = self.key_corners

    def _record(self, r, d, c, method, tracks, brk) -> None:
        self.rot.append(r)
        self.dirs.append(d)
        self.conf.append(c)
        self.methods.append(method)
        self.tracks.append(tracks)
        self.corners.append(0)
        self.breaks.append(brk)

    def result(self) -> RawTrajectory:
        n = len(self.times)
        return RawTrajectory(
            np.asarray(self.times, np.float64),
            np.asarray(self.rot).reshape(n, 3, 3),
            np.asarray(self.dirs, np.float64).reshape(n, 3),
            np.asarray(self.conf, np.float64),
            list(self.methods),
            np.asarray(self.tracks, np.int32),
            np.asarray(self.corners, np.int32),
            np.asarray(self.breaks, bool),
            float(self.k[0, 0]),
            self.size,
        )


def estimate(
    path: str,
    start_s: float = 0.0,
    end_s: float | None = None,
    hfov_deg: float | None = None,
    hud_mask: np.ndarray | None = None,
    source_size: tuple[int, int] | None = None,
    cfg: TrackerConfig = TrackerConfig(),
) -> RawTrajectory:
    """The trajectory of [start_s, end_s) of a video. `hud_mask`: the detector's UI mask at the
    video's size (255 = UI). Without `hfov_deg` the field of view is estimated first."""
    from g2w.trajectory.intrinsics import estimate_hfov
    from g2w.video.probe import probe

    if source_size is None:
        info = probe(path)
        source_size = (info.width, info.height)
    size = work_size(*source_size, cfg.work_width)
    mask = tracking_mask(hud_mask, size, cfg.hud_dilate_px)
    info = {"hfov_source": "given"}
    if hfov_deg is None:
        hfov_deg, fov_info = estimate_hfov(frames_gray(path, start_s, end_s, size), size, mask, cfg)
        info = {"hfov_source": "estimated", **fov_info}
    est = TrajectoryEstimator(intrinsics(*size, hfov_deg), size, mask, cfg)
    for t, gray in frames_gray(path, start_s, end_s, size):
        est.add(t, gray)
    raw = est.result()
    raw.info = {
        **info,
        "hfov_deg": float(hfov_deg),
        "hud_masked_fraction": 0.0 if mask is None else float(np.mean(mask == 0)),
    }
    return raw
