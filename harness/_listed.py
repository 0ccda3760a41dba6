"""Consumes a stop and the names of a run's subtasks, produces what the stop says of them: the
subtasks it names anywhere (`is_named`), and the ones it lists as finished (`listed_as_finished`):
under a label of finishing in its partial results, or in a labelled clause of its texts."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from unsolvable._stop import Stop
from unsolvable._text import plain_partial

__all__ = ["FINISHED_LABELS", "is_named", "listed_as_finished"]

FINISHED_LABELS = ("finished", "succeeded", "done", "completed", "complete")
"""The words that label a list of subtasks as finished: a key of the partial results
(``{"finished": [...]}``), the state a subtask is mapped to (``{"S-1": "succeeded"}``), or a
clause of a text (``finished: S-1, S-2;``)."""
_NOT_A_CLAIM = frozenset({"not", "never", "yet", "no", "be"})
"""A word that, just before a label, makes it say the opposite or the future: ``not finished:``,
``to be done:`` list what did not finish."""
_LABEL = re.compile(rf"(?<![\w-])(?:{'|'.join(FINISHED_LABELS)})\s*:", re.IGNORECASE)
_CLAUSE_END = re.compile(r";|\n|\.(?=\s|$)")
"""A labelled clause runs to a semicolon, a line's end or a full stop, whichever comes first."""
_STATE_KEYS = ("state", "status")


def is_named(name: str, said: str, names: Sequence[str]) -> bool:
    """Whether ``said`` names ``name`` itself, not only a longer subtask name that holds it
    (``S-10`` does not say ``S-1``), as `named_subtask` reads a worker's conversation."""
    for longer in sorted((n for n in names if name in n and n != name), key=len, reverse=True):
        said = said.replace(longer, "")
    return name in said


def listed_as_finished(stop: Stop, names: Sequence[str]) -> list[str]:
    """The subtasks of ``names`` that ``stop`` lists as finished, in the order of ``names``: a
    stop may name every subtask (the contract's says what each came to), but only these does
    it say are done."""
    partial = plain_partial(stop.partial)  # bounded however the agent built it
    lists = [*_clauses(stop.reason), *(c for m in stop.missing for c in _clauses(m))]
    lists.extend(_in_partial(partial, names))
    return [name for name in names if any(is_named(name, text, names) for text in lists)]


def _clauses(text: str) -> Iterator[str]:
    """The clauses of ``text`` that a label of finishing opens, each from the label to its end."""
    for label in _LABEL.finditer(text):
        before = re.findall(r"\w+", text[: label.start()])
        if before and before[-1].lower() in _NOT_A_CLAIM:
            continue
        rest = text[label.end() :]
        end = _CLAUSE_END.search(rest)
        yield rest if end is None else rest[: end.start()]


def _is_label(word: object) -> bool:
    return isinstance(word, str) and word.strip().lower() in FINISHED_LABELS


def _is_finished_state(value: object) -> bool:
    """A state that says finished: its first word a label (``"succeeded"``, ``"done (filed)"``),
    or a mapping whose state or status says so."""
    if isinstance(value, dict):
        return any(_is_finished_state(value.get(key)) for key in _STATE_KEYS)
    words = re.findall(r"\w+", value) if isinstance(value, str) else []
    return bool(words) and _is_label(words[0])


def _in_partial(value: object, names: Sequence[str]) -> Iterator[str]:
    """The texts that list subtasks as finished in a partial result (JSON, as a record keeps
    it): a text's clauses, what a label keys, and the name of a subtask mapped to a finished
    state, at any depth."""
    if isinstance(value, str):
        yield from _clauses(value)
    elif isinstance(value, list):
        for item in value:
            yield from _in_partial(item, names)
    elif isinstance(value, dict):
        for key, item in value.items():
            if _is_label(key):
                yield from _listed_under(item)
            elif key in names and _is_finished_state(item):
                yield key
            yield from _in_partial(item, names)


def _listed_under(value: object) -> Iterator[str]:
    """What a label of finishing keys: its texts, or the keys of a mapping that hold true."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _listed_under(item)
    elif isinstance(value, dict):
        yield from (key for key, item in value.items() if item)
