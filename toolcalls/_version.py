"""The package's version, in a module of its own: the build reads it here (pyproject), and the
CLI prints it without importing the top level it sits below."""

__version__ = "0.1.0"
