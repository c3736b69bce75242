"""Side-by-side peer/Lumen ratios of two bench runs (e.g. two Halide versions), from their
results.csv. Usage: compare.py A.csv B.csv [label A] [label B] > out.md
Reads both the current columns (params, variant, match) and the older ones (no params/variant,
other_match), so an old results.csv still compares."""
import csv, sys

a_path, b_path = sys.argv[1], sys.argv[2]
la, lb = (sys.argv[3:5] + ["A", "B"])[:2] if len(sys.argv) > 3 else ("A", "B")


def load(path):
    rows = {}
    for r in csv.DictReader(l for l in open(path) if not l.startswith("#")):
        if r["section"] in ("pipeline", "dispatch"):
            key = (r["section"], r["name"], r.get("params", ""), r["size"], r["format"], r["threads"],
                   r.get("variant", ""), r["other"])
            rows[key] = r
    return rows


def ratio(r):
    try:
        return f"{float(r['other_ms']) / float(r['lumen_ms']):.2f}"
    except (ValueError, ZeroDivisionError):
        return ""


a, b = load(a_path), load(b_path)
out = [f"| pipeline | params | size | fmt | thr | variant | vs | {la} Lumen ms | {lb} Lumen ms | {la} ratio "
       f"| {lb} ratio |", "|---|---|---|---|---|---|---|---|---|---|---|"]
for key in a:
    sec, name, params, size, fmt, thr, var, other = key
    if key not in b or sec != "pipeline" or size == "640x480":
        continue
    ra, rb = a[key], b[key]
    out.append(f"| {name} | {params} | {size} | {fmt} | {thr} | {var} | {other} | {float(ra['lumen_ms']):.3f} | "
               f"{float(rb['lumen_ms']):.3f} | {ratio(ra)} | {ratio(rb)} |")
for key in a:
    if key[0] == "dispatch" and key in b:
        out.append(f"| dispatch | | {key[3]} | | {key[5]} | {key[6]} | ns/call | | | {a[key]['value']} "
                   f"| {b[key]['value']} |")
print("\n".join(out))
