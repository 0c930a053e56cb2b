"""``mcts``: information-set Monte Carlo tree search, compiled, for every game.

Single-observer ISMCTS (Cowling, Powley & Whitehouse 2012).  At each of its decisions the
seat repeats ``iterations`` times:

1. **sample a world**: a copy of the position with everything the seat cannot see re-dealt
   and the future reseeded (``sim/redeal.determinize``: the hidden cards, the chance
   stream, every seat's stream);
2. **select**: from the root, at each decision of the world (the seat's own and the other
   seats'), among the actions legal *in this world*, take an untried one if there is one,
   else the child with the best UCB score ``mean + c * sqrt(ln(availability) / visits)``;
   availability counts the iterations in which a child's action was legal, so an action
   that is often impossible is not penalised for it.  The game's own ``step`` plays the
   chance events between decisions;
3. **expand** the untried action into a new node;
4. **roll out** the world to its end: uniformly random legal actions (``rollout=random``)
   or a heuristic of the game answering every seat; with ``value=1`` (or 2), only ``depth``
   decisions on, and the world reached is scored by the game's learned evaluation
   (``sim/evaluate.shares``: each seat's V of what it would see in this sampled world,
   scaled to sum to 1), the newest generation of the model the table plays
   (``sim/models.py``, ``cardlab learn``): a cut play-out costs ``depth`` decisions and
   one evaluation per seat instead of a whole game;
5. **back up** every node on the path with the win share (1/k for each of k winners; a
   cut play-out's evaluated share) of the seat that chose its action.

A **wide** decision (more than ``widen`` legal actions: Block Tower's placements, up to
30,030) would never try an action twice at these budgets, so its node grows by
progressive widening instead: a new child only while the node has at most sqrt(visits)
children, the first one the rollout heuristic's own answer, the others uniformly random
untried actions; otherwise UCB among the children legal in this world, each child checked
by the game's ``legal_key`` (the thousands of listed actions are not looked up one by
one: Block Tower 3.4 times the iterations/s), and counted by the game's ``legal_count``
without being listed unless the node grows (1.2 times again).

**Restricted play** (Jaffe et al. 2012): with ``never`` set (a bit mask of card types,
bits 0..31, and of the game's named action kinds, bits 32 and up: see the game's
``restrict_bits``), the seat never takes an action whose bits meet the mask, wherever it
decides for itself: at the root, in the tree and in its rollouts (a heuristic's restricted
answer is replaced by a uniformly random allowed action).  When every legal action is
restricted the move is forced and any legal action may be taken.  The other seats are
not restricted.

Then it plays the root's most visited action, **unless that does not beat its rollout
heuristic's own answer in the real position on evidence** (``trust``, default 1): when the
most visited action's mean win share exceeds the heuristic's by no more than ``trust``
standard errors of the difference, the heuristic's answer is played.  In a long game
with several seats one decision moves a seat's win share by little, and a few hundred
noisy play-outs rank close actions at random; a search that then played its most visited
action lost to the very heuristic it rolled out with (3UP 3DOWN, 200 iterations: 19.8%
against a `clearer` field, 28.6% with ``trust=1``; Block Tower 17.5% -> 27.0% against a
`reference` field; Skyscraper, Smokestack, 5 Towers and Crazy Eights unchanged within
their intervals).  With ``rollout=random`` there is no such answer (nor with
``trust=0``).  With ``value=2`` the answer to beat is the learned evaluation's instead: the
action it rates best one move ahead (``rate_actions``, the ``learned`` player's choice), on
a decision of at most ``widen`` legal actions.  The tree lives in arrays sized by
``iterations`` and allocated per decision, so memory never grows with the games played.
Every random number comes from the seat's own stream (``sim/rng.seat_next_u64``), seeded
from the seed, the game index and the seat: never from the game's chance stream, so
strategies compared on the same seeds meet the same deals; a world is rolled out on its
own reseeded generator, never on the real one (that would foresee the future).

The search reads the real position only through the re-deal, whose sorted pool depends
only on which cards the seat cannot see: the honesty check holds for it like for every
strategy.  It is bound to a game by ``sim/bind.py`` (``decide``, from the kernel's ``RULES``), and the engine
(``sim/engine.play_on_search``) asks it for every seat that plays ``mcts``.
"""
import numpy as np
from numba import njit

from cardlab.sim.bits import popcount
from cardlab.sim.engine import seat_params
from cardlab.sim.evaluate import shares, value
from cardlab.sim.redeal import determinize
from cardlab.sim.rng import MAX_SEATS, seat_below
from cardlab.sim.schema import DONE

# the mcts strategy's parameter slots
P_ITERATIONS, P_C, P_ROLLOUT, P_NEVER, P_WIDEN, P_TRUST, P_VALUE, P_DEPTH = range(8)
RANDOM_ROLLOUT = -1                      # rollout=random: uniform legal actions


@njit(cache=True, nogil=True, inline="always")
def _slot(keys, parent, kind, a, b, c):
    """The hash slot of child (parent, action)."""
    h = np.uint64(parent + 1) * np.uint64(0x9E3779B97F4A7C15)
    h ^= np.uint64(kind + 7) * np.uint64(0xBF58476D1CE4E5B9)
    h ^= np.uint64(a + 11) * np.uint64(0x94D049BB133111EB)
    h = (h ^ (h >> np.uint64(29))) * np.uint64(0xD6E8FEB86659FD93)
    h ^= np.uint64(b + 13) * np.uint64(0x9E3779B97F4A7C15)
    h ^= np.uint64(c + 17) * np.uint64(0xBF58476D1CE4E5B9)
    h ^= h >> np.uint64(32)
    return np.int64(h & np.uint64(keys.shape[0] - 1))


@njit(cache=True, nogil=True, inline="always")
def find_child(keys, act, parent_of, node, kind, a, b, c):
    """The child of ``node`` reached by action (kind, a, b, c), or -(slot + 1) where it
    would be stored."""
    i = _slot(keys, node, kind, a, b, c)
    while True:
        ch = keys[i]
        if ch < 0:
            return -(i + 1)
        if (parent_of[ch] == node and act[ch, 0] == kind and act[ch, 1] == a
                and act[ch, 2] == b and act[ch, 3] == c):
            return ch
        i = (i + 1) & (keys.shape[0] - 1)


@njit(cache=True, nogil=True, inline="always")
def ucb(reward, visits, avail, ch, c):
    """A child's UCB score: its mean win share plus c * sqrt(ln(availability) / visits)."""
    return reward[ch] / visits[ch] + c * np.sqrt(np.log(avail[ch]) / visits[ch])


@njit(cache=True, nogil=True, inline="always")
def win_share(world, E, seat):
    mask = world[E.mask]
    if (mask >> seat) & 1:
        return 1.0 / popcount(mask)
    return 0.0


@njit(cache=True, nogil=True, inline="always")
def copy_position(src, dst, E, used):
    """dst = src but for the legal-action buffer past its first ``used`` actions: that
    buffer is scratch every reader writes before it reads (``legal``), and copying all of
    it made the copy most of an iteration (Block Tower's holds 30,030 actions, 99.6% of
    its state: 2.7 times the iterations/s once left out)."""
    lo = E.acts + 4 * used if E.acts >= 0 else E.size
    hi = E.acts_end if E.acts >= 0 else E.size
    for i in range(lo):
        dst[i] = src[i]
    for i in range(hi, E.size):
        dst[i] = src[i]


@njit(cache=True, nogil=True, inline="always")
def keep_allowed(world, n, never, restrict_bits, E):
    """Move the pending decision's legal actions that the restriction ``never`` allows to
    the front of the action buffer and return how many there are; all ``n`` when it allows
    none (a forced move)."""
    if never == 0:
        return n
    k = 0
    for i in range(n):
        o = E.acts + 4 * i
        if restrict_bits(world, world[o], world[o + 1], world[o + 2], world[o + 3]) & never == 0:
            if k != i:
                for w in range(4):
                    world[E.acts + 4 * k + w] = world[o + w]
            k += 1
    return k if k > 0 else n


@njit(cache=True, nogil=True, inline="always")
def rate_actions(st, me, acts, k, samples, W, g, score, E, step, tab, clear, table_cards, table_put, honour_shown,
                 features, n_features):
    """Index of the best of the ``k`` actions ``acts[:k]`` by the evaluation: ``samples``
    times the position is re-dealt as seat ``me`` sees it (``determinize``: its view is all
    this reads), each action is played in a copy of that world with the game's ``step`` up
    to the next decision, and the position reached is scored by V (row ``g`` of ``W``) of
    what the seat would see there (a finished game: its win share).  Every action is
    scored on the same worlds; ``score[:k]`` holds the sums; ties to the first.  The
    ``learned`` player's choice, and with value=2 the answer the search must beat.
    A game's binding compiles it once, as ``rate`` (sim/bind.py), which both players call:
    inlined into each, it made a cold compile with both about 20% longer."""
    P = st[E.rules]
    world = np.empty(E.size, dtype=np.int64)
    base = np.empty(E.size, dtype=np.int64)
    pool = np.empty(E.size, dtype=np.int64)
    counts = np.empty(tab.shape[0] * MAX_SEATS + 1, dtype=np.int64)
    x = np.zeros(n_features, dtype=np.float64)
    for i in range(k):
        score[i] = 0.0
    for _ in range(samples):
        copy_position(st, base, E, 0)
        determinize(st, base, me, P, tab, clear, pool, counts, table_cards, table_put, honour_shown)
        for i in range(k):
            copy_position(base, world, E, 0)
            step(world, (acts[i, 0], acts[i, 1], acts[i, 2], acts[i, 3]))
            if world[E.phase] == DONE:
                score[i] += win_share(world, E, me)
            else:
                features(world, me, x)
                score[i] += value(W, g, x)
    best = 0
    for i in range(1, k):
        if score[i] > score[best]:
            best = i
    return best


@njit(cache=True, nogil=True, inline="always")
def widen_pick(st, me, world, n, node, who, rollout, rpar, never, saved, keys, act, parent_of,
               choose, restrict_bits, E):
    """The action a wide node (more than ``widen`` legal actions) grows by: the rollout
    heuristic's answer if it is not a child yet (and the restriction allows it), else a
    uniformly random untried legal action (32 tries).  Returns the action and its hash
    slot, or a slot of -1 when none was found."""
    if rollout != RANDOM_ROLLOUT:
        # the heuristic may write its scratch (and the legal actions listed): undo that
        copy_position(world, saved, E, n)
        a = choose(rollout, world, who, seat_params(rpar, rollout))
        copy_position(saved, world, E, n)
        ch = find_child(keys, act, parent_of, node, a[0], a[1], a[2], a[3])
        if ch < 0 and (who != me or never == 0 or restrict_bits(world, a[0], a[1], a[2], a[3]) & never == 0):
            return a[0], a[1], a[2], a[3], -ch - 1
    for _ in range(32):
        o = E.acts + 4 * seat_below(st, me, n)
        ch = find_child(keys, act, parent_of, node, world[o], world[o + 1], world[o + 2], world[o + 3])
        if ch < 0:
            return world[o], world[o + 1], world[o + 2], world[o + 3], -ch - 1
    return np.int64(0), np.int64(0), np.int64(0), np.int64(0), np.int64(-1)


@njit(cache=True, nogil=True, inline="always")
def decide(st, me, p, rpar, E, choose, step, legal, tab, clear, table_cards, table_put, honour_shown, restrict_bits,
           legal_key, legal_count, quick_count, W, features, n_features, rate):
    """Seat ``me``'s action in ``st`` by ISMCTS with the parameters ``p`` (iterations, c,
    rollout, never, widen, trust, value, depth); ``W`` is the model array a cut play-out
    (and with value=2 the default answer) is scored by (its last row; read only with
    value=1 or 2), ``features`` the game's observation
    numbers (``sim/features.py``, ``n_features`` of them), ``rate`` the game's
    ``rate_actions`` (its binding's ``rate``: value=2); ``rpar`` holds every strategy's
    default parameters (a heuristic rollout's); ``restrict_bits(st, kind, a, b, c)`` is the
    game's mask of what an action commits (for ``never``); ``legal_key(st, o, n, kind, a,
    b, c)`` the place of an action in
    the ``n`` legal ones listed at ``o``, or -1 (``listed``, or the game's quicker own);
    ``legal_count(st)`` how many legal actions there are: ``legal`` itself (it lists them,
    ``quick_count`` False) or, for a game with wide decisions, a count that lists nothing
    (``quick_count`` True; then ``legal_key`` must not read the buffer either, so it is
    never ``listed``).  Worlds are copied without the legal-action buffer
    (``copy_position``): nothing here, in a game's rules or in a strategy may read that
    buffer before ``legal`` has written it for the position at hand."""
    P = st[E.rules]
    iterations = max(1, np.int64(p[P_ITERATIONS]))
    c_explore = p[P_C]
    rollout = np.int64(p[P_ROLLOUT])
    never = np.int64(p[P_NEVER])
    widen = np.int64(p[P_WIDEN])
    cut = p[P_VALUE] != 0  # play-outs cut after `depth` decisions and scored by V (value 1 or 2)
    depth_cut = np.int64(p[P_DEPTH])
    g = W.shape[0] - 1
    x = np.zeros(n_features if cut else 1, dtype=np.float64)  # one seat's observation numbers
    v = np.zeros(MAX_SEATS, dtype=np.float64)  # every seat's evaluated share
    world = np.empty(E.size, dtype=np.int64)
    saved = np.empty(E.size, dtype=np.int64)
    pool = np.empty(E.size, dtype=np.int64)
    counts = np.empty(tab.shape[0] * MAX_SEATS + 1, dtype=np.int64)
    # one legal action: nothing to search
    copy_position(st, world, E, 0)
    n_root = keep_allowed(world, legal(world), never, restrict_bits, E)
    if n_root == 1:
        o = E.acts
        return (world[o], world[o + 1], world[o + 2], world[o + 3])
    # the default the search must beat on evidence (trust): with value=2, the action V
    # rates best one move ahead on one sampled world (the learned player's answer); else
    # the rollout heuristic's own answer in the real position (on a copy: it may write
    # its scratch)
    trust = p[P_TRUST]
    h = (np.int64(0), np.int64(0), np.int64(0), np.int64(-1))
    has_h = False
    if p[P_VALUE] == 2 and trust > 0 and n_root <= widen:
        cand = np.empty((n_root, 4), dtype=np.int64)  # the allowed actions, listed at the front
        for i in range(n_root):
            for w in range(4):
                cand[i, w] = world[E.acts + 4 * i + w]
        rated = np.empty(n_root, dtype=np.float64)
        # (one sample: an int64, as the learned player passes; a constant would compile
        # ``rate`` a second time, for its literal type)
        b = rate(st, me, cand, n_root, np.int64(1), W, g, rated)
        h = (cand[b, 0], cand[b, 1], cand[b, 2], cand[b, 3])
        has_h = True
    elif rollout != RANDOM_ROLLOUT and trust > 0:
        h = choose(rollout, world, me, seat_params(rpar, rollout))
        has_h = never == 0 or restrict_bits(world, h[0], h[1], h[2], h[3]) & never == 0
    # the tree: node 0 is the root; node i > 0 was reached by act[i] from parent_of[i],
    # chosen by seat player[i]
    N = iterations + 1
    act = np.zeros((N, 4), dtype=np.int64)
    parent_of = np.full(N, -1, dtype=np.int64)
    player = np.zeros(N, dtype=np.int64)
    visits = np.zeros(N, dtype=np.float64)
    avail = np.zeros(N, dtype=np.float64)
    reward = np.zeros(N, dtype=np.float64)
    kids = np.zeros(N, dtype=np.int64)  # children per node (progressive widening)
    first_kid = np.full(N, -1, dtype=np.int64)  # a node's children, newest first
    next_kid = np.full(N, -1, dtype=np.int64)
    H = 1
    while H < 4 * N:
        H *= 2
    keys = np.full(H, -1, dtype=np.int64)
    path = np.zeros(N + 1, dtype=np.int64)  # the nodes of this iteration's walk (distinct)
    n_nodes = 1
    for _ in range(iterations):
        copy_position(st, world, E, 0)
        determinize(st, world, me, P, tab, clear, pool, counts, table_cards, table_put, honour_shown)
        node = 0
        depth = 0
        # select down the tree while every legal action has been tried; expand one
        while world[E.phase] != DONE:
            who = world[E.actor]
            # how many legal actions; listed too unless the game counts without listing
            # (quick_count) and the node is wide: its children are checked by legal_key,
            # and it lists only when it grows (Block Tower: 3,003 placements of 4 numbers)
            n = legal_count(world)
            is_listed = not quick_count
            if not is_listed and (n <= widen or (who == me and never != 0)):
                legal(world)
                is_listed = True
            n_legal = n
            if who == me:
                n = keep_allowed(world, n, never, restrict_bits, E)
            # some legal actions are not the seat's to take (a restriction that leaves others)
            barred = n < n_legal
            best = -1
            best_score = -1.0
            untried = 0
            pick_k, pick_a, pick_b, pick_c, pick_slot = 0, 0, 0, 0, 0
            if n > widen:  # a wide decision: progressive widening (see widen_pick)
                # its few children, each checked by legal_key (not each listed action
                # looked up: 3,003 of them at a Block Tower placement), ties to the one
                # listed first
                best_key = -1
                ch = first_kid[node]
                while ch >= 0:
                    key = legal_key(world, E.acts, n, act[ch, 0], act[ch, 1], act[ch, 2], act[ch, 3])
                    if key >= 0 and barred and \
                            restrict_bits(world, act[ch, 0], act[ch, 1], act[ch, 2], act[ch, 3]) & never != 0:
                        key = -1  # legal here, but the restriction bars it (a child of a forced move)
                    if key >= 0:
                        avail[ch] += 1.0
                        score = ucb(reward, visits, avail, ch, c_explore)
                        if score > best_score or (score == best_score and key < best_key):
                            best_score = score
                            best = ch
                            best_key = key
                    ch = next_kid[ch]
                if best < 0 or kids[node] * kids[node] <= visits[node]:
                    if not is_listed:
                        legal(world)
                    pick_k, pick_a, pick_b, pick_c, pick_slot = widen_pick(
                        st, me, world, n, node, who, rollout, rpar, never, saved, keys, act, parent_of,
                        choose, restrict_bits, E)
                    if pick_slot >= 0:
                        untried = 1
            for i in range(n if n <= widen else 0):
                o = E.acts + 4 * i
                ch = find_child(keys, act, parent_of, node, world[o], world[o + 1], world[o + 2], world[o + 3])
                if ch < 0:  # untried here: keep one of them uniformly (reservoir)
                    untried += 1
                    if seat_below(st, me, untried) == 0:
                        pick_k, pick_a, pick_b, pick_c = world[o], world[o + 1], world[o + 2], world[o + 3]
                        pick_slot = -ch - 1
                else:
                    avail[ch] += 1.0
                    if untried == 0:
                        score = ucb(reward, visits, avail, ch, c_explore)
                        if score > best_score:
                            best_score = score
                            best = ch
            if untried > 0:
                if n_nodes < N:  # expand: a new node for the untried action
                    ch = n_nodes
                    n_nodes += 1
                    act[ch, 0], act[ch, 1], act[ch, 2], act[ch, 3] = pick_k, pick_a, pick_b, pick_c
                    parent_of[ch] = node
                    player[ch] = who
                    kids[node] += 1
                    next_kid[ch] = first_kid[node]
                    first_kid[node] = ch
                    keys[pick_slot] = ch
                    avail[ch] = 1.0
                    depth += 1
                    path[depth] = ch
                step(world, (pick_k, pick_a, pick_b, pick_c))
                break
            node = best
            depth += 1
            path[depth] = node
            step(world, (act[node, 0], act[node, 1], act[node, 2], act[node, 3]))
        # roll the world out to its end (with value=1: `depth_cut` decisions on)
        ply = 0
        while world[E.phase] != DONE and not (cut and ply >= depth_cut):
            ply += 1
            who = world[E.actor]
            if rollout != RANDOM_ROLLOUT:
                bound = who == me and never != 0
                if bound:  # the heuristic may write its scratch (a plan): undo it if refused
                    copy_position(world, saved, E, 0)
                a = choose(rollout, world, who, seat_params(rpar, rollout))
                if not bound or restrict_bits(world, a[0], a[1], a[2], a[3]) & never == 0:
                    step(world, a)
                    continue
                copy_position(saved, world, E, 0)
            # a uniformly random legal action (allowed by the restriction, for the seat)
            n = legal(world)
            if who == me:
                n = keep_allowed(world, n, never, restrict_bits, E)
            o = E.acts + 4 * seat_below(st, me, n)
            step(world, (world[o], world[o + 1], world[o + 2], world[o + 3]))
        # back up each node with the win share of the seat that chose it (a cut play-out:
        # the evaluated shares)
        scored = world[E.phase] != DONE
        if scored:
            shares(world, P, W, g, x, features, v)
        visits[0] += 1.0
        for d in range(1, depth + 1):
            nd = path[d]
            visits[nd] += 1.0
            reward[nd] += v[player[nd]] if scored else win_share(world, E, player[nd])
    # the most visited action at the root (ties: the first expanded)
    best = -1
    most = -1.0
    for ch in range(1, n_nodes):
        if parent_of[ch] == 0 and visits[ch] > most:
            most = visits[ch]
            best = ch
    # unless it does not beat the heuristic's answer by `trust` standard errors of the
    # difference of their mean win shares (a share in [0, 1] of mean m varies by at most
    # m(1 - m)): on noise alone the search keeps to its heuristic
    if has_h:
        hc = find_child(keys, act, parent_of, 0, h[0], h[1], h[2], h[3])
        if hc > 0 and hc != best:
            mb = reward[best] / visits[best]
            mh = reward[hc] / visits[hc]
            se = np.sqrt(mb * (1.0 - mb) / visits[best] + mh * (1.0 - mh) / visits[hc])
            if mb - mh <= trust * se:
                best = hc
    return (act[best, 0], act[best, 1], act[best, 2], act[best, 3])
