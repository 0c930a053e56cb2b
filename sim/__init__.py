"""cardlab's compiled fast path: core helpers and one subpackage per game.

Importing this package first points numba's on-disk cache at a folder keyed by a
hash of the kernel sources (see ``sim.cache``), so a stale kernel can never load.
"""
from cardlab.sim import cache as _cache

_cache.configure()
