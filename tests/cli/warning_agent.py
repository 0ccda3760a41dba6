"""An agent that warns, as a framework's deprecation or a library's runtime warning does (a
`DeprecationWarning` too, which Python's default filters keep quiet), then silences warnings
for the rest of its process, as a library may, and returns no structured exit: its run fails,
and its record keeps what Python printed (its file, its line, the warning)."""

import warnings


def agent(session: object) -> str:
    warnings.warn("this call is going away", UserWarning, stacklevel=1)
    warnings.warn("this module is internal", DeprecationWarning, stacklevel=1)
    warnings.simplefilter("ignore")
    return "no structured exit"
