"""The one error type for bad user input: the CLI prints its message and exits 2."""


class InputError(ValueError):
    """A value given by the user (game, knob, strategy, count, file) is not allowed."""


class RunError(RuntimeError):
    """A run could not be completed (a worker died for good, a chunk came back wrong): the
    CLI prints its message and exits 1; no partial result is ever reported as a whole."""
