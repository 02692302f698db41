"""The package version, in a module of its own so that any module can read it without
importing the top-level :mod:`dpaudit` API (which imports most of the package)."""

__version__ = "0.1.0"
