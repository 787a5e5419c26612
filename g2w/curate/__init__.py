"""Clean-corpus curation (G2WEngine §4.3, Appendix B.1): windows, cuts, quality, UI screen,
CLIP embedding, spherical k-means, cluster-balanced sampling, temporal dedup, standardization.
One concern per module; each pipeline stage is a plain `Step`."""
