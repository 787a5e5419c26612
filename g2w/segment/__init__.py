"""The learned HUD segmenter around its model: inputs, training data, losses, metrics, prediction."""
