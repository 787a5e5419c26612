"""Camera trajectories of minute-scale segments: classical estimation on the CPU, validation
(jumps, jitter, drift), and the per-segment Parquet format they are written in."""
