"""The exceptions kiln raises: kernels' failures, and programs kiln.export cannot write.

KilnError is also the native extension's exception type: kiln._C raises it directly with the
runtime's Error name as ``code`` (python/src/kiln_error.h), so this module must not import
kiln._C."""


class KilnError(RuntimeError):
    """A kernel, the registry, a program's loader or runner refused; `code` is the runtime's Error
    name ("InvalidArgument", "InvalidProgram", ...)."""

    def __init__(self, message: str, code: str = "InvalidArgument") -> None:
        super().__init__(message)
        self.code = code


class KilnTypeError(KilnError, TypeError):
    """A call's arguments do not fit the operator's schema (a missing, repeated or unknown
    argument, a value of the wrong type): a KilnError that is also the TypeError Python code
    expects, code "InvalidArgument"."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "InvalidArgument")


class KilnValueError(KilnError, ValueError):
    """An argument of the right type with a value kiln cannot take (an unknown backend, an int
    beyond int64): a KilnError that is also a ValueError, code "InvalidArgument"."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "InvalidArgument")


class ExportError(KilnError):
    """kiln.export cannot write the module as a program: the message names the graph node and the
    operator or construct it cannot express, and what to do instead."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "NotSupported")
