#!/bin/bash
set -euo pipefail
cd /app
# Makefile: recipe lines need a tab, the input module was not linked, sqrt needs libm
sed -i 's/^        \$(CC)/\t$(CC)/' Makefile
sed -i 's#^OBJS = src/main.o src/stats.o$#OBJS = src/main.o src/stats.o src/input.o#' Makefile
sed -i 's/^LDLIBS =$/LDLIBS = -lm/' Makefile
# stats.h is included twice through input.h: add an include guard
python3 - <<'PY'
p = "src/stats.h"
s = open(p).read()
if "#ifndef STATS_H" not in s:
    s = "#ifndef STATS_H\n#define STATS_H\n\n" + s + "\n#endif /* STATS_H */\n"
open(p, "w").write(s)
p = "src/stats.c"
s = open(p).read()
s = s.replace("    out->min = 0.0;\n", "    out->min = values[0];\n")
s = s.replace("    out->stddev = sqrt(sq / (n - 1));\n",
              "    out->stddev = n > 1 ? sqrt(sq / (n - 1)) : 0.0;\n")
open(p, "w").write(s)
PY
make clean
make
./stats sample.txt
