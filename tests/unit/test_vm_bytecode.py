"""The test VMs' bytecode cache (tests/vm/kubenode_test_bytecode.py): the same code as a compile, named for this run."""
from __future__ import annotations

import importlib.util
import os
import sys
import zipfile
import zipimport

import pytest

SOURCE = b'''
def where():
    return (lambda: where.__code__.co_filename)()

VALUE = 6 * 7
'''


@pytest.fixture
def bytecode(tmp_path, monkeypatch):
    """The cache module, loaded from tests/vm with its cache in tmp_path; zipimport restored after."""
    path = os.path.join(os.path.dirname(__file__), '..', 'vm', 'kubenode_test_bytecode.py')
    spec = importlib.util.spec_from_file_location('kubenode_test_bytecode_under_test', path)
    module = importlib.util.module_from_spec(spec)
    original = zipimport._compile_source  # pylint: disable=protected-access
    monkeypatch.delenv('KUBENODE_TEST_BYTECODE', raising=False)
    try:
        spec.loader.exec_module(module)
        module.CACHE = str(tmp_path / 'cache')
        yield module
    finally:
        zipimport._compile_source = original  # pylint: disable=protected-access


def import_from_zip(tmp_path, name):
    """Imports module `payload` from a new zip named name, as AnsiballZ's payload is imported."""
    archive = tmp_path / name
    with zipfile.ZipFile(str(archive), 'w') as payload:
        payload.writestr('payload.py', SOURCE)
    sys.modules.pop('payload', None)
    sys.path.insert(0, str(archive))
    try:
        return importlib.import_module('payload'), str(archive)
    finally:
        sys.path.remove(str(archive))
        sys.modules.pop('payload', None)
        sys.path_importer_cache.pop(str(archive), None)


def test_the_second_run_takes_the_kept_code_named_for_its_own_zip(bytecode, tmp_path):
    first, first_zip = import_from_zip(tmp_path, 'one.zip')
    kept = os.listdir(bytecode.CACHE)
    assert len(kept) == 1
    second, second_zip = import_from_zip(tmp_path, 'two.zip')
    assert os.listdir(bytecode.CACHE) == kept
    assert (first.VALUE, second.VALUE) == (42, 42)
    # The nested lambda's code comes from the cache too: a traceback names this run's zip, not the first one's.
    assert first.where() == os.path.join(first_zip, 'payload.py')
    assert second.where() == os.path.join(second_zip, 'payload.py')


def test_a_broken_cache_file_is_compiled_again(bytecode, tmp_path):
    import_from_zip(tmp_path, 'one.zip')
    (kept,) = os.listdir(bytecode.CACHE)
    with open(os.path.join(bytecode.CACHE, kept), 'wb') as broken:
        broken.write(b'not marshal data')
    module, _zip = import_from_zip(tmp_path, 'two.zip')
    assert module.VALUE == 42


def test_off_leaves_zipimport_compiling(tmp_path, monkeypatch):
    monkeypatch.setenv('KUBENODE_TEST_BYTECODE', 'off')
    original = zipimport._compile_source  # pylint: disable=protected-access
    path = os.path.join(os.path.dirname(__file__), '..', 'vm', 'kubenode_test_bytecode.py')
    spec = importlib.util.spec_from_file_location('kubenode_test_bytecode_off', path)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    assert zipimport._compile_source is original  # pylint: disable=protected-access
