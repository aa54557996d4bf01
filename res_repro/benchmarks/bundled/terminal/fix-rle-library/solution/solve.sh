#!/bin/bash
set -euo pipefail
cd /app
python3 - <<'PY'
def patch(path, pairs):
    s = open(path).read()
    for old, new in pairs:
        assert s.count(old) == 1, (path, old)
        s = s.replace(old, new)
    open(path, "w").write(s)

# archive every object, and put the library after the objects that use it
patch("Makefile", [
    ("\t$(AR) rcs $@ $<\n", "\t$(AR) rcs $@ $^\n"),
    ("\t$(CC) $(CFLAGS) -L. -lrle src/cli.o -o $@\n", "\t$(CC) $(CFLAGS) src/cli.o -L. -lrle -o $@\n"),
    ("\t$(CC) $(CFLAGS) -L. -lrle $< -o $@\n", "\t$(CC) $(CFLAGS) $< -L. -lrle -o $@\n"),
])
# a run longer than 255 bytes must be split
patch("src/encode.c", [
    ("        while (j < n && src[j] == src[i])\n",
     "        while (j < n && src[j] == src[i] && j - i < 255)\n"),
])
# reject odd lengths and zero counts
patch("src/decode.c", [
    ("    for (i = 0; i < n; i += 2)\n        total += src[i];\n",
     "    if (n % 2 != 0)\n        return -1;\n"
     "    for (i = 0; i < n; i += 2) {\n"
     "        if (src[i] == 0)\n            return -1;\n"
     "        total += src[i];\n    }\n"),
])
# binary-safe output, and check the decoder's result
patch("src/cli.c", [
    ("        m = rle_decode(in, n, out);\n    }\n    out[m] = '\\0';\n    fputs((char *)out, stdout);\n",
     "        m = rle_decode(in, n, out);\n    }\n"
     "    if (fwrite(out, 1, (size_t)m, stdout) != (size_t)m) {\n"
     "        fprintf(stderr, \"rle: write error\\n\");\n        return 1;\n    }\n"),
])
PY
make clean
make
make test
