"""The one error type for bad user input: the CLI prints its message and exits 2."""


class InputError(ValueError):
    """A value given by the user (game, knob, strategy, count, file) is not allowed."""


class RunError(RuntimeError):
    """A run could not be completed (a worker died for good, a chunk came back wrong): the
    CLI prints its message and exits 1; no partial result is ever reported as a whole."""


# First argument of the ValueError a kernel raises when a strategy returns an action its
# decision does not allow: ``raise ValueError(ILLEGAL, decision, field_names, seat, *values)``.
# The runner turns it into an IllegalActionError that names everything needed to reproduce it.
ILLEGAL = "cardlab: illegal action"


class IllegalActionError(RunError):
    """A strategy chose an action its decision does not allow (a bug in the strategy): the
    message names the game, seat, strategy with its parameters, decision, action, and the seed
    and game index that reproduce it with ``cardlab trace``."""
