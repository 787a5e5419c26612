"""The only package in g2w that imports Ray: cluster start-up and step execution.

`g2w.step` is Ray-free so steps can be defined and tested without Ray; the Ray side
lives in `g2w.runtime.ray_init`, `g2w.runtime.pipeline` and `g2w.runtime.train` (Ray Train for the
training harness in `g2w.train`).
"""
