"""Bit tricks for sets held as int64 bit masks (Block Tower's hands and piles, the
5 Towers offer slots of one kind).

``popcount``, ``lowest`` (index of the lowest set bit) and ``highest`` (of the highest)
compile to single LLVM instructions (ctpop / cttz / ctlz).  With ``NUMBA_DISABLE_JIT=1``
they are the equivalent plain-Python integer operations, so the uncompiled kernel plays
the very same games.
"""
from numba import config, types
from numba.extending import intrinsic

if config.DISABLE_JIT:  # plain Python: the same answers from Python integers
    def popcount(x):
        return int(x).bit_count()

    def lowest(x):
        x = int(x)
        return (x & -x).bit_length() - 1

    def highest(x):
        return int(x).bit_length() - 1
else:
    from llvmlite import ir

    # numba's public extension API (``intrinsic``) over LLVM's bit-count instructions;
    # numba has its own cttz/ctlz in a private module, which cardlab does not use
    @intrinsic
    def _ctpop(typingctx, x):
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            v = args[0]
            fn = builder.module.declare_intrinsic("llvm.ctpop", [v.type])
            return context.cast(builder, builder.call(fn, [v]), signature.args[0], types.int64)

        return types.int64(x), codegen

    def _count_zeros(count: str):
        """An intrinsic over LLVM's ``cttz`` or ``ctlz`` (defined for every input)."""
        @intrinsic
        def zeros(typingctx, x):
            if not isinstance(x, types.Integer):
                return None

            def codegen(context, builder, signature, args):
                return getattr(builder, count)(args[0], ir.Constant(ir.IntType(1), 0))

            return x(x), codegen

        return zeros

    trailing_zeros = _count_zeros("cttz")
    leading_zeros = _count_zeros("ctlz")

    from numba import njit

    @njit(inline="always", cache=True, nogil=True)
    def popcount(x):
        """Number of set bits of x (x >= 0)."""
        return _ctpop(x)

    @njit(inline="always", cache=True, nogil=True)
    def lowest(x):
        """Index of the lowest set bit of x (x > 0)."""
        return trailing_zeros(x)

    @njit(inline="always", cache=True, nogil=True)
    def highest(x):
        """Index of the highest set bit of x (x > 0)."""
        return 63 - leading_zeros(x)
