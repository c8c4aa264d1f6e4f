"""The exception kernels' failures surface as."""


class KilnError(RuntimeError):
    """A kernel or the registry refused a call; `code` is the runtime's Error name."""

    def __init__(self, message: str, code: str = "InvalidArgument") -> None:
        super().__init__(message)
        self.code = code
