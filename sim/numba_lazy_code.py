"""Machine code only for what runs: numba's libraries that are only linked get none.

numba compiles every function into a library of its own and, when the library is
finalized, also turns it into machine code.  But a compiled helper below a kernel
(``sim/jit.helper``: no entry from Python) and numba's own implementations of numpy and
builtins are never run from their own library: each caller links their optimized IR into
its own module and LLVM pastes or calls the copy there.  Their machine code (a sixth of a
5 Towers cold compile: 79 libraries, each holding again the code of every helper below
it) is made for nothing, and written to the cache as object code nobody loads.

``install()`` makes the machine code of a library wait until it is needed: a pointer
to a function the library defines (a kernel's entry from Python), or its object code.
A library that was never asked for either is cached as LLVM bitcode (numba's own
``serialize_using_bitcode``), which callers link exactly as before; loading it again
makes no machine code either.  The code that runs is the same (the kernels are built
from the same optimized IR), so are the results: golden files, tally digests.
It replaces nothing unless numba's ``CPUCodeLibrary`` has the methods it wraps.
"""
from __future__ import annotations

installed = False  # whether install() wrapped numba's methods in this process


def applies() -> bool:
    """numba's code library has every method this wraps."""
    try:
        from numba.core import codegen as cg
    except ImportError:  # pragma: no cover - numba is a dependency
        return False
    lib, jit, engine = cg.CPUCodeLibrary, cg.JITCodeLibrary, cg.JITCPUCodegen
    needed = ((lib, "_finalize_final_module"), (lib, "_get_compiled_object"),
              (lib, "serialize_using_object_code"), (lib, "serialize_using_bitcode"),
              (jit, "get_pointer_to_function"), (engine, "set_env"))
    return all(hasattr(c, n) for c, n in needed)


def install() -> bool:
    """Wrap numba's code-library methods (once); False if numba is not the one this was
    written for (then it changes nothing).  Only ``sim/numba_internals.py`` calls it (its
    switch turns every patch off)."""
    global installed
    if installed:
        return True
    if not applies():
        return False
    from numba.core import codegen as cg

    lib, jit, engine = cg.CPUCodeLibrary, cg.JITCodeLibrary, cg.JITCPUCodegen

    finalize_now = lib._finalize_final_module
    compiled_object = lib._get_compiled_object
    as_object = lib.serialize_using_object_code
    pointer = jit.get_pointer_to_function
    set_env = engine.set_env
    envs_later = {}  # environment name -> environment, of libraries without machine code

    def machine_code(self):
        """Make the library's machine code now, if it was put off (and point its
        environment global, if numba set one meanwhile, at its environment)."""
        if self.__dict__.pop("_cardlab_pending", False):
            finalize_now(self)
            defined = {g.name for g in self._final_module.global_variables} & set(envs_later)
            for name in defined:
                set_env(self._codegen, name, envs_later.pop(name))

    def _finalize_final_module(self):
        if getattr(self, "_compiled_object", None) is not None:
            return finalize_now(self)  # loaded from object code: numba's way, as it was
        self._cardlab_pending = True
        self._finalized = True  # the IR is final; only its machine code waits

    def _get_compiled_object(self):
        machine_code(self)
        return compiled_object(self)

    def serialize_using_object_code(self):
        if getattr(self, "_cardlab_pending", False):
            return self.serialize_using_bitcode()  # linked by callers, never run itself
        return as_object(self)

    def get_pointer_to_function(self, name):
        self._ensure_finalized()  # (numba asks before the library is finalized)
        if getattr(self, "_cardlab_pending", False):
            try:
                defined = not self._final_module.get_function(name).is_declaration
            except NameError:
                defined = False
            if not defined:
                return 0  # numba asks for a helper's Python entry, which it does not have
            machine_code(self)
        return pointer(self, name)

    def set_env_later(self, env_name, env):
        # numba points a new function's environment global at its environment; the global
        # lives in the library's machine code, which may not exist (yet)
        if not self._engine.get_global_value_address(env_name):
            envs_later[env_name] = env
            return
        set_env(self, env_name, env)

    lib._finalize_final_module = _finalize_final_module
    lib._get_compiled_object = _get_compiled_object
    lib.serialize_using_object_code = serialize_using_object_code
    jit.get_pointer_to_function = get_pointer_to_function
    engine.set_env = set_env_later
    installed = True
    return True
