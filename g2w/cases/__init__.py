"""Shared contracts between removal and evaluation: a case (source, its clean reference,
its annotation), the frame-level HUD annotation, and the canvas mapping between pixel grids."""
