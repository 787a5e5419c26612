"""Training loss: UI mask (binary cross-entropy + soft Dice) and taxonomy label (cross-entropy on UI pixels).

Dice keeps thin widgets and text from being drowned by the mostly-empty frame; the label term
only looks at pixels that are UI, so the label head never learns "background".
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from g2w.segment.data import IGNORE


def segmenter_loss(ui_logits: torch.Tensor, label_logits: torch.Tensor, ui: torch.Tensor, labels: torch.Tensor,
                   label_weight: float = 0.3) -> tuple[torch.Tensor, dict]:
    """ui_logits (B, 1, H, W), label_logits (B, L, ceil(H/2), ceil(W/2)), ui (B, H, W) 0/1, labels (B, H, W)
    with -1 ignored (subsampled to the label head's half resolution here)."""
    logits = ui_logits[:, 0]
    labels = labels[:, ::2, ::2]
    bce = F.binary_cross_entropy_with_logits(logits, ui)
    prob = torch.sigmoid(logits)
    dice = 1 - (2 * (prob * ui).sum() + 1) / (prob.sum() + ui.sum() + 1)
    if (labels != IGNORE).any():
        ce = F.cross_entropy(label_logits, labels, ignore_index=IGNORE)
    else:
        ce = label_logits.sum() * 0
    loss = bce + dice + label_weight * ce
    return loss, {"bce": bce.item(), "dice": dice.item(), "label_ce": ce.item()}
