"""HUD removal methods: baselines now (`identity`, `telea-gt`); learned removers plug in beside them."""
