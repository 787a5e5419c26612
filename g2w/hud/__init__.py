"""HUD asset library and temporally coherent UI synthesis (paper §4.1-4.4, Appendices A-G).

Assets (`assets`, `extract`, `matting`, `structure`, `bootstrap/`, `library_page`) feed a renderer that
plans every random decision into a record (`plan` with `priors`, `selection`, `layout`,
`events`, `animation`, `status_bars`, `inventory`, `aesthetic`), evaluates it per frame
(`layers`), composites it (`composite`) and measures it (`annotate`); `render` runs one sample
end to end and `stats` samples layouts in bulk. Table constants live in `profile`.
"""
