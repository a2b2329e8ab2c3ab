"""How much of ``triton.language`` Kiln has: each public name (its
``__all__``) of the installed Triton's ``triton.language`` against
``kiln.triton.language``,
and, for the functions both have, the keywords Triton takes that Kiln's
do not; then the functions of ``tl.extra.cuda.libdevice`` against
``kiln.extra.libdevice``.

    PYTHONPATH=python python3 scripts/triton_coverage.py [--write]

Prints the Markdown; ``--write`` puts it in docs/python-api.md between its
coverage markers. python/test/test_triton_coverage.py checks that the file
holds what this prints and that every missing name has a reason
(``kiln.triton.language.NOT_SUPPORTED``).
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "python-api.md"
BEGIN = "<!-- triton-coverage: begin (scripts/triton_coverage.py --write) -->"
END = "<!-- triton-coverage: end -->"


def _parameters(function) -> list[str] | None:
    """The names of ``function``'s parameters (a Triton JITFunction's or
    builtin's without Triton's own ``_semantic``-style ones), or None."""
    function = getattr(function, "fn", function)
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    return [name for name, p in signature.parameters.items()
            if not name.startswith("_")
            and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def table() -> str:
    import triton
    import triton.language as triton_language

    import kiln.triton.language as kiln_language

    names = sorted(triton_language.__all__)
    have = [n for n in names if n in kiln_language.__all__]
    missing = [n for n in names if n not in kiln_language.__all__]
    keywords = []
    for name in have:
        theirs = _parameters(getattr(triton_language, name))
        ours = _parameters(getattr(kiln_language, name))
        if not callable(getattr(triton_language, name)) or theirs is None \
                or ours is None or isinstance(
                    getattr(triton_language, name), type):
            continue
        lacking = [k for k in theirs if k not in ours]
        if lacking:
            keywords.append((name, lacking))
    lines = [
        f"Kiln has {len(have)} of the {len(names)} public names of Triton "
        f"{triton.__version__}'s `triton.language` "
        f"({100 * len(have) // len(names)}%), each the same object as "
        "`kiln.language`'s.",
        "",
        "| Triton's name | why Kiln lacks it |",
        "|---|---|",
    ]
    for name in missing:
        reason = kiln_language.NOT_SUPPORTED.get(name, "(no reason given)")
        lines.append(f"| `{name}` | {reason} |")
    lines += ["", "Functions Kiln has without some of Triton's keywords "
              "(a call that passes one is an error naming it):", ""]
    if keywords:
        lines += ["| function | keywords Kiln lacks |", "|---|---|"]
        lines += [f"| `{name}` | {', '.join(f'`{k}`' for k in lacking)} |"
                  for name, lacking in keywords]
    else:
        lines.append("none.")
    return "\n".join(lines + ["", _libdevice_table()])


def _libdevice_table() -> str:
    """The functions of Triton's ``tl.extra.cuda.libdevice`` against
    ``kiln.extra.libdevice``, the missing ones by reason."""
    import triton.language.extra.cuda.libdevice as triton_libdevice

    from kiln.extra import libdevice

    names = sorted(n for n, v in vars(triton_libdevice).items()
                   if callable(v) and getattr(v, "__module__", None) ==
                   triton_libdevice.__name__)
    have = [n for n in names if n in libdevice.FUNCTIONS]
    by_reason: dict[str, list[str]] = {}
    for name in names:
        if name not in libdevice.FUNCTIONS:
            reason = libdevice.MISSING.get(name, "(no reason given)")
            by_reason.setdefault(reason, []).append(name)
    lines = [f"`tl.extra.cuda.libdevice` (`kiln.extra.libdevice`): Kiln has "
             f"{len(have)} of its {len(names)} functions, with Triton's "
             "overloads.", "",
             "| libdevice functions Kiln lacks | why |", "|---|---|"]
    lines += [f"| {', '.join(f'`{n}`' for n in group)} | {reason} |"
              for reason, group in sorted(by_reason.items(),
                                          key=lambda item: item[1][0])]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true",
                        help="update docs/python-api.md")
    text = table()
    if parser.parse_args().write:
        doc = DOC.read_text()
        start, end = doc.index(BEGIN) + len(BEGIN), doc.index(END)
        DOC.write_text(doc[:start] + "\n" + text + "\n" + doc[end:])
    else:
        sys.stdout.write(text + "\n")


if __name__ == "__main__":
    main()
