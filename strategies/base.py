"""Registry types shared by every game's strategies.

Inside a kernel a seat's strategy is an integer id plus a row of float parameters;
``Strategy`` is the Python face of one id: its name, what it does, and its named
parameters with defaults and bounds (the bounds are what a parameter search explores).
``Param``, ``Strategy``, ``SeatStrategy`` and ``parse_strategies`` are defined in
``sim/strategy_spec.py`` (below the rules, for the runner) and re-exported here.

A game's strategy module declares each strategy once, by name, next to its code::

    GREEDY = Strategy("greedy", "Builds whenever it can ...", (
        Param("steal", 0, 0, 1, "1: steals a floor card before building with a joker", True),
    ))
    P_GREEDY = GREEDY.at               # parameter slots by name: p[P_GREEDY.steal]

    @helper("ACT(ST, int64, PAR)")
    def greedy(st, me, p):
        if p[P_GREEDY.steal] > 0: ...

and registers them all at the bottom with the function answering each decision::

    STRATEGIES = register(L.S, (REFERENCE, {"play": reference}), (GREEDY, {"play": greedy}))
    ID = ids(STRATEGIES)               # ID.greedy: the derived id

A strategy that plays a decision exactly like another registers that one's function for
it (``(SWEEPER, {"stall": reference_stall, ...})``): no delegate wrapper is needed.  The
ids are the registration order.  ``register`` refuses (at import) a strategy that does not
answer every decision of the game's schema.  The compiled dispatch, ``choose(sid, st, me,
p)``, is written from the registry by the binding (``sim/bind.dispatch``), so a strategy
can never fall through to another one's code; each function answers with what its decision
needs (a number, a pair, or the 4-number action: ``sim/jit.as_act``).

``register`` also appends the search player ``mcts`` (``search_player``: ISMCTS over the
game's own ``legal``/``step``, ``sim/search.py``) and the ``learned`` player
(``learned_player``: a learned evaluation over the game's own ``step``, ``sim/learned.py``)
after the game's strategies; the engine, not ``choose``, answers for them, so the
dispatch does not name them, and ``Game.strategies`` (what "all" pools and tournaments mean) leaves
them out while ``Game.all_strategies`` has them.
"""
from __future__ import annotations

from collections import namedtuple
from dataclasses import replace

import numpy as np

# the types the engine side needs live below the rules (sim/strategy_spec.py); re-exported
# here so that every game's strategy module and ``from cardlab.strategies.base import ...``
# keep working
from cardlab.sim.strategy_spec import Param, SeatStrategy, Strategy, parse_strategies  # noqa: F401


# every registered strategy's function per decision, by (game, strategy name): the binding
# writes the dispatch from the names and checks it imports these very functions
ANSWERS: dict[tuple[str, str], dict] = {}


class RegistryError(Exception):
    """A game's strategies cannot be registered as declared (raised at import)."""


def register(schema, *entries, search_iterations: int = 200) -> tuple[Strategy, ...]:
    """The game's strategies with derived ids (the order given), then ``mcts`` with
    ``search_iterations`` by default, then ``learned``.  Each entry is ``(Strategy, {decision: compiled
    function})`` and must answer every decision the game's schema declares, and nothing
    else."""
    wanted = [d for d, _ in schema.decisions]
    out, names = [], set()
    for i, (strat, answers) in enumerate(entries):
        if strat.name in names:
            raise RegistryError(f"{schema.game}: strategy '{strat.name}' registered twice")
        names.add(strat.name)
        missing = [d for d in wanted if d not in answers]
        extra = [d for d in answers if d not in wanted]
        if missing or extra:
            raise RegistryError(f"{schema.game}: strategy '{strat.name}' "
                                + (f"answers no {', '.join(missing)} decision" if missing else
                                   f"answers unknown decisions {', '.join(extra)}")
                                + f" (the game's decisions: {', '.join(wanted)})")
        strat.at  # noqa: B018 - checks the parameter count
        fns = tuple((d, getattr(answers[d], "__name__", str(answers[d]))) for d in wanted)
        out.append(replace(strat, id=i, decisions=fns))
        ANSWERS[(schema.game, strat.name)] = {d: answers[d] for d in wanted}
    heuristics = tuple(out)
    out.append(replace(search_player(heuristics, search_iterations), id=len(out)))
    out.append(replace(learned_player(heuristics), id=len(out)))
    return tuple(out)


def search_player(heuristics: tuple[Strategy, ...], iterations: int = 200) -> Strategy:
    """The ``mcts`` entry every game gets after its heuristics (``sim/search.py``), with
    the game's default budget (``iterations``)."""
    rollouts = (("random", -1.0),) + tuple((s.name, float(s.id)) for s in heuristics if s.name != "random")
    return Strategy("mcts", "Information-set Monte Carlo tree search (sim/search.py): at each decision, "
                    "iterations times, re-deals what its seat cannot see and reseeds the future, walks a "
                    "tree of every seat's decisions legal in that world by UCB with availability counts "
                    "(exploration c), expands one untried action, plays the world out with the rollout "
                    "policy (uniformly random legal actions, or a heuristic of the game for every seat), "
                    "(with value=1 or 2 only depth decisions on, then scores every seat by the game's learned evaluation) "
                    "and backs up each seat's win share; then plays the most visited action unless it does not "
                    "beat the rollout heuristic's own answer (with value=2: the action its learned evaluation "
                    "rates best one move ahead) by trust standard errors (a decision with "
                    "more than widen legal actions grows by progressive widening, the rollout's answer first). Its random "
                    "numbers come from its seat's own stream. With never=..., it never takes, itself, an "
                    "action that commits the named card types or action kinds (restricted play).", (
                        Param("iterations", iterations, 1, 20000, "worlds searched per decision", True),
                        Param("c", 0.7, 0, 10, "UCB exploration constant"),
                        Param("rollout", dict(rollouts).get("reference", -1), -1, max(s.id for s in heuristics),
                              "rollout policy: random "
                              "(uniform legal actions) or a heuristic by name (" +
                              ", ".join(n for n, _ in rollouts[1:]) + "; default: reference, if the game has one)", True, rollouts),
                        # the names (card types, action kinds) are the game's: Game.all_strategies
                        Param("never", 0, 0, 2.0 ** 53, "restricted play: never take an action that commits one of "
                              "these card types or action kinds (NAME+NAME; when every legal action does, any "
                              "may be taken)", True, flags=True),
                        Param("widen", 128, 1, 10 ** 9, "decisions with more legal actions than this grow by "
                              "progressive widening: at most sqrt(visits) children, the rollout heuristic's "
                              "answer first", True),
                        Param("trust", 1, 0, 10, "the rollout heuristic's own answer in the real position is "
                              "played unless the most visited action's mean win share beats it by more than "
                              "trust standard errors (0: always the most visited)"),
                        Param("value", 0, 0, 2, "1: play-outs stop after depth decisions and are scored by the "
                              "game's learned evaluation (the newest generation of its model for the table's "
                              "player count, cardlab learn GAME); 2: so are they, and the answer the search must "
                              "beat by trust standard errors is the action that evaluation rates best one move "
                              "ahead (the learned player's choice), not the rollout heuristic's; 0: played to "
                              "the end", True),
                        Param("depth", 4, 0, 1000, "with value=1 or 2, the decisions a play-out plays before it is "
                              "scored (0: the new tree node itself is scored)", True),
                    ), search=True)


def learned_player(heuristics: tuple[Strategy, ...]) -> Strategy:
    """The ``learned`` entry every game gets after ``mcts`` (``sim/learned.py``): the action
    a learned evaluation rates best, the model trained by ``cardlab learn`` (``sim/models.py``)."""
    guides = tuple((s.name, float(s.id)) for s in heuristics if s.name != "random") or \
        tuple((s.name, float(s.id)) for s in heuristics)
    return Strategy("learned", "Plays the action whose outcome its learned evaluation rates best "
                    "(sim/learned.py): samples times, re-deals what its seat cannot see and reseeds the "
                    "future, plays each candidate action in that world with the game's own rules up to the "
                    "next decision, and scores the position reached by the model's estimate of its seat's "
                    "win share from what the seat would see there (a finished game: the seat's win share); "
                    "the best mean score plays, ties to the first listed. With more than width legal "
                    "actions the candidates are the guide heuristic's answer and width - 1 drawn "
                    "uniformly. The model (cardlab learn GAME) is the game's for the table's player count; "
                    "gen picks a generation of it. Its random numbers come from its seat's own stream.", (
                        Param("samples", 1, 1, 1000, "worlds sampled per decision (every action is scored "
                              "in each)", True),
                        Param("width", 64, 1, 10 ** 6, "decisions with more legal actions score the "
                              "guide's answer and width - 1 drawn ones", True),
                        Param("guide", dict(guides).get("reference", guides[0][1]), 0,
                              max(s.id for s in heuristics), "the heuristic whose answer is always a "
                              "candidate on a wide decision (" + ", ".join(n for n, _ in guides) + ")",
                              True, guides),
                        Param("gen", 0, 0, 50, "the model's generation to play (0, or one past the "
                              "model's last: the newest; cardlab learn makes at most 50)", True),
                    ), search=True)


def default_rows(strategies: tuple[Strategy, ...]) -> np.ndarray:
    """Every strategy's default parameters by id (a heuristic rollout's, in the search)."""
    return np.array([s.row() for s in strategies], dtype=np.float64)


def ids(strategies: tuple[Strategy, ...]):
    """Every strategy's id by name (a namedtuple numba reads as constants)."""
    return namedtuple("Ids", [s.name for s in strategies])(*(s.id for s in strategies))
