"""The text ``tactl check --repair`` prints after the check's report: the nearest repairs, each
as the threshold changes it makes, and how much of the space the search covered."""

from __future__ import annotations

from tactl.synth.repair import RepairResult

# At most this many repairs are printed in full; the JSON form lists them all.
SHOWN = 10


def repair_lines(result: RepairResult) -> list[str]:
    if not result.sites:
        return ["", f"repair: {'; '.join(result.notes)}"]
    n = len(result.sites)
    out = ["", f"repair: {n} threshold{'s' if n != 1 else ''} lifted into {len(result.ranges)} unknowns:"]
    for site in result.sites:
        ranges = ", ".join(f"{u} in [{result.ranges[u][0]}, {result.ranges[u][1]}]" for u in site.unknowns.values())
        out.append(f"  {site.where} `{site.written}`: {ranges}")
    out += [f"  note: {n}" for n in result.notes]
    if result.repairs:
        head = (f"nearest repairs (distance {result.distance}): {len(result.repairs)}"
                if len(result.repairs) > 1 else f"nearest repair (distance {result.distance}):")
        if any(r.weakest for r in result.repairs):
            head += ", the best first (the weakest resilience condition, then the least thresholds)"
        out.append(head)
        for r in result.repairs[:SHOWN]:
            rechecked = ", ".join(f"{p}: {v}" for p, v in r.recheck.items())
            mark = {True: "best: ", False: "", None: ""}[r.weakest]
            out.append(f"  {mark}" + "; ".join(c.text() for c in r.changes)
                       + f"; every property then holds (re-checked: {rechecked})")
        if len(result.repairs) > SHOWN:
            out.append(f"  … and {len(result.repairs) - SHOWN} more at the same distance (--json lists them all)")
    elif result.complete:
        out.append("no repair within these ranges: every candidate violates a property"
                   + (f" ({result.vacuous} made a property hold only vacuously)" if result.vacuous else ""))
    else:
        out.append(f"no repair found before the search stopped ({result.stopped}): nearer ones may exist")
    if result.repairs and not result.complete:
        out.append(f"  the search stopped ({result.stopped}) inside this ring: other repairs at this distance may exist")
    out.append(f"  searched by {result.method}: {result.candidates_tried} candidates checked"
               + (f", {result.regions_excluded} regions excluded" if result.regions_excluded else "")
               + f", {result.time_s:.1f} s")
    out += [f"  problem: {p}" for p in result.problems]
    return out
