"""The wording of messages, for the codegen and the kiln package alike: a type or kind name
after the indefinite article it takes ("an int", "a Tensor[]", "an Int")."""

from __future__ import annotations


def article(name: str) -> str:
    """The article of ``name``: "an" when it is said with a vowel first ("int", "Int",
    "object", "undefined"), else "a" ("Tensor"; "uint8", "UInt16" and "user_input" start with
    the sound "you")."""
    word = name.lstrip("`'\"").lower()
    if word[:1] in ("a", "e", "i", "o"):
        return "an"
    if word.startswith("u") and not word.startswith(("ui", "us", "uni", "ut")):
        return "an"
    return "a"


def with_article(name: str) -> str:
    """``name`` after its indefinite article: "an int", "a Tensor"."""
    return f"{article(name)} {name}"
