"""OpenCV from PyPI (opencv-python-headless, with IPP) as a peer, timed from Python on numpy arrays.
Runs in the bench venv (build/bench-venv, bench/requirements.txt), after lumen_bench, on the same
cases: it reads lumen_bench's CSV for the list (pipeline, params, size, format, threads) and for
Lumen's times, regenerates the same inputs (the index hash of bench.cpp's noise()), computes
Lumen's output through liblumen.so (ctypes, outside the timing) and compares every cv2 output
with it, with the same tolerances as bench.cpp's OpenCV rows.
Usage: peer_cv2.py LUMEN_BENCH.csv LIBLUMEN.so OUT.csv [--budget=SECONDS]"""
import csv, ctypes, math, sys, time

import cv2
import numpy as np
import PIL
from PIL import Image

raw, so, out_path = sys.argv[1:4]
budget = 0.08
for a in sys.argv[4:]:
    if a.startswith("--budget="):
        budget = float(a.split("=", 1)[1])

GAIN, BIAS, AMOUNT = 1.2, 10.0, 1.5


def q12(v):
    return math.floor(v * 4096.0 + 0.5)


G, B = q12(GAIN) / 4096.0, q12(BIAS) / 4096.0
LUT = np.array([min(255, max(0, (q12(GAIN) * i + q12(BIAS) + 2048) >> 12)) for i in range(256)], np.uint8)

# ---- Lumen through its C API, for the reference outputs.
L = ctypes.CDLL(so)
vp = ctypes.c_void_p
L.lumen_context_create.argtypes = [ctypes.c_int, ctypes.POINTER(vp)]
L.lumen_image_wrap.argtypes = [vp, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_size_t, ctypes.POINTER(vp)]
L.lumen_image_destroy.argtypes = [vp]
L.lumen_cpu_variant.restype = ctypes.c_char_p
for fn, extra in (("lumen_levels", 2), ("lumen_grayscale", 0), ("lumen_gaussian_blur", 1), ("lumen_resize", 0),
                  ("lumen_sobel", 0), ("lumen_unsharp_mask", 2)):
    getattr(L, fn).argtypes = [vp, vp, vp] + [ctypes.c_float] * extra
ctx = vp()
assert L.lumen_context_create(1, ctypes.byref(ctx)) == 0  # LUMEN_BACKEND_CPU


class Frame(ctypes.Structure):  # lumen_yuv_frame
    _fields_ = [("layout", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("planes", vp * 3), ("strides", ctypes.c_size_t * 3)]


L.lumen_yuv_to_rgb.argtypes = [vp, ctypes.POINTER(Frame), vp, ctypes.c_int]
L.lumen_resize_interp.argtypes = [vp, vp, vp, ctypes.c_int]


def wrap(a):
    h, c = vp(), (1 if a.ndim == 2 else a.shape[2])
    assert L.lumen_image_wrap(a.ctypes.data, a.shape[1], a.shape[0], c, a.shape[1] * c, ctypes.byref(h)) == 0
    return h


INTERP = {"resize_nearest": 0, "resize_cubic": 2, "resize_area": 3, "resize_lanczos3": 64}


def lumen(name, params, src, dst):
    if name == "yuv_to_rgb":  # src: NV12 (Y rows, then UV rows), BT.601 limited
        w, h = src.shape[1], src.shape[0] * 2 // 3
        f = Frame(1, w, h, (vp * 3)(src.ctypes.data, src.ctypes.data + w * h, None), (ctypes.c_size_t * 3)(w, w, 0))
        d = wrap(dst)
        st = L.lumen_yuv_to_rgb(ctx, ctypes.byref(f), d, 1)
        L.lumen_image_destroy(d)
        assert st == 0, (name, st)
        return
    s, d = wrap(src), wrap(dst)
    p = params.split()
    if name in INTERP:  # lumen_resize_interp
        args, name = (INTERP[name],), "resize_interp"
    elif name == "box_filter":  # params "KWxKH"
        args = tuple(map(int, params.split("x")))
    else:
        args = ((GAIN, BIAS) if name == "levels" else (float(p[1]),) if name == "gaussian_blur"
                else (float(p[1]), AMOUNT) if name == "unsharp_mask" else ())
    st = getattr(L, "lumen_" + name)(ctx, s, d, *args)
    L.lumen_image_destroy(s)
    L.lumen_image_destroy(d)
    assert st == 0, (name, st)


def noise(n):  # bench.cpp's noise(): the same bytes
    x = np.arange(n, dtype=np.uint32) * np.uint32(0x9E3779B1)
    x ^= x >> np.uint32(15)
    x *= np.uint32(0x85EBCA77)
    x ^= x >> np.uint32(13)
    return (x >> np.uint32(24)).astype(np.uint8)


def image(w, h, c):
    a = noise(w * h * c)
    return a.reshape(h, w) if c == 1 else a.reshape(h, w, c)


def median_ms(f, ref_ms):  # as bench.cpp's median_ms: 1 run for a call over 3x slower than Lumen
    t0 = time.perf_counter()
    f()
    once, t = max(time.perf_counter() - t0, 1e-7), []
    if once * 1e3 > 3 * ref_ms:
        a = time.perf_counter()
        f()
        t.append(time.perf_counter() - a)
        if t[0] * 1e3 > 3 * ref_ms:
            return t[0] * 1e3
        once = t[0]
    n = min(51, max(3, int(budget / once)))
    while len(t) < n:
        a = time.perf_counter()
        f()
        t.append(time.perf_counter() - a)
    return sorted(t)[n // 2] * 1e3


# ---- The cv2 equivalents: (name, tolerance (< 0: info only, "differs" past -tol), callable). Outputs go to
# preallocated arrays (dst=), as in bench.cpp; tolerances as there.
def ops(name, params, src, dst):
    BR = cv2.BORDER_REPLICATE
    if name == "levels":
        return [("cv2.LUT", 0, lambda: cv2.LUT(src, LUT, dst=dst)),
                ("cv2.convertScaleAbs", 1, lambda: cv2.convertScaleAbs(src, dst=dst, alpha=G, beta=B))]
    if name == "grayscale":
        code = cv2.COLOR_RGBA2GRAY if src.shape[2] == 4 else cv2.COLOR_RGB2GRAY
        return [("cv2.cvtColor RGB(A)2GRAY", 1, lambda: cv2.cvtColor(src, code, dst=dst))]
    if name in ("gaussian_blur", "unsharp_mask"):
        sigma = float(params.split()[1])
        k = 2 * math.ceil(3 * sigma) + 1
        if name == "gaussian_blur":
            return [(f"cv2.GaussianBlur {k}x{k}", 2,
                     lambda: cv2.GaussianBlur(src, (k, k), sigma, dst=dst, sigmaY=sigma, borderType=BR))]
        bl = np.empty_like(src)

        def unsharp():
            cv2.GaussianBlur(src, (k, k), sigma, dst=bl, sigmaY=sigma, borderType=BR)
            cv2.addWeighted(src, AMOUNT, bl, 1.0 - AMOUNT, 0.0, dst=dst)
        return [("cv2.GaussianBlur + addWeighted", 2, unsharp)]
    if name == "sobel":
        gx, gy, m = (np.empty(src.shape, np.float32) for _ in range(3))

        def sobel():
            cv2.Sobel(src, cv2.CV_32F, 1, 0, dst=gx, ksize=3, borderType=BR)
            cv2.Sobel(src, cv2.CV_32F, 0, 1, dst=gy, ksize=3, borderType=BR)
            cv2.magnitude(gx, gy, m)
            cv2.convertScaleAbs(m, dst=dst)  # |m| is m: round and saturate, as convertTo
        return [("cv2.Sobel dx+dy (32F) + magnitude", 1, sobel)]
    if name == "resize":
        size = (dst.shape[1], dst.shape[0])
        return [("cv2.resize INTER_LINEAR_EXACT", 1,
                 lambda: cv2.resize(src, size, dst=dst, interpolation=cv2.INTER_LINEAR_EXACT)),
                ("cv2.resize INTER_LINEAR", 1, lambda: cv2.resize(src, size, dst=dst, interpolation=cv2.INTER_LINEAR))]
    if name == "resize_nearest":
        size = (dst.shape[1], dst.shape[0])
        return [("cv2.resize INTER_NEAREST_EXACT", 0,
                 lambda: cv2.resize(src, size, dst=dst, interpolation=cv2.INTER_NEAREST_EXACT))]
    if name == "resize_area":
        size = (dst.shape[1], dst.shape[0])
        return [("cv2.resize INTER_AREA", 1, lambda: cv2.resize(src, size, dst=dst, interpolation=cv2.INTER_AREA))]
    if name == "resize_cubic":
        size = (dst.shape[1], dst.shape[0])
        return [("cv2.resize INTER_CUBIC", 1, lambda: cv2.resize(src, size, dst=dst, interpolation=cv2.INTER_CUBIC))]
    if name == "resize_lanczos3":  # Pillow rounds and clips its 8-bit intermediate: info only
        if src.ndim == 3 and src.shape[2] == 4:  # Pillow premultiplies RGBA: another operation
            return []
        size, im = (dst.shape[1], dst.shape[0]), Image.fromarray(src)
        return [("PIL resize LANCZOS", -2, lambda: np.copyto(dst, np.asarray(im.resize(size, Image.LANCZOS))))]
    if name == "box_filter":
        k = tuple(map(int, params.split("x")))
        return [(f"cv2.blur {params}", 1, lambda: cv2.blur(src, k, dst=dst, borderType=BR))]
    if name == "yuv_to_rgb":
        code = cv2.COLOR_YUV2RGBA_NV12 if dst.shape[2] == 4 else cv2.COLOR_YUV2RGB_NV12
        return [("cv2.cvtColor YUV2RGB(A)_NV12", 1, lambda: cv2.cvtColor(src, code, dst=dst))]
    raise ValueError(name)


lines = open(raw).read().splitlines()
rows = list(csv.DictReader(lines[1:]))
variant = L.lumen_cpu_variant().decode()
cases, lumen_ms = [], {}
for r in rows:
    if r["section"] != "pipeline":
        continue
    key = (r["name"], r["params"], r["size"], r["format"])
    if key not in cases:
        cases.append(key)
    lumen_ms[key + (r["threads"],)] = r["lumen_ms"]
threads = sorted({r["threads"] for r in rows if r["section"] == "pipeline"}, key=int)

ver = f"{cv2.__version__} (PyPI)"
f = open(out_path, "w", newline="")
ipp = cv2.ipp.getIppVersion() if cv2.ipp.useIPP() else "not used"
f.write(f"# cv2 {cv2.__version__} (opencv-python-headless), numpy {np.__version__}, Python {sys.version.split()[0]}; "
        f"CPU: {cv2.getCPUFeaturesLine()}; IPP: {ipp}; variant {variant}\n")
w = csv.writer(f)
w.writerow(lines[1].split(","))


def emit(*vals):
    w.writerow(vals)
    f.flush()


# Python's share of each timed call: an empty function through the same harness, and a cv2 call
# on a 1x1 image (argument parsing, numpy <-> Mat, the GIL release), in batches of 10000.
one, one_out = np.zeros((1, 1), np.uint8), np.zeros((1, 1), np.uint8)
for label, fn in (("no-op Python call", lambda: None), ("cv2.LUT on 1x1", lambda: cv2.LUT(one, LUT, dst=one_out))):
    per = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(10000):
            fn()
        per.append((time.perf_counter() - t0) / 10000 * 1e9)
    emit("python", label, "", "1x1", "gray", 1, variant, "", f"{sorted(per)[3] / 1e6:.6f}", label, ver, "", "", "",
         f"{sorted(per)[3]:.1f}", "ns/call", "", "median of 7 batches of 10000 calls")

t_start = time.perf_counter()
for name, params, size, fmt in cases:
    # Not from Python: cv2's RGB2YUV_I420 chroma is not Lumen's (bench.cpp times it, uncounted),
    # a numpy slice reaches OpenCV without its parent, so a "ROI" there clamps at its edges, and
    # the fused yuv_to_rgb (resize) has its C++ two-pass peer only; flip, rotate, threshold,
    # morphology, median, warp_affine, lut, equalize_hist, filter2d, sep_filter, the reflect-101
    # blur and bilateral have their C++ cv:: peers only, so far.
    if name in ("rgb_to_yuv", "gaussian_blur (view)", "yuv_to_rgb (resize)", "flip", "rotate",
                "threshold", "morphology", "median", "warp_affine", "lut", "equalize_hist", "filter2d",
                "sep_filter", "gaussian_blur (reflect-101)", "bilateral"):
        continue
    wd, ht = map(int, size.split("x"))
    c = {"gray": 1, "rgb": 3, "rgba": 4}[fmt]
    src = image(wd, ht, c)
    if name == "yuv_to_rgb":  # an NV12 frame with video-range samples, as bench.cpp makes it
        src = (16 + image(wd, ht * 3 // 2, 1).astype(np.uint32) * 219 // 255).astype(np.uint8)
    ow, oh, oc = wd, ht, (1 if name == "grayscale" else c)
    if name.startswith("resize"):
        num, den = map(int, params[1:].split("/"))
        ow, oh = wd * num // den, ht * num // den
    shape = (oh, ow) if oc == 1 else (oh, ow, oc)
    ref, dst = np.zeros(shape, np.uint8), np.zeros(shape, np.uint8)
    lumen(name, params, src, ref)
    for t in threads:
        cv2.setNumThreads(int(t))
        lm = float(lumen_ms[(name, params, size, fmt, t)])
        for other, tol, fn in ops(name, params, src, dst):
            dst[...] = 0
            ms = median_ms(fn, lm)
            diff = int(np.max(np.abs(dst.astype(np.int16) - ref.astype(np.int16))))
            m = "ok" if diff <= abs(tol) else "differs" if tol < 0 else "FAIL"  # tol < 0: info only
            pv = f"{PIL.__version__} (PyPI)" if other.startswith("PIL") else ver
            emit("pipeline", name, params, size, fmt, t, variant, f"{lm:.6g}", f"{ms:.6g}", other, pv,
                 m, diff, abs(tol), f"{ms / lm:.4f}", "x peer/Lumen", "",
                 "from Python, numpy arrays, dst= preallocated")
print(f"peer_cv2.py ({variant}): {time.perf_counter() - t_start:.0f} s", file=sys.stderr)
