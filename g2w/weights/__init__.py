"""Small shipped checkpoints (each <= 10 MB), each with a model card beside it naming the command that trained it."""
