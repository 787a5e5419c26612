"""Speed options of the GameCleaner DiT: the attention kernel and torch.compile.

Attention goes through diffusers' attention dispatch: every Wan attention processor calls
`dispatch_attention_fn` with its own backend, which `set_attention_backend` sets on the model.
That call also makes the backend diffusers' process-wide default, which would change the kernel of
any other diffusers model the process runs (a second checkpoint, the VAE of another job); the
default is put back at once, so the choice stays with this model. A backend is checked before any
weight moves: an unknown name lists the known ones; on CPU only the backends that run there are
accepted (PyTorch's own SDPA kernels and flex attention), and a CUDA-only kernel is refused by
name; a backend whose package is missing gives diffusers' own message naming the package.

Compilation is regional, as diffusers recommends for its transformers: each repeated block is
compiled on its own (`compile_repeated_blocks`), so the compile cost is one block's, and the
GameCleaner forward, which runs the blocks itself, calls the compiled ones. It happens before
any DDP or FSDP wrap, the order torchtitan uses. Diffusers is imported on use, so the service's
option check stays cheap.
"""

from __future__ import annotations

from torch import nn

# Backends that run on a CPU tensor (measured on the tiny preset; the rest need CUDA or a CUDA package).
CPU_BACKENDS = ("native", "_native_flash", "_native_math", "flex")


def backend_names() -> list[str]:
    """Every attention backend diffusers knows, by the name a user gives."""
    from diffusers.models.attention_dispatch import AttentionBackendName

    return [b.value for b in AttentionBackendName]


def check_attention(name: str, device: str = "cuda") -> str:
    """`name` if it can run on a `device`-type device here, else ValueError saying why."""
    known = backend_names()
    if name not in known:
        raise ValueError(f"unknown attention backend {name!r}: one of {', '.join(known)}")
    if device != "cuda" and name not in CPU_BACKENDS:
        raise ValueError(
            f"attention backend {name!r} needs a CUDA device; on {device} use one of {', '.join(CPU_BACKENDS)}"
        )
    from diffusers.models.attention_dispatch import AttentionBackendName, _check_attention_backend_requirements

    try:
        _check_attention_backend_requirements(AttentionBackendName(name))
    except RuntimeError as exc:  # a missing package: diffusers names it
        raise ValueError(f"attention backend {name!r}: {exc}") from exc
    return name


def set_attention(transformer: nn.Module, name: str | None, device: str) -> None:
    """Use backend `name` in `transformer`'s attention (None: diffusers' default), leaving
    diffusers' process-wide default as it was."""
    from diffusers.models.attention_dispatch import _AttentionBackendRegistry

    if name is None:
        if any(getattr(getattr(m, "processor", None), "_attention_backend", None) for m in transformer.modules()):
            transformer.reset_attention_backend()
        return
    check_attention(name, device)
    before = _AttentionBackendRegistry._active_backend
    try:
        transformer.set_attention_backend(name)
    finally:
        _AttentionBackendRegistry.set_active_backend(before)


def compile_blocks(transformer: nn.Module) -> int:
    """Compile `transformer`'s repeated blocks in place; returns how many were compiled."""
    if getattr(transformer, "_repeated_blocks", None) and hasattr(transformer, "compile_repeated_blocks"):
        transformer.compile_repeated_blocks()
    else:
        for block in transformer.blocks:
            block.compile()
    return sum(getattr(b, "_compiled_call_impl", None) is not None for b in transformer.blocks)


def apply_speed(transformer: nn.Module, attention: str | None, compile: bool, device: str) -> nn.Module:
    """Both options on a DiT that is not yet wrapped for DDP or FSDP."""
    set_attention(transformer, attention, device)
    if compile:
        compile_blocks(transformer)
    return transformer
