"""The synthesize job's tests reuse the HUD tests' on-disk asset library fixture."""

from tests.hud.conftest import library, library_dir  # noqa: F401 (fixtures, found by pytest by name)
