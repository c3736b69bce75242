"""Usage: png_diff.py A.png B.png: prints the largest difference between the samples of two
8-bit, non-interlaced PNG images of one size and colour type (what `lumen demo` writes), or
"size" / "type" if they differ in those. Plain Python (zlib), for tests/compare_toolchains.sh."""
import struct
import sys
import zlib


def samples(path):
    data = open(path, "rb").read()
    pos, idat, head = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = head
    if depth != 8 or interlace:
        sys.exit(f"{path}: only 8-bit, non-interlaced PNG")
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw, stride, rows, prev = zlib.decompress(idat), w * bpp, [], bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return (w, h), ctype, rows


(sa, ta, ra), (sb, tb, rb) = samples(sys.argv[1]), samples(sys.argv[2])
if sa != sb or ta != tb:
    print("size" if sa != sb else "type")
else:
    print(max(max(abs(p - q) for p, q in zip(x, y)) for x, y in zip(ra, rb)))
