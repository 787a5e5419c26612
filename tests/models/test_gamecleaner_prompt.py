"""The MLLM input as Kiwi-Edit builds it: its system prompt in Qwen2.5-VL's chat template, the
condition read from the sequence's last N positions, and frames sized to Kiwi-Edit's 512x512 budget."""

import torch

from g2w.models.gamecleaner.condition import (
    CHAT_BEFORE_VIDEO,
    CHAT_END,
    SYSTEM_PROMPT,
    TINY_CHAT_IDS,
    MLLMEncoder,
    smart_size,
)
from g2w.models.gamecleaner.presets import INSTRUCTION, get_preset

CFG = get_preset("tiny")
MARKERS = {i: text for text, i in TINY_CHAT_IDS.items()}


def _text(ids) -> str:
    """The tiny MLLM's ids back to text: UTF-8 bytes and the chat markers."""
    return "".join(MARKERS[i] if i in MARKERS else bytes([i]).decode() for i in ids)


def test_the_prompt_is_kiwi_edits_system_and_user_turn_in_the_chat_template():
    assert SYSTEM_PROMPT.startswith("You will be given an image and instruction.")
    assert CHAT_BEFORE_VIDEO == f"<|im_start|>system\n{SYSTEM_PROMPT}<|im_end|>\n<|im_start|>user\n"
    mllm = MLLMEncoder(CFG)
    cfg = mllm.mllm_config
    grid = torch.tensor([2, 2, 2])
    ids, types, slots, readout = mllm.prompt(grid)
    n, n_video = CFG.num_queries, 2  # 2x2x2 patches, 2x2 merge
    start = ids.tolist().index(cfg.vision_start_token_id)
    assert _text(ids[:start].tolist()) == CHAT_BEFORE_VIDEO
    assert ids[start + 1 : start + 1 + n_video].tolist() == [cfg.video_token_id] * n_video
    assert ids[start + 1 + n_video] == cfg.vision_end_token_id
    tail = ids[start + 2 + n_video :].tolist()
    instruction = len(INSTRUCTION.encode())
    assert _text(tail[:instruction]) == INSTRUCTION
    assert _text(tail[instruction + n :]) == CHAT_END and len(tail) == instruction + n + 2
    assert set(ids[slots].tolist()) == {cfg.vision_end_token_id + 1} and slots.numel() == n
    # Kiwi-Edit reads the last N states: the turn's closing tokens included, the first two queries not
    assert readout.tolist() == list(range(len(ids) - n, len(ids)))
    assert readout[: n - 2].tolist() == slots[2:].tolist()
    assert int((types == 2).sum()) == n_video


def test_frames_enter_the_mllm_at_kiwi_edits_512x512_budget():
    for name in ("wan21-1.3b", "wan22-ti2v-5b", "wan21-14b"):
        assert get_preset(name).mllm_frame_pixels == 512 * 512
    budget = get_preset("wan22-ti2v-5b").mllm_frame_pixels
    assert smart_size(704, 1280, budget) == (364, 672)  # what Qwen2.5-VL's resize gives Kiwi-Edit
    assert smart_size(480, 832, budget) == (364, 672)
    assert smart_size(512, 512, budget) == (504, 504)
    assert smart_size(300, 400, budget) == (308, 392)  # within budget: rounded, not floored
