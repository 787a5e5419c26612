"""Training loss: UI mask (binary cross-entropy + soft Dice) and taxonomy label (cross-entropy on UI pixels).

Dice keeps thin widgets and text from being drowned by the mostly-empty frame; the label term
only looks at pixels that are UI, so the label head never learns "background".

Both BCE and Dice are pooled over the batch, so a widget of a few dozen pixels (a thin crosshair, a
world-space marker, one chat line) weighs next to nothing against a status bar of thousands. The
optional element term (`element_weight`) scores every (crop, label) group of UI pixels apart: the
mean BCE on the group's own pixels, averaged over the groups present, so each element counts alike
whatever its size. It only looks at UI pixels; the pooled terms keep the background in check.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from g2w.segment.data import IGNORE


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


def segmenter_loss(ui_logits: torch.Tensor, label_logits: torch.Tensor, ui: torch.Tensor, labels: torch.Tensor,
                   label_weight: float = 0.3, element_weight: float = 0.0) -> tuple[torch.Tensor, dict]:
    """ui_logits (B, 1, H, W), label_logits (B, L, ceil(H/2), ceil(W/2)), ui (B, H, W) 0/1, labels (B, H, W)
    with -1 ignored (subsampled to the label head's half resolution here). `element_weight`: the
    per-element term (`element_recall_loss`, on the full-resolution labels), off by default."""
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
    return loss, parts
