"""The exceptions cairn raises: one class per cairn::Status code.

Every failed call of the library raises the class of its status code with
the library's message (which names the store, file, key or rank). They all
derive from :class:`cairn.Error`; ``NotFound`` is also a ``KeyError`` and
``InvalidArgument`` also a ``ValueError``, so ordinary Python handlers work.
"""


class Error(Exception):
    """Base class of every error raised by cairn."""

    def __str__(self) -> str:  # KeyError would quote the message
        return Exception.__str__(self)


class NotFound(Error, KeyError):
    """The key, tag, revision or store does not exist."""


class Corruption(Error):
    """A checksum, magic number or length did not match: the data is damaged."""


class InvalidArgument(Error, ValueError):
    """The call asked for something not allowed (the message says what)."""


class IOError(Error):  # noqa: A001 (cairn.IOError, as the issue names it)
    """The operating system refused a read or write."""


class NotSupported(Error):
    """E.g. a store written by a newer format, or a file system that cannot lock."""


class Aborted(Error):
    """A collective call failed on another rank."""
