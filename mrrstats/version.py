"""The package version (one place; read by the CLI, the report and packaging)."""

__version__ = "0.1.0"
