"""The exceptions kiln raises: kernels' failures, and programs kiln.export cannot write."""


class KilnError(RuntimeError):
    """A kernel or the registry refused a call; `code` is the runtime's Error name."""

    def __init__(self, message: str, code: str = "InvalidArgument") -> None:
        super().__init__(message)
        self.code = code


class ExportError(KilnError):
    """kiln.export cannot write the module as a program: the message names the graph node and the
    operator or construct it cannot express, and what to do instead."""

    def __init__(self, message: str) -> None:
        super().__init__(message, "NotSupported")
