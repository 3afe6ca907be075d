"""docs/FRONT_ENDS.md's table, written from the scenarios (one source of truth)."""

from .scenarios import FRONT_ENDS, SCENARIOS

BEGIN = "<!-- conformance table: crates/python/tests_blender/conformance (python -m conformance) -->"
END = "<!-- end of the conformance table -->"


def outcome(row) -> str:
    expect = row["expect"]
    said = ", ".join(f"`{c}`" for c in expect["codes"])
    if expect["error"]:
        return f"refused `{expect['error']}`" + (f"; says {said}" if said else "")
    changed = ", ".join(f"`{p}`" for p in expect["changed"]) or "nothing"
    return f"changes {changed}" + (f"; says {said}" if said else "")


def cell(row, front_end) -> str:
    if front_end in row.get("not_applicable", {}):
        return "n/a: " + row["not_applicable"][front_end]
    if front_end in row.get("xfail", {}):
        return "differs (a bug): " + row["xfail"][front_end]
    return "as expected"


def table() -> str:
    """The Markdown table: each scenario, what every front end does."""
    head = "| scenario | expected | " + " | ".join(FRONT_ENDS) + " |"
    lines = [BEGIN, head, "|" + "---|" * (len(FRONT_ENDS) + 2)]
    for row in SCENARIOS:
        cells = " | ".join(cell(row, fe) for fe in FRONT_ENDS)
        lines.append(f"| `{row['id']}`: {row['title']} | {outcome(row)} | {cells} |")
    lines.append(END)
    return "\n".join(lines) + "\n"
