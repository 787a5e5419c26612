"""GameCleaner: the mask-free video HUD remover (paper §6): presets, MLLM condition, Wan DiT
with the source residual, flow matching, encoders, checkpoints, Kiwi-Edit import."""
