"""Training loss: UI mask (binary cross-entropy + soft Dice) and taxonomy label (cross-entropy on UI pixels).

Dice keeps thin widgets and text from being drowned by the mostly-empty frame; the label term
only looks at pixels that are UI, so the label head never learns "background".

Both BCE and Dice are pooled over the batch, so a widget of a few dozen pixels (a thin crosshair, a
world-space marker, one chat line) weighs next to nothing against a status bar of thousands. The
optional element term (`element_weight`) scores every (crop, label) group of UI pixels apart: the
mean BCE on the group's own pixels, averaged over the groups present, so each element counts alike
whatever its size. It only looks at UI pixels; the pooled terms keep the background in check.

The optional static-world term (`static_world_weight`) is the matching hard negative. The temporal
statistics are the strongest UI cue, so the world pixels that hold still over the window (low
spread, current frame at the median: a first-person weapon or a cockpit held steady, a car hood,
a wall while the player stands still) are exactly the ones the network is tempted to call UI.
`static_world` finds them in the network's own input, and the term adds `static_world_weight` x
their BCE against "world" to the pooled BCE (same normalisation: every pixel of the batch), i.e.
those pixels weigh 1 + `static_world_weight` in it. Everything else in the loss is unchanged.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from g2w.segment.data import IGNORE

# static world: the spread plane (mean absolute luma deviation x 4, /255) below 6 levels of luma, and the
# current frame within 8 levels (each of R, G, B) of the window's median. Chosen on training pairs
# (Freedoom + synthesized; 9n): about a fifth of their world pixels. World pixels within
# STATIC_BORDER pixels of UI are left out: the rim of a widget at model resolution (its area-
# downscaled edge, the gaps between glyphs) is the full-resolution refiner's to decide, and
# weighting it pushes the coarse map off the calibration the refiner was trained on.
STATIC_SPREAD = 6.0
STATIC_DEVIATION = 8.0
STATIC_BORDER = 2


def static_world(
    x: torch.Tensor,
    ui: torch.Tensor,
    stack: int = 3,
    spread_below: float = STATIC_SPREAD,
    deviation_below: float = STATIC_DEVIATION,
    border: int = STATIC_BORDER,
) -> torch.Tensor:
    """(B, H, W) bool: world pixels (ui == 0), farther than `border` pixels from any UI pixel,
    that look static in the network input x (B, C, H, W) laid out as
    `g2w.segment.inputs.assemble` writes it (stack frames RGB, median RGB, spread)."""
    current = 3 * (stack // 2)
    spread = x[:, -1] * (255.0 / 4)
    deviation = (x[:, current : current + 3] - x[:, -4:-1]).abs().amax(1) * 255.0
    world = ui < 0.5
    if border > 0:
        world = F.max_pool2d(ui[:, None].float(), 2 * border + 1, stride=1, padding=border)[:, 0] < 0.5
    return world & (spread < spread_below) & (deviation < deviation_below)


def static_world_loss(logits: torch.Tensor, static: torch.Tensor) -> torch.Tensor:
    """Sum of the BCE against "world" (softplus(x)) of the static world pixels, over every pixel of
    the batch: logits (B, H, W), static (B, H, W) bool (`static_world`)."""
    return (F.softplus(logits) * static).sum() / logits.numel()


def element_recall_loss(logits: torch.Tensor, labels: torch.Tensor, num_labels: int) -> torch.Tensor:
    """Mean over the (crop, label) groups present of the mean BCE of their UI pixels against "UI".

    logits (B, H, W); labels (B, H, W) long, IGNORE off the UI. softplus(-x) is the BCE of a
    positive pixel; unlike a soft recall its gradient does not vanish where the logit is very
    negative, i.e. on exactly the elements the network does not see yet. 0 when no UI is present.
    """
    valid = labels != IGNORE
    if not valid.any():
        return logits.sum() * 0
    batch = torch.arange(labels.shape[0], device=labels.device).view(-1, 1, 1).expand_as(labels)
    group = (batch * num_labels + labels.clamp(min=0))[valid]
    bce = F.softplus(-logits[valid])
    size = labels.shape[0] * num_labels
    sums = torch.zeros(size, dtype=bce.dtype, device=bce.device).index_add_(0, group, bce)
    counts = torch.bincount(group, minlength=size)
    present = counts > 0
    return (sums[present] / counts[present]).mean()


def segmenter_loss(
    ui_logits: torch.Tensor,
    label_logits: torch.Tensor,
    ui: torch.Tensor,
    labels: torch.Tensor,
    label_weight: float = 0.3,
    element_weight: float = 0.0,
    static_weight: float = 0.0,
    static: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict]:
    """ui_logits (B, 1, H, W), label_logits (B, L, ceil(H/2), ceil(W/2)), ui (B, H, W) 0/1, labels (B, H, W)
    with -1 ignored (subsampled to the label head's half resolution here). `element_weight`: the
    per-element term (`element_recall_loss`, on the full-resolution labels), off by default.
    `static_weight`: the static-world term (`static_world_loss` on the (B, H, W) mask `static`), off by default."""
    logits = ui_logits[:, 0]
    element = element_recall_loss(logits, labels, label_logits.shape[1]) if element_weight > 0 else None
    labels = labels[:, ::2, ::2]
    bce = F.binary_cross_entropy_with_logits(logits, ui)
    prob = torch.sigmoid(logits)
    dice = 1 - (2 * (prob * ui).sum() + 1) / (prob.sum() + ui.sum() + 1)
    if (labels != IGNORE).any():
        ce = F.cross_entropy(label_logits, labels, ignore_index=IGNORE)
    else:
        ce = label_logits.sum() * 0
    loss = bce + dice + label_weight * ce
    parts = {"bce": bce.item(), "dice": dice.item(), "label_ce": ce.item()}
    if element is not None:
        loss = loss + element_weight * element
        parts["element"] = element.item()
    if static_weight > 0:
        if static is None:
            raise ValueError("static_weight > 0 needs the static-world mask")
        hard = static_world_loss(logits, static)
        loss = loss + static_weight * hard
        parts["static_world"] = hard.item()
    return loss, parts
