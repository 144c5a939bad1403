"""The test VMs' bytecode cache for the Python that ansible sends (tests only: tests/vm/build-image.sh installs it).

ansible-core sends every module as a zip of source files (AnsiballZ) and Python compiles each imported file from
source on every run: zipimport caches no bytecode. Under TCG that compile is about a third of a module run
(docs/testing.md, "make test's time"). This keeps the compiled code of each source file zipimport compiles, keyed by
its content, and hands it back on the next run with the file's path of this run: the same code, compiled once. A
stock node compiles it every run; nothing else differs. KUBENODE_TEST_BYTECODE=off in a module's environment, or
removing kubenode_test_bytecode.pth, turns it off.

Loaded at every Python start by kubenode_test_bytecode.pth; it must never break an interpreter, so every failure of
the cache falls back to compiling.
"""
import hashlib
import marshal
import os
import sys
import zipimport

CACHE = '/var/cache/kubenode-test-bytecode'
_compile_source = zipimport._compile_source  # pylint: disable=protected-access


def _with_filename(code, filename):
    """The code object, and every code object it holds, naming filename (tracebacks name this run's zip)."""
    consts = tuple(_with_filename(const, filename) if isinstance(const, type(code)) else const
                   for const in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _cached_compile_source(pathname, source):
    try:
        key = hashlib.sha256(b'%d:' % sys.hexversion + source).hexdigest()
        path = os.path.join(CACHE, key)
        try:
            with open(path, 'rb') as cached:
                return _with_filename(marshal.load(cached), pathname)
        except (OSError, ValueError, EOFError, TypeError):
            pass
        code = _compile_source(pathname, source)
        os.makedirs(CACHE, exist_ok=True)
        temporary = '%s.%d' % (path, os.getpid())
        with open(temporary, 'wb') as kept:
            marshal.dump(code, kept)
        os.replace(temporary, path)
        return code
    except Exception:  # pylint: disable=broad-except
        return _compile_source(pathname, source)


if os.environ.get('KUBENODE_TEST_BYTECODE') != 'off':
    zipimport._compile_source = _cached_compile_source  # pylint: disable=protected-access
