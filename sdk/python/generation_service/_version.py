"""The SDK's version: written by the release (tools/release/version-actions.js), beside pyproject.toml's."""
__version__ = "1.0.0"
