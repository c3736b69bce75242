"""Side-by-side OpenCV/Lumen ratios of two bench runs (e.g. two Halide versions), from their
results.csv. Usage: compare.py A.csv B.csv [label A] [label B] > out.md"""
import csv, sys

a_path, b_path = sys.argv[1], sys.argv[2]
la, lb = (sys.argv[3:5] + ["A", "B"])[:2] if len(sys.argv) > 3 else ("A", "B")


def load(path):
    rows = {}
    for r in csv.DictReader(open(path)):
        if r["section"] in ("pipeline", "pointop", "dispatch"):
            rows[(r["section"], r["name"], r["size"], r["format"], r["threads"], r["other"])] = r
    return rows


a, b = load(a_path), load(b_path)
out = [f"| pipeline | size | fmt | thr | vs | {la} Lumen ms | {lb} Lumen ms | {la} ratio | {lb} ratio |",
       "|---|---|---|---|---|---|---|---|---|"]
for key in a:
    sec, name, size, fmt, thr, other = key
    if key not in b or sec != "pipeline" or size == "640x480":
        continue
    ra, rb = a[key], b[key]
    out.append(f"| {name} | {size} | {fmt} | {thr} | {other} | {float(ra['lumen_ms']):.3f} | "
               f"{float(rb['lumen_ms']):.3f} | {float(ra['value']):.2f} | {float(rb['value']):.2f} |")
for key in a:
    if key[0] == "dispatch" and key in b:
        out.append(f"| dispatch {key[2]} | | | {key[4]} | ns/call | | | {a[key]['value']} | {b[key]['value']} |")
print("\n".join(out))
