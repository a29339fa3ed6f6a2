"""The one exception type the suite raises for bad input; the CLI prints it as one line."""


class EviScopeError(Exception):
    """A user-facing error: its message names the file, row or field at fault and how to fix it."""
