"""cardlab: Monte Carlo balance analysis for tabletop card games."""
try:
    from importlib.metadata import version as _version

    __version__ = _version("cardlab")
except Exception:  # running from a source tree that was not installed
    __version__ = "0.1.0"
