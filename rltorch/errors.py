"""The one exception type rltorch raises for bad input and unreadable files."""


class RLTorchError(Exception):
    """A user-facing error: bad options, an unreadable checkpoint, an impossible request."""
