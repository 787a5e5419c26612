"""GameCleaner on the tiny preset: shapes, zero-init identity, trainable set, M-RoPE, learning,
checkpoints, sampler. One model and one set of encoders are built for the module."""

import numpy as np
import pytest
import torch

from g2w.models.gamecleaner import flow
from g2w.models.gamecleaner.encoders import Encoders
from g2w.models.gamecleaner.model import GameCleaner, build_transformer, checkpoint_config, load_gamecleaner
from g2w.models.gamecleaner.presets import PRESETS, get_preset

CFG = get_preset("tiny")


@pytest.fixture(scope="module")
def parts():
    enc = Encoders(CFG)
    model = load_gamecleaner(None, CFG)
    rng = np.random.default_rng(0)
    frames = rng.integers(0, 255, (CFG.frames, CFG.height, CFG.width, 3), dtype=np.uint8)
    latents = enc.encode(frames)
    states = enc.mllm_states(frames, model.condition.queries)
    return enc, model, frames, latents, states


def test_latent_and_prediction_shapes_with_and_without_reference(parts):
    enc, model, frames, z, states = parts
    assert tuple(z.shape[1:]) == CFG.latent_shape()
    ref = enc.encode(frames[:1])
    assert ref.shape[2] == 1
    t = torch.tensor([0.4])
    with torch.no_grad():
        assert model(z, t, z, None, states=states).shape == z.shape
        assert model(z, t, z, ref, states=states).shape == z.shape
    assert states.shape == (1, CFG.num_queries, CFG.mllm["text_config"]["hidden_size"])


def test_at_init_the_residual_changes_nothing_and_matches_the_stock_wan_forward(parts):
    _, model, _, z, _ = parts
    torch.manual_seed(1)
    context = torch.randn(1, CFG.num_queries, CFG.dit_width)
    source = torch.randn_like(z)
    t = torch.tensor([0.3])
    tr = model.dit.transformer
    with torch.no_grad():
        ours = model.dit(z, t, context, source)
        without = model.dit(z, t, context, torch.zeros_like(z))
        embedder, tr.condition_embedder.text_embedder = tr.condition_embedder.text_embedder, torch.nn.Identity()
        try:
            stock = tr(z, timestep=(1 - t) * 1000, encoder_hidden_states=context).sample
        finally:
            tr.condition_embedder.text_embedder = embedder
    torch.testing.assert_close(ours, without, rtol=0, atol=0)
    torch.testing.assert_close(ours, stock, rtol=1e-5, atol=1e-6)
    assert float(model.dit.gamma_of(torch.tensor(0.7)).detach()) == pytest.approx(0.7)  # sigma(t) at init


def test_trainable_parameters_are_exactly_lora_residual_gamma_reference_and_a_fresh_connector(parts):
    _, model, _, _, _ = parts
    names = set(model.trainable())
    lora = {n for n in names if "lora_" in n}
    assert names - lora == {
        "dit.source_embed.weight",
        "dit.source_embed.bias",
        "dit.reference_embed.weight",
        "dit.reference_embed.bias",
        "dit.gamma",
        "condition.connector.0.weight",
        "condition.connector.0.bias",
        "condition.connector.2.weight",
        "condition.connector.2.bias",
    }
    layers = CFG.dit["num_layers"]
    assert len(lora) == layers * 2 * 4 * 2  # blocks x (self, cross) x (q, k, v, o) x (A, B)
    assert not any("ffn" in n for n in lora) and "condition.queries" not in names


def test_video_tokens_use_mrope_positions(parts):
    enc, model, frames, _, states = parts
    mllm = enc.mllm
    big = frames[:4].repeat(2, axis=1).repeat(2, axis=2)  # 64 px: a 2x2 grid of merged tokens per frame pair
    _, grid = mllm.video_patches(big)
    assert grid.tolist() == [[2, 4, 4]]
    ids, types, _, _ = mllm.prompt(grid[0])
    pos = mllm.positions(ids[None], types[None], grid, 0.5)
    video = pos[:, 0, types == 2]
    assert pos.shape[0] == 3 and not torch.equal(video[1], video[2]) and not torch.equal(video[0], video[1])
    one_d = torch.arange(ids.shape[0])
    assert not torch.equal(pos[0, 0], one_d)  # not the 1-D fallback
    # the positions really reach the language model: 1-D positions give different states
    seen = []
    hook = mllm.model.language_model.register_forward_pre_hook(
        lambda m, a, kw: seen.append(kw["position_ids"]), with_kwargs=True
    )
    try:
        enc.mllm_states(frames, model.condition.queries)
    finally:
        hook.remove()
    assert seen and seen[0].shape[0] == 3 and not torch.equal(seen[0][0, 0], torch.arange(seen[0].shape[-1]))


def test_overfitting_one_batch_drives_the_loss_down_and_checkpoints_round_trip(parts, tmp_path):
    _, _, _, z, states = parts
    model = load_gamecleaner(None, CFG, seed=3)
    opt = torch.optim.AdamW(model.trainable().values(), lr=1e-2)
    source = z + 0.1

    def step_loss(seed):
        g = torch.Generator().manual_seed(seed)
        return flow.flow_matching_loss(
            lambda *a: model(a[0], a[1], a[3], a[4], states=states), z, None, source, None, g
        )

    with torch.no_grad():
        before = float(np.mean([step_loss(s) for s in range(4)]))
    for k in range(16):
        loss = step_loss(k % 4)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        after = float(np.mean([step_loss(s) for s in range(4)]))
    assert after < 0.7 * before
    path = str(tmp_path / "gc.safetensors")
    model.save(path)
    again = load_gamecleaner(path)
    assert checkpoint_config(path) == CFG and not again.train_connector
    mine, theirs = model.checkpoint_state(), again.checkpoint_state()
    assert set(mine) == set(theirs)
    assert all(torch.equal(mine[k], theirs[k]) for k in mine)
    assert not any(p.requires_grad for n, p in again.named_parameters() if n.startswith("condition."))


def test_a_checkpoint_for_another_model_is_refused_naming_keys(tmp_path):
    small = GameCleaner(CFG.with_options(lora_ffn=True), build_transformer(CFG, None), train_connector=True)
    path = str(tmp_path / "ffn.safetensors")
    small.save(path)
    plain = GameCleaner(CFG, build_transformer(CFG, None), train_connector=False)
    with pytest.raises(KeyError, match=r"unexpected \[.*ffn"):
        plain.load(path)
    with pytest.raises(FileNotFoundError, match="transformer/config.json"):
        build_transformer(CFG, str(tmp_path))


def test_sampler_returns_a_latent_of_the_source_shape_and_presets_fix_81_frames_at_16_fps(parts):
    _, model, _, z, states = parts
    with torch.no_grad():
        out = flow.euler_sample(
            lambda *a: model(a[0], a[1], a[3], a[4], states=states),
            None,
            z,
            steps=3,
            generator=torch.Generator().manual_seed(0),
        )
    assert out.shape == z.shape and torch.isfinite(out).all()
    for name in ("wan21-1.3b", "wan22-ti2v-5b", "wan21-14b"):
        assert (PRESETS[name].frames, PRESETS[name].fps, PRESETS[name].lora_rank) == (81, 16.0, 64)
    assert PRESETS["wan22-ti2v-5b"].latent_shape() == (48, 21, 44, 80)


def test_gradient_checkpointing_recomputes_every_block_and_gives_the_same_gradients(parts):
    _, _, _, z, states = parts
    model = load_gamecleaner(None, CFG, seed=5)
    tr = model.dit.transformer
    with torch.no_grad():  # away from the zero init, so every trainable tensor gets a gradient
        for p in model.trainable().values():
            p.add_(0.05 * torch.randn_like(p))
    reference = torch.randn(1, z.shape[1], 1, *z.shape[3:])

    def gradients():
        model.zero_grad()
        model(z, torch.tensor([0.4]), z + 0.1, reference, states=states).square().mean().backward()
        return {n: p.grad.clone() for n, p in model.trainable().items()}

    plain = gradients()
    tr.enable_gradient_checkpointing()
    calls = []
    func = tr._gradient_checkpointing_func
    tr._gradient_checkpointing_func = lambda *a, **k: calls.append(1) or func(*a, **k)
    checkpointed = gradients()
    assert len(calls) == len(tr.blocks)
    assert all(float(g.abs().sum()) > 0 for g in plain.values())
    for name in plain:
        torch.testing.assert_close(checkpointed[name], plain[name], rtol=1e-5, atol=1e-7)


def _task(drop: float):
    """A GameCleanerTask without a cache: `loss` needs only its config and cache kind."""
    from dataclasses import replace

    from g2w.models.gamecleaner.task import GameCleanerTask

    task = GameCleanerTask.__new__(GameCleanerTask)
    task.kind, task.model_config = "states", replace(CFG, reference_drop=drop)
    return task


def _block_inputs(model, run) -> list[tuple]:
    """What each call of `run` feeds the first DiT block: (tokens, context, time modulation, rotary)."""
    seen = []
    hook = model.dit.transformer.blocks[0].register_forward_pre_hook(
        lambda _m, args: seen.append(
            tuple(a.detach().clone() if torch.is_tensor(a) else tuple(x.detach().clone() for x in a) for a in args)
        )
    )
    try:
        run()
    finally:
        hook.remove()
    return seen


def test_training_without_reference_and_inference_with_reference_none_give_the_dit_identical_inputs(parts):
    """One no-reference state: a dropped reference in training is exactly inference's reference=none."""
    enc, model, frames, z, states = parts
    batch = {"source": z + 0.1, "target": z, "reference": enc.encode(frames[:1]), "states": states}
    calls = []

    def recording(latents, t, source, reference=None, **cond):
        calls.append((latents.detach().clone(), t.detach().clone(), reference))
        return model(latents, t, source, reference, **cond)

    with torch.no_grad():
        training = _block_inputs(model, lambda: _task(1.0).loss(recording, batch, torch.Generator().manual_seed(3)))
        ((z_t, t, reference),) = calls
        assert reference is None
        context = model.context(states)
        inference = _block_inputs(
            model,
            lambda: flow.velocity(
                lambda zz, tt, c, s, r: model(zz, tt, s, r, context=c), z_t, t, context, batch["source"], None
            ),
        )
        kept = _block_inputs(model, lambda: _task(0.0).loss(model, batch, torch.Generator().manual_seed(3)))
    (train_in,), (infer_in,), (kept_in,) = training, inference, kept
    assert train_in[0].shape[1] == z.shape[3] * z.shape[4] // 4 * z.shape[2]  # video tokens only
    for a, b in zip(train_in, infer_in, strict=True):
        for x, y in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,), strict=True):
            torch.testing.assert_close(x, y, rtol=0, atol=0)
    assert kept_in[0].shape[1] > train_in[0].shape[1]  # a kept reference adds its tokens


def test_a_step_without_reference_reaches_every_trainable_parameter(parts):
    """What lets DDP run without find_unused_parameters and FSDP2 see every tensor in every forward:
    with no reference tokens the reference embedder still runs (on no patches) and gets a zero gradient."""
    from g2w.models.gamecleaner.task import GameCleanerTask

    _, _, _, z, states = parts
    model = load_gamecleaner(None, CFG, seed=6)
    model(z, torch.tensor([0.6]), z + 0.1, None, states=states).square().mean().backward()
    assert [n for n, p in model.trainable().items() if p.grad is None] == []
    assert float(model.dit.reference_embed.weight.grad.abs().sum()) == 0.0
    assert GameCleanerTask.unused_parameters is False


def test_the_vae_runs_in_tiles_at_720p_class_sizes_only():
    from g2w.models.gamecleaner.encoders import needs_vae_tiling

    tiled = {name: needs_vae_tiling(get_preset(name)) for name in ("tiny", "wan21-1.3b", "wan22-ti2v-5b", "wan21-14b")}
    assert tiled == {"tiny": False, "wan21-1.3b": False, "wan22-ti2v-5b": True, "wan21-14b": True}


def test_the_random_initialised_wan22_vae_has_its_48_channel_statistics_and_round_trips():
    from diffusers import AutoencoderKLWan

    cfg = get_preset("wan22-ti2v-5b")
    mean, std = cfg.vae["latents_mean"], cfg.vae["latents_std"]
    assert len(mean) == len(std) == cfg.latent_channels == 48
    # the released TI2V-5B VAE config's values, not diffusers' Wan2.1 defaults (16 channels)
    assert (mean[0], mean[19], mean[-1]) == (-0.2289, 0.5109, -0.0667)
    assert (std[0], std[39], std[-1]) == (0.4765, 1.6887, 0.7744)
    assert len(AutoencoderKLWan().config.latents_mean) == 16
    # the preset's own VAE config at reduced widths and size (the 48-channel, residual, patch-2 path)
    small = cfg.with_options(width=64, height=64, frames=5, vae={**cfg.vae, "base_dim": 16, "decoder_base_dim": 16})
    enc = Encoders(small, with_mllm=False)
    assert enc.mean.flatten().tolist() == pytest.approx(mean) and enc.std.flatten().tolist() == pytest.approx(std)
    frames = np.random.default_rng(0).integers(0, 255, (5, 64, 64, 3), dtype=np.uint8)
    z = enc.encode(frames)
    assert tuple(z.shape[1:]) == small.latent_shape() == (48, 2, 4, 4)
    assert enc.decode(z).shape == frames.shape


def test_a_base_of_another_architecture_is_refused_before_its_weights_load_naming_the_fields(tmp_path):
    import json

    folder = tmp_path / "transformer"
    folder.mkdir()
    other = {**CFG.dit, "num_layers": 3, "attention_head_dim": 8, "_class_name": "WanTransformer3DModel"}
    (folder / "config.json").write_text(json.dumps(other))  # no weights: refusing must not need them
    with pytest.raises(ValueError) as err:
        build_transformer(CFG, str(tmp_path))
    message = str(err.value)
    assert "is not the base of preset tiny" in message
    assert "num_layers: preset 2, base 3" in message and "attention_head_dim: preset 16, base 8" in message
    assert "in_channels" not in message and "ffn_dim" not in message
