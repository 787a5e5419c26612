"""The learned accept/reject decision over a window's quality cues: the model, and the labelled
windows it is trained on."""
