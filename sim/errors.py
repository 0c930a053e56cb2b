"""The one error type for bad user input: the CLI prints its message and exits 2."""


class InputError(ValueError):
    """A value given by the user (game, knob, strategy, count, file) is not allowed."""
