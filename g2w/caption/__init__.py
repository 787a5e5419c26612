"""Four-level structured captions of minute-scale segments through an OpenAI-compatible MLLM:
global static context, and time-aligned local static layout, dynamic events and agent actions."""
