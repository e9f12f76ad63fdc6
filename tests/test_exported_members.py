"""The public surface is on purpose: __all__ is sorted, complete and importable."""

from __future__ import annotations

import servescope
import servescope.documents
import servescope.errors


def test_documents_all_sorted_and_importable() -> None:
    names = servescope.documents.__all__
    assert names == sorted(names)
    for name in names:
        assert getattr(servescope.documents, name) is not None


def test_errors_tree() -> None:
    assert servescope.errors.__all__ == sorted(servescope.errors.__all__)
    for name in servescope.errors.__all__:
        cls = getattr(servescope.errors, name)
        assert issubclass(cls, servescope.errors.ServescopeError)


def test_version_is_set() -> None:
    assert servescope.__version__ and servescope.__version__ != "0.0.0+unknown"
