"""HUD-removal evaluation (paper §7.1, Appendix J): cases, validation, timestamp alignment,
canonical canvas, evidence, prompt, judges, strict schema, records, metrics and reliability."""
