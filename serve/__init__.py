"""Ray Serve applications (HUD removal). Modules here do no I/O at import and expose
`app_builder(args)` functions, so `serve run serve.<module>:app_builder` and tests both work."""
